package interop

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/vocab"
)

// The JavaScript Detokenizer (js/src/detokenizer.js) and loaders are the
// twins of package vocab. TestVocabGolden pins what Go does on the same
// inputs in js/test/testdata/vocab-golden.json, which js/test/vocab.test.js
// holds the JavaScript to: each vocabulary's hash, the text and special
// token of every ID of seeded streams (so the held bytes and U+FFFD of
// each call count, not only the joined text), unknown IDs, and the error
// kind and offset of broken vocabulary files. Regenerate with
// go test -run TestVocabGolden -update-vocab-golden.
var updateVocabGolden = flag.Bool("update-vocab-golden", false, "write js/test/testdata/vocab-golden.json")

const vocabGoldenPath = "../js/test/testdata/vocab-golden.json"

type goldenVocab struct {
	Format   string            `json:"format"` // tiktoken, hf or llama2c
	File     string            `json:"file"`   // base64
	Specials map[string]uint32 `json:"specials,omitempty"`
	Hash     string            `json:"hash,omitempty"`
	Kind     string            `json:"kind,omitempty"`
	Len      int               `json:"len,omitempty"`
}

type goldenStream struct {
	Vocab string      `json:"vocab"`
	IDs   []uint32    `json:"ids"`
	Out   [][2]string `json:"out"`   // per ID: the text Next gave, the special's name or ""
	Flush string      `json:"flush"` // what Flush gave after the last ID
	Err   *goldenErr  `json:"err,omitempty"`
}

type goldenErr struct {
	Kind   string `json:"kind"`
	Offset int64  `json:"offset"`
	Index  int64  `json:"index"`
	ID     uint32 `json:"id"`
}

type goldenFile struct {
	Vocabs     map[string]*goldenVocab `json:"vocabs"`
	Streams    []goldenStream          `json:"streams"`
	FileErrors []goldenVocabErr        `json:"fileErrors"`
	// Mutations are seeded random edits of good files (bytes set, cut,
	// repeated, removed) with what Go makes of each: its error, or the
	// vocabulary's hash and length.
	Mutations []goldenMutation `json:"mutations"`
}

type goldenMutation struct {
	Format   string            `json:"format"`
	File     string            `json:"file"`
	Specials map[string]uint32 `json:"specials,omitempty"`
	Err      *goldenErr        `json:"err,omitempty"`
	Hash     string            `json:"hash,omitempty"`
	Len      int               `json:"len,omitempty"`
}

type goldenVocabErr struct {
	goldenVocab
	Name string    `json:"name"`
	Err  goldenErr `json:"err"`
}

func TestVocabGolden(t *testing.T) {
	got := buildVocabGolden(t)
	b, err := json.MarshalIndent(got, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *updateVocabGolden {
		if err := os.WriteFile(vocabGoldenPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(vocabGoldenPath)
	if err != nil {
		t.Fatalf("%v (regenerate with -update-vocab-golden)", err)
	}
	if diff := cmp.Diff(string(want), string(b)); diff != "" {
		t.Errorf("Go's vocab differs from %s (-file +Go):\n%s", vocabGoldenPath, diff)
	}
}

func readRepo(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadVocab parses a golden vocabulary with Go's loaders.
func loadVocab(g *goldenVocab) (*vocab.Vocabulary, error) {
	data, err := base64.StdEncoding.DecodeString(g.File)
	if err != nil {
		return nil, err
	}
	switch g.Format {
	case "tiktoken":
		return vocab.ParseTiktoken(data, g.Specials)
	case "hf":
		return vocab.ParseHF(data)
	case "llama2c":
		return vocab.ParseLlama2c(data)
	}
	return nil, fmt.Errorf("format %q", g.Format)
}

// errKind names a vocab error's kind with the words of the JavaScript
// VocabError.
func errKind(err error) string {
	for _, k := range []struct {
		err  error
		name string
	}{
		{vocab.ErrUnknownToken, "UnknownToken"},
		{vocab.ErrUnsupported, "Unsupported"},
		{vocab.ErrTruncated, "Truncated"},
		{vocab.ErrTooLarge, "TooLarge"},
		{vocab.ErrMalformed, "Malformed"},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other: " + err.Error()
}

func toGoldenErr(err error) *goldenErr {
	var ve *vocab.Error
	if !errors.As(err, &ve) {
		return &goldenErr{Kind: "other: " + err.Error()}
	}
	return &goldenErr{Kind: errKind(err), Offset: ve.Offset, Index: ve.Index, ID: ve.ID}
}

// gpt2Char is GPT-2's bytes_to_unicode: printable bytes stand for
// themselves, the other 68 for U+0100 onwards in byte order.
func gpt2Char() [256]rune {
	var m [256]rune
	n := rune(0)
	for b := range 256 {
		if '!' <= b && b <= '~' || 0xA1 <= b && b <= 0xAC || 0xAE <= b && b <= 0xFF {
			m[b] = rune(b)
		} else {
			m[b] = 0x100 + n
			n++
		}
	}
	return m
}

// hfByteLevel renders v as a byte-level tokenizer.json, specials as added
// tokens, plus one added token that is text.
func hfByteLevel(t *testing.T, v *vocab.Vocabulary) []byte {
	u := gpt2Char()
	voc := map[string]uint32{}
	adds := []map[string]any{}
	for id := range v.Len() {
		if b, ok := v.Bytes(uint32(id)); ok {
			var s strings.Builder
			for _, c := range b {
				s.WriteRune(u[c])
			}
			voc[s.String()] = uint32(id)
		} else if name, ok := v.Special(uint32(id)); ok {
			adds = append(adds, map[string]any{"id": id, "content": name, "special": true})
		}
	}
	adds = append(adds, map[string]any{"id": v.Len(), "content": "<tool>", "special": false})
	return marshal(t, map[string]any{
		"added_tokens": adds,
		"decoder":      map[string]any{"type": "ByteLevel"},
		"model":        map[string]any{"type": "BPE", "vocab": voc, "merges": []string{}},
	})
}

// hfSentencePiece renders a llama2.c vocabulary as Llama 2's tokenizer.json.
func hfSentencePiece(t *testing.T, v *vocab.Vocabulary) []byte {
	voc := map[string]uint32{}
	adds := []map[string]any{}
	for id := range v.Len() {
		if name, ok := v.Special(uint32(id)); ok {
			adds = append(adds, map[string]any{"id": id, "content": name, "special": true})
			voc[name] = uint32(id)
			continue
		}
		b, _ := v.Bytes(uint32(id))
		if id >= 3 && id < 3+256 {
			voc[fmt.Sprintf("<0x%02X>", id-3)] = uint32(id)
			continue
		}
		voc[strings.ReplaceAll(string(b), " ", "\u2581")] = uint32(id)
	}
	return marshal(t, map[string]any{
		"added_tokens": adds,
		"decoder": map[string]any{"type": "Sequence", "decoders": []map[string]any{
			{"type": "Replace"}, {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip"},
		}},
		"model": map[string]any{"type": "BPE", "vocab": voc, "merges": []string{}},
	})
}

func marshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func buildVocabGolden(t *testing.T) *goldenFile {
	tiny := readRepo(t, "vocab/testdata/tiny.tiktoken")
	tok512 := readRepo(t, "vocab/testdata/tok512.bin")
	tinySpecials := map[string]uint32{"<|endoftext|>": 9, "<|end|>": 12} // 10 and 11 are gaps
	tinyV, err := vocab.ParseTiktoken(tiny, tinySpecials)
	if err != nil {
		t.Fatal(err)
	}
	tokV, err := vocab.ParseLlama2c(tok512)
	if err != nil {
		t.Fatal(err)
	}
	g := &goldenFile{Vocabs: map[string]*goldenVocab{
		"tiny":       {Format: "tiktoken", File: b64(tiny), Specials: tinySpecials},
		"tok512":     {Format: "llama2c", File: b64(tok512)},
		"tiny-hf":    {Format: "hf", File: b64(hfByteLevel(t, tinyV))},
		"tok512-hf":  {Format: "hf", File: b64(hfSentencePiece(t, tokV))},
		"tiny-plain": {Format: "tiktoken", File: b64(tiny)},
	}}
	rng := rand.New(rand.NewPCG(23, 1))
	for _, name := range []string{"tiny", "tiny-hf", "tiny-plain", "tok512", "tok512-hf"} {
		gv := g.Vocabs[name]
		v, err := loadVocab(gv)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		h := v.Hash()
		gv.Hash, gv.Kind, gv.Len = hex.EncodeToString(h[:]), v.Kind().String(), v.Len()
		var known []uint32
		for id := range v.Len() {
			if _, ok := v.Bytes(uint32(id)); ok {
				known = append(known, uint32(id))
			} else if _, ok := v.Special(uint32(id)); ok {
				known = append(known, uint32(id))
			}
		}
		streams := [][]uint32{known}
		for range 40 {
			ids := make([]uint32, 1+rng.IntN(30))
			for i := range ids {
				ids[i] = known[rng.IntN(len(known))]
				if v.Kind() == vocab.SentencePiece && rng.IntN(3) == 0 {
					ids[i] = uint32(3 + 0x80 + rng.IntN(0x80)) // a byte piece of a multi-byte character
				}
			}
			streams = append(streams, ids)
		}
		// Unknown IDs: past the end, and (tiny) in a gap.
		streams = append(streams, []uint32{known[1], uint32(v.Len())}, []uint32{known[0], known[2], 1 << 30})
		if name == "tiny" {
			streams = append(streams, []uint32{5, 10, 6})
		}
		for _, ids := range streams {
			d := vocab.NewDetokenizer(v)
			s := goldenStream{Vocab: name, IDs: ids, Out: [][2]string{}}
			for _, id := range ids {
				out, sp, err := d.Next(nil, id)
				if err != nil {
					s.Err = toGoldenErr(err)
					break
				}
				name := ""
				if sp {
					name, _ = v.Special(id)
				}
				s.Out = append(s.Out, [2]string{string(out), name})
			}
			s.Flush = string(d.Flush(nil))
			g.Streams = append(g.Streams, s)
		}
	}
	// Broken files: each a change to a good one, with Go's error.
	tinyHF, _ := base64.StdEncoding.DecodeString(g.Vocabs["tiny-hf"].File)
	bad := []struct {
		name, format string
		file         []byte
		specials     map[string]uint32
	}{
		{"no space", "tiktoken", []byte("YQ== 0\nYg==1\n"), nil},
		{"rank not a number", "tiktoken", []byte("YQ== 0\nYg== x1\n"), nil},
		{"rank leading zero", "tiktoken", []byte("YQ== 0\nYg== 01\n"), nil},
		{"rank too large", "tiktoken", []byte("YQ== 4194304\n"), nil},
		{"bad base64", "tiktoken", []byte("YQ== 0\nY!== 1\n"), nil},
		{"base64 trailing bits", "tiktoken", []byte("YR== 0\n"), nil},
		{"base64 unpadded", "tiktoken", []byte("YQ 0\n"), nil},
		{"rank twice", "tiktoken", []byte("YQ== 0\nYg== 0\n"), nil},
		{"gap too large", "tiktoken", []byte("YQ== 70000\n"), nil},
		{"special taken", "tiktoken", []byte("YQ== 0\n"), map[string]uint32{"<s>": 0}},
		{"special too large", "tiktoken", []byte("YQ== 0\n"), map[string]uint32{"<s>": 1 << 22}},
		{"llama2c short", "llama2c", []byte{1, 0}, nil},
		{"llama2c max length 0", "llama2c", []byte{0, 0, 0, 0}, nil},
		{"llama2c cut score", "llama2c", tok512[:4+3], nil},
		{"llama2c cut piece", "llama2c", tok512[:4+8+2], nil},
		{"llama2c length over max", "llama2c", append(append([]byte{}, tok512[:4+4]...), 0xff, 0, 0, 0), nil},
		{"llama2c empty special", "llama2c", []byte{8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, ' '}, nil},
		{"hf truncated", "hf", tinyHF[:len(tinyHF)/2], nil},
		{"hf unigram", "hf", []byte(`{"model":{"type":"Unigram","vocab":[["a",0]]},"decoder":{"type":"Metaspace"}}`), nil},
		{"hf wordpiece decoder", "hf", []byte(`{"model":{"type":"BPE","vocab":{"a":0}},"decoder":{"type":"WordPiece"}}`), nil},
		{"hf not byte-level", "hf", []byte(`{"model":{"type":"BPE","vocab":{"a b":0}},"decoder":{"type":"ByteLevel"}}`), nil},
		{"hf ID twice", "hf", []byte(`{"model":{"type":"BPE","vocab":{"a":0,"b":0}},"decoder":{"type":"ByteLevel"}}`), nil},
		{"hf added twice", "hf", []byte(`{"model":{"type":"BPE","vocab":{"a":0}},"added_tokens":[{"id":1,"content":"x"},{"id":1,"content":"y"}],"decoder":{"type":"ByteLevel"}}`), nil},
		{"hf added without id", "hf", []byte(`{"model":{"type":"BPE","vocab":{"a":0}},"added_tokens":[{"content":"x"}],"decoder":{"type":"ByteLevel"}}`), nil},
		{"hf negative ID", "hf", []byte(`{"model":{"type":"BPE","vocab":{"a":-1}},"decoder":{"type":"ByteLevel"}}`), nil},
		{"hf gap", "hf", []byte(`{"model":{"type":"BPE","vocab":{"a":100000}},"decoder":{"type":"ByteLevel"}}`), nil},
		{"hf syntax", "hf", []byte(`{"model":{"type":"BPE","vocab":{"a":0}},,}`), nil},
	}
	for _, c := range bad {
		gv := goldenVocab{Format: c.format, File: b64(c.file), Specials: c.specials}
		_, err := loadVocab(&gv)
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		g.FileErrors = append(g.FileErrors, goldenVocabErr{goldenVocab: gv, Name: c.name, Err: *toGoldenErr(err)})
	}
	// Mutations of each kind of file.
	for _, m := range []struct {
		format   string
		file     []byte
		specials map[string]uint32
		n        int
	}{
		{"tiktoken", tiny, map[string]uint32{"<|endoftext|>": 9}, 400},
		{"llama2c", tok512[:240], nil, 150},
		{"hf", hfByteLevel(t, tinyV), nil, 150},
	} {
		for range m.n {
			c := mutate(rng, m.file)
			gv := goldenVocab{Format: m.format, File: b64(c), Specials: m.specials}
			gm := goldenMutation{Format: m.format, File: gv.File, Specials: m.specials}
			if v, err := loadVocab(&gv); err != nil {
				gm.Err = toGoldenErr(err)
			} else {
				h := v.Hash()
				gm.Hash, gm.Len = hex.EncodeToString(h[:]), v.Len()
			}
			g.Mutations = append(g.Mutations, gm)
		}
	}
	return g
}

// mutate returns b with 1 to 4 random edits: a byte set, the rest cut, a
// few bytes repeated, a few removed.
func mutate(rng *rand.Rand, b []byte) []byte {
	c := append([]byte(nil), b...)
	for range 1 + rng.IntN(4) {
		if len(c) == 0 {
			break
		}
		at := rng.IntN(len(c))
		switch rng.IntN(4) {
		case 0:
			c[at] = byte(rng.IntN(256))
		case 1:
			c = c[:at]
		case 2:
			c = append(c[:at:at], append(append([]byte(nil), c[at:min(len(c), at+1+rng.IntN(8))]...), c[at:]...)...)
		case 3:
			c = append(c[:at:at], c[min(len(c), at+1+rng.IntN(8)):]...)
		}
	}
	return c
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
