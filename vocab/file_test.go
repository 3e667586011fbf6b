package vocab

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"regexp"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/internal/testdata"
)

// view is what a Vocabulary holds, for comparing two with cmp.
type view struct {
	Kind     Kind
	Name     string
	Hash     [sha256.Size]byte
	Len      int
	BOS      int64
	Tokens   map[uint32]string // ordinary tokens
	Bytes    map[uint32]byte   // SentencePiece byte pieces
	Specials map[uint32]string
}

func viewOf(v *Vocabulary) view {
	w := view{Kind: v.kind, Name: v.name, Hash: v.Hash(), Len: len(v.tab), BOS: v.bos,
		Tokens: map[uint32]string{}, Bytes: map[uint32]byte{}, Specials: map[uint32]string{}}
	for id, e := range v.tab {
		p := string(v.data[e.off : e.off+uint32(e.n)])
		switch e.flag {
		case ordinary:
			w.Tokens[uint32(id)] = p
		case bytePc:
			w.Bytes[uint32(id)] = p[0]
		case special:
			w.Specials[uint32(id)] = p
		}
	}
	return w
}

// sameVocab reports how got differs from want: by their views for small
// vocabularies, and for large ones (cmp of 200,000-entry maps takes most of
// a minute under -race) by their vocabulary files, which hold every token,
// special, the kind and the name, and by BOS.
func sameVocab(want, got *Vocabulary) string {
	if want.Len() < 10000 {
		return cmp.Diff(viewOf(want), viewOf(got))
	}
	if want.bos != got.bos || !bytes.Equal(want.AppendFile(nil), got.AppendFile(nil)) {
		return "vocabulary files or BOS differ"
	}
	return ""
}

func named(t testing.TB, v *Vocabulary, name string) *Vocabulary {
	t.Helper()
	w, err := v.Named(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestFileRoundTrip: every vocabulary of testdata, written as a vocabulary
// file and read back, is the same vocabulary, and writing it again gives
// the same bytes (one encoding per vocabulary).
func TestFileRoundTrip(t *testing.T) {
	for _, v := range []*Vocabulary{
		named(t, byteLevel(t), "test"),
		named(t, tok512(t), "tok512"),
		named(t, loadTestTiktoken(t, "cl100k_base"), "cl100k_base"),
		named(t, loadTestTiktoken(t, "o200k_base"), "o200k_base"),
	} {
		file := v.AppendFile(nil)
		got, err := ParseFile(file)
		if err != nil {
			t.Fatalf("%s: %v", v.Name(), err)
		}
		if diff := sameVocab(v, got); diff != "" {
			t.Errorf("%s: read back differs (-want +got):\n%s", v.Name(), diff)
		}
		if again := got.AppendFile(nil); !bytes.Equal(again, file) {
			t.Errorf("%s: written again, %d bytes differ from the %d first written", v.Name(), len(again), len(file))
		}
	}
}

// TestFileRoundTripRapid: any vocabulary (random tokens, gaps, specials,
// kind, name) reads back from its file as itself.
func TestFileRoundTripRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 300).Draw(t, "n")
		v := &Vocabulary{kind: Kind(rapid.IntRange(0, 1).Draw(t, "kind")), bos: -1, tab: make([]entry, n),
			name: rapid.StringN(0, 20, MaxNameLen).Draw(t, "name")}
		for id := range v.tab {
			var p []byte
			flag := uint8(rapid.IntRange(absent, special).Draw(t, "flag"))
			switch flag {
			case ordinary:
				p = rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "token")
				if v.kind == SentencePiece {
					if _, ok := bytePiece(p); ok {
						p = p[:5] // ParseLlama2c would have made it a byte piece
					}
				}
			case special:
				p = rapid.SliceOfN(rapid.Byte(), 1, 12).Draw(t, "special")
				if v.kind == SentencePiece && string(p) == "<s>" && v.bos < 0 {
					v.bos = int64(id)
				} else if string(p) == "<s>" {
					p = []byte("<t>")
				}
			}
			if v.kind == SentencePiece && flag == ordinary && rapid.IntRange(0, 9).Draw(t, "piece") == 0 {
				flag, p = bytePc, []byte{rapid.Byte().Draw(t, "byte")}
			}
			v.tab[id] = entry{off: uint32(len(v.data)), n: uint16(len(p)), flag: flag}
			v.data = append(v.data, p...)
		}
		got, err := ParseFile(v.AppendFile(nil))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(viewOf(v), viewOf(got)); diff != "" {
			t.Fatalf("read back differs (-want +got):\n%s", diff)
		}
	})
}

// checkFileErr: err is an *Error of a file-format kind, inside the input.
func checkFileErr(t testing.TB, err error, n int) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err %v is not an *Error", err)
	}
	if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v of no known kind", err)
	}
	if e.Offset < 0 || e.Offset > int64(n) || e.Index != -1 {
		t.Fatalf("err %v: offset %d, index %d, input %d bytes", err, e.Offset, e.Index, n)
	}
}

// TestFileEveryByteChecked: a change of any one byte of a small file, and
// of random bytes of cl100k_base's, is an error: the check and the hash
// leave no byte unguarded (SPEC.md §3.15).
func TestFileEveryByteChecked(t *testing.T) {
	small := named(t, byteLevel(t), "test").AppendFile(nil)
	for i := range small {
		for _, x := range []byte{0x01, 0x80, 0xFF} {
			b := bytes.Clone(small)
			b[i] ^= x
			_, err := ParseFile(b)
			if err == nil {
				t.Fatalf("byte %d ^ %#x: no error", i, x)
			}
			checkFileErr(t, err, len(b))
		}
	}
	big := named(t, loadTestTiktoken(t, "cl100k_base"), "cl100k_base").AppendFile(nil)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 64 {
		i := rng.IntN(len(big))
		x := byte(1 + rng.IntN(255))
		big[i] ^= x
		_, err := ParseFile(big)
		if err == nil {
			t.Fatalf("cl100k_base byte %d ^ %#x: no error", i, x)
		}
		checkFileErr(t, err, len(big))
		big[i] ^= x
	}
	if _, err := ParseFile(big); err != nil {
		t.Fatalf("cl100k_base, restored: %v", err)
	}
}

// TestFileHashChecked: a file whose tokens were changed and whose check was
// made again still fails, at the hash: the header's hash names the tokens.
func TestFileHashChecked(t *testing.T) {
	v := named(t, byteLevel(t), "test")
	file := v.AppendFile(nil)
	body := file[:len(file)-sha256.Size]
	body[len(body)-1] ^= 1 // the last token's last byte
	sum := sha256.Sum256(body)
	copy(file[len(body):], sum[:])
	_, err := ParseFile(file)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrMalformed) || e.Offset != int64(7+len("test")) {
		t.Fatalf("err %v, want ErrMalformed at the hash, offset %d", err, 7+len("test"))
	}
}

// TestFileBoundedMemory: what ParseFile allocates is bounded by the file,
// not by its claims: n and the special count are checked against the bytes
// left first, and the worst file — every ID a one-byte length of an absent
// token — costs its 8-byte table entry per byte, plus the names read.
func TestFileBoundedMemory(t *testing.T) {
	header := func(n uint32, specials uint32) []byte {
		b := append([]byte(FileMagic), 1, 0, 0)
		b = append(b, make([]byte, sha256.Size)...)
		b = append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		return append(b, byte(specials>>24), byte(specials>>16), byte(specials>>8), byte(specials))
	}
	worst := append(header(1<<20, 0), make([]byte, 1<<20)...)
	worst = append(worst, make([]byte, sha256.Size)...)
	for _, c := range []struct {
		name  string
		in    []byte
		limit uint64 // bytes allocated, at most
	}{
		{"n claims MaxTokens", append(header(MaxTokens, 0), make([]byte, 64)...), 4096},
		{"specials claim 2^32-1", append(header(1, 1<<32-1), make([]byte, 64)...), 4096},
		{"a million absent IDs", worst, 8*uint64(len(worst)) + 4096},
	} {
		// The least of three parses: TotalAlloc counts what the rest of
		// the process allocates meanwhile too, which only adds (CI saw a
		// few KB more, once, on a loaded machine).
		got := ^uint64(0)
		for range 3 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := ParseFile(c.in)
			runtime.ReadMemStats(&after)
			checkFileErr(t, err, len(c.in))
			got = min(got, after.TotalAlloc-before.TotalAlloc)
		}
		if got > c.limit {
			t.Errorf("%s: allocated %d bytes for a %d-byte file, want at most %d", c.name, got, len(c.in), c.limit)
		}
	}
}

// TestFileErrors: faults of each field are reported at its offset.
func TestFileErrors(t *testing.T) {
	good := named(t, byteLevel(t), "").AppendFile(nil)
	for _, c := range []struct {
		name string
		in   []byte
		kind error
		off  int64
	}{
		{"empty", nil, ErrTruncated, 0},
		{"magic", []byte("ANTH"), ErrMalformed, 0},
		{"version", append([]byte("ANTV\x02"), good[5:]...), ErrMalformed, 4},
		{"kind", append([]byte("ANTV\x01\x02"), good[6:]...), ErrMalformed, 5},
		{"cut", good[:len(good)-1], ErrTruncated, int64(len(good) - 1 - sha256.Size)},
		{"longer", append(bytes.Clone(good), 0), ErrMalformed, int64(len(good) - sha256.Size)},
	} {
		_, err := ParseFile(c.in)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, c.kind) || e.Offset != c.off {
			t.Errorf("%s: err %v, want %v at %d", c.name, err, c.kind, c.off)
		}
	}
}

var fileVectorRow = regexp.MustCompile("^\\| `(vocab-file[a-z0-9-]*)` \\| `([0-9A-F ]*)` \\|$")

// TestFileSpecVector: the vocabulary file vector of SPEC.md §3.15 is what
// AppendFile writes for the two tokens "a", "b" and the special
// <|endoftext|> with ID 2, named "ab".
func TestFileSpecVector(t *testing.T) {
	rows := testdata.SpecRows(t, "3.15", fileVectorRow)
	if len(rows) != 1 {
		t.Fatalf("found %d vocabulary file vectors in SPEC.md §3.15, want 1", len(rows))
	}
	v, err := ParseTiktoken([]byte("YQ== 0\nYg== 1\n"), map[string]uint32{"<|endoftext|>": 2})
	if err != nil {
		t.Fatal(err)
	}
	want := testdata.Hex(t, rows[0][2])
	if got := named(t, v, "ab").AppendFile(nil); !bytes.Equal(got, want) {
		t.Errorf("AppendFile:\n% X\nwant\n% X", got, want)
	}
	got, err := ParseFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viewOf(named(t, v, "ab")), viewOf(got)); diff != "" {
		t.Errorf("ParseFile (-want +got):\n%s", diff)
	}
}

// FuzzParseFile: no panic; an error is an *Error inside the input; a file
// that reads is the one encoding of its vocabulary (AppendFile gives it
// back byte for byte).
func FuzzParseFile(f *testing.F) {
	v, _ := ParseTiktoken([]byte("YQ== 0\nYg== 1\n"), map[string]uint32{"<|endoftext|>": 2})
	f.Add(v.AppendFile(nil))
	if b, err := ParseLlama2c(readFile(f, "tok512.bin")); err == nil {
		f.Add(b.AppendFile(nil))
	}
	f.Add([]byte("ANTV\x01\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseFile(data)
		if err != nil {
			checkFileErr(t, err, len(data))
			return
		}
		if again := v.AppendFile(nil); !bytes.Equal(again, data) {
			t.Fatalf("written again:\n% X\nwant\n% X", again, data)
		}
	})
}

// BenchmarkLoad: loading cl100k_base from a vocabulary file (its check and
// hash verified) against the .tiktoken file a client would otherwise load,
// with its figures: sizes of both as they travel, and the memory a loaded
// Vocabulary holds.
func BenchmarkLoad(b *testing.B) {
	tk := gunzip(b, "cl100k_base.tiktoken.gz")
	v, err := ParseTiktoken(tk, CL100KBaseSpecials())
	if err != nil {
		b.Fatal(err)
	}
	file := named(b, v, "cl100k_base").AppendFile(nil)
	for _, c := range []struct {
		name  string
		data  []byte
		parse func([]byte) (*Vocabulary, error)
	}{
		{"file", file, ParseFile},
		{"tiktoken", tk, func(d []byte) (*Vocabulary, error) { return ParseTiktoken(d, CL100KBaseSpecials()) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			var v *Vocabulary
			for b.Loop() {
				if v, err = c.parse(c.data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(c.data)), "file-B")
			b.ReportMetric(float64(gzipSize(b, c.data)), "gzip-B")
			b.ReportMetric(float64(8*len(v.tab)+cap(v.data)), "held-B")
		})
	}
}

func gzipSize(b *testing.B, data []byte) int {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	return buf.Len()
}
