package vocab

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tinyHash is `sha256sum testdata/tiny.tiktoken`, a file written by hand
// with printf and base64(1) (see testdata/README.md), not by this package.
const tinyHash = "6657248976748451631e1b97be83e2384f0672ba428bcc0b0024420b0792a052"

// tok512Hash is the SHA-256 of tok512.bin's pieces 3–511 rendered as
// tiktoken lines, computed with Python's struct, base64 and hashlib.
const tok512Hash = "1e5d259c75f42dff15a1b8da30bb2f6ddace95fbfc765ed68004f43acdb2abcf"

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHashTiktoken(t *testing.T) {
	file := readFile(t, "tiny.tiktoken")
	v, err := ParseTiktoken(file, map[string]uint32{"<|end|>": 9})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.AppendTiktoken(nil); !bytes.Equal(got, file) {
		t.Errorf("AppendTiktoken = %q, want the file %q", got, file)
	}
	h := v.Hash()
	if got := hex.EncodeToString(h[:]); got != tinyHash {
		t.Errorf("Hash = %s, want %s", got, tinyHash)
	}
	// A one-byte change to any line changes the hash.
	for i := range file {
		if file[i] == '\n' || file[i] == ' ' {
			continue
		}
		mod := bytes.Clone(file)
		mod[i] ^= 1
		w, err := ParseTiktoken(mod, nil)
		if err != nil {
			continue // no longer a vocabulary: caught too
		}
		if w.Hash() == h {
			t.Errorf("byte %d changed, hash unchanged", i)
		}
	}
}

func TestHashLlama2c(t *testing.T) {
	v, err := ParseLlama2c(readFile(t, "tok512.bin"))
	if err != nil {
		t.Fatal(err)
	}
	h := v.Hash()
	if got := hex.EncodeToString(h[:]); got != tok512Hash {
		t.Errorf("Hash = %s, want %s", got, tok512Hash)
	}
	if got := sha256.Sum256(v.AppendTiktoken(nil)); got != h {
		t.Error("Hash is not the SHA-256 of AppendTiktoken")
	}
}

func TestParseLlama2c(t *testing.T) {
	v, err := ParseLlama2c(readFile(t, "tok512.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 512 || v.Kind() != SentencePiece {
		t.Fatalf("Len %d, Kind %v; want 512, sentencepiece", v.Len(), v.Kind())
	}
	for id, want := range []string{"<unk>", "<s>", "</s>"} {
		if name, ok := v.Special(uint32(id)); !ok || name != want {
			t.Errorf("Special(%d) = %q, %v; want %q", id, name, ok, want)
		}
		if got, ok := v.SpecialID(want); !ok || got != uint32(id) {
			t.Errorf("SpecialID(%q) = %d, %v", want, got, ok)
		}
	}
	for b := range 256 {
		got, ok := v.Bytes(uint32(3 + b))
		if !ok || len(got) != 1 || got[0] != byte(b) {
			t.Errorf("Bytes(%d) = %q, %v; want byte %#02x", 3+b, got, ok, b)
		}
	}
	if got, ok := v.Bytes(259); !ok || string(got) != "in" {
		t.Errorf("Bytes(259) = %q, %v; want \"in\"", got, ok)
	}
	if _, ok := v.Bytes(1); ok {
		t.Error("Bytes(1) of BOS is ok")
	}
	if _, ok := v.Special(259); ok {
		t.Error("Special(259) is ok")
	}
}

func TestParseTiktoken(t *testing.T) {
	v, err := ParseTiktoken([]byte("YQ== 0\n\nYg== 2"), map[string]uint32{"<|endofprompt|>": 6, "<|endoftext|>": 5})
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 7 || v.Kind() != ByteLevel {
		t.Fatalf("Len %d, Kind %v", v.Len(), v.Kind())
	}
	if _, ok := v.Bytes(1); ok {
		t.Error("ID 1 is a gap, Bytes says ok")
	}
	if b, ok := v.Bytes(2); !ok || string(b) != "b" {
		t.Errorf("Bytes(2) = %q, %v", b, ok)
	}
	if name, ok := v.Special(6); !ok || name != "<|endofprompt|>" {
		t.Errorf("Special(6) = %q, %v", name, ok)
	}
	if id := CL100KBaseSpecials()["<|endoftext|>"]; id != 100257 {
		t.Errorf("cl100k <|endoftext|> %d", id)
	}
	if id := O200KBaseSpecials()["<|endoftext|>"]; id != 199999 {
		t.Errorf("o200k <|endoftext|> %d", id)
	}
}

func TestParseErrors(t *testing.T) {
	le := func(vs ...int32) []byte {
		var b []byte
		for _, v := range vs {
			b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		}
		return b
	}
	tok := func(s string) []byte { return append(le(0, int32(len(s))), s...) }
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	type tc struct {
		name     string
		tiktoken bool
		in       []byte
		specials map[string]uint32
		kind     error
		off      int64
	}
	for _, c := range []tc{
		{"no space", true, []byte("YQ== 0\nYg==1\n"), nil, ErrMalformed, 7},
		{"bad rank", true, []byte("YQ== 0\nYg== x1\n"), nil, ErrMalformed, 12},
		{"leading zero", true, []byte("YQ== 01\n"), nil, ErrMalformed, 5},
		{"negative", true, []byte("YQ== -1\n"), nil, ErrMalformed, 5},
		{"huge rank", true, []byte("YQ== 4294967295\n"), nil, ErrTooLarge, 5},
		{"bad base64", true, []byte("YQ== 0\nY!== 1\n"), nil, ErrMalformed, 7},
		{"non-canonical base64", true, []byte("YR== 0\n"), nil, ErrMalformed, 0},
		{"twice", true, []byte("YQ== 0\nYg== 0\n"), nil, ErrMalformed, 7},
		{"special taken", true, []byte("YQ== 0\n"), map[string]uint32{"<|x|>": 0}, ErrMalformed, -1},
		{"sparse", true, []byte("YQ== 0\nYg== 70000\n"), nil, ErrTooLarge, -1},
		{"special sparse", true, []byte("YQ== 0\n"), map[string]uint32{"<|x|>": 70000}, ErrTooLarge, -1},
		{"special huge", true, []byte("YQ== 0\n"), map[string]uint32{"<|x|>": MaxTokens}, ErrTooLarge, -1},
		{"empty", false, nil, nil, ErrTruncated, 0},
		{"short header", false, []byte{10, 0}, nil, ErrTruncated, 2},
		{"max len 0", false, le(0), nil, ErrMalformed, 0},
		{"max len huge", false, le(1 << 30), nil, ErrMalformed, 0},
		{"cut record", false, cat(le(10), tok("a"), []byte{0, 0}), nil, ErrTruncated, 15},
		{"negative len", false, cat(le(10), le(0, -1)), nil, ErrMalformed, 8},
		{"len over max", false, cat(le(10), tok("a"), le(0, 11)), nil, ErrMalformed, 17},
		{"len past end", false, cat(le(10), le(0, 9), []byte("abc")), nil, ErrTruncated, 15},
		{"empty special", false, cat(le(10), tok(" ")), nil, ErrMalformed, 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.tiktoken {
				_, err = ParseTiktoken(c.in, c.specials)
			} else {
				_, err = ParseLlama2c(c.in)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if !errors.Is(err, c.kind) || e.Offset != c.off || e.Index != -1 {
				t.Errorf("err = %v (offset %d, index %d), want kind %v at offset %d", err, e.Offset, e.Index, c.kind, c.off)
			}
		})
	}
}

// A header that claims huge sizes allocates nothing for them: memory is
// bounded by the input's length.
func TestParseBoundedMemory(t *testing.T) {
	inputs := [][]byte{
		{0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0},             // max_token_length 65535, len 65535, no bytes
		{0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F}, // 2^31-1
		[]byte("YQ== 4194303\n"),                                     // the largest rank: a table of MaxTokens entries
	}
	for _, in := range inputs {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ParseLlama2c(in)
		if in[0] == 'Y' {
			ParseTiktoken(in, nil)
		}
		runtime.ReadMemStats(&after)
		got := after.TotalAlloc - before.TotalAlloc
		limit := uint64(4096)
		if in[0] == 'Y' {
			limit = 8*maxGap + 4096
		}
		if got > limit {
			t.Errorf("%q: allocated %d bytes, want at most %d", in, got, limit)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	for _, c := range []struct {
		e    *Error
		want string
	}{
		{fileErr(12, ErrMalformed, "rank \"x\""), "vocab: offset 12: malformed: rank \"x\""},
		{&Error{Offset: -1, Index: 3, ID: 70000, Err: ErrUnknownToken}, "vocab: ID 70000 at index 3: unknown token ID"},
	} {
		if diff := cmp.Diff(c.want, c.e.Error()); diff != "" {
			t.Error(diff)
		}
	}
}

// TestTestdataNamed: testdata/README.md names every file in testdata, so
// each copy stays beside its source and licence.
func TestTestdataNamed(t *testing.T) {
	readme := string(readFile(t, "README.md"))
	files, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if name := f.Name(); !f.IsDir() && name != "README.md" && !strings.Contains(readme, "`"+name+"`") {
			t.Errorf("testdata/README.md does not name %s", name)
		}
	}
}
