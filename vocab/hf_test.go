package vocab

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// gpt2Unicode is GPT-2's bytes_to_unicode written out as its Python source
// states it, independent of gpt2Bytes.
func gpt2Unicode() map[byte]rune {
	var bs []int
	for b := '!'; b <= '~'; b++ {
		bs = append(bs, int(b))
	}
	for b := 0xA1; b <= 0xAC; b++ {
		bs = append(bs, b)
	}
	for b := 0xAE; b <= 0xFF; b++ {
		bs = append(bs, b)
	}
	cs := append([]int(nil), bs...)
	in := map[int]bool{}
	for _, b := range bs {
		in[b] = true
	}
	n := 0
	for b := range 256 {
		if !in[b] {
			bs = append(bs, b)
			cs = append(cs, 256+n)
			n++
		}
	}
	m := map[byte]rune{}
	for i, b := range bs {
		m[byte(b)] = rune(cs[i])
	}
	return m
}

// hfJSON renders v's tokens as a byte-level tokenizer.json, specials as
// added tokens, in the shape Hugging Face writes (with merges and other
// members the loader skips).
func hfJSON(t testing.TB, v *Vocabulary) []byte {
	t.Helper()
	u := gpt2Unicode()
	vocab := map[string]uint32{}
	type added struct {
		ID      uint32 `json:"id"`
		Content string `json:"content"`
		Single  bool   `json:"single_word"`
		Special bool   `json:"special"`
	}
	var adds []added
	for id := range v.Len() {
		if b, ok := v.Bytes(uint32(id)); ok {
			var s strings.Builder
			for _, c := range b {
				s.WriteRune(u[c])
			}
			vocab[s.String()] = uint32(id)
		} else if name, ok := v.Special(uint32(id)); ok {
			adds = append(adds, added{ID: uint32(id), Content: name, Special: true})
		}
	}
	doc := map[string]any{
		"version":       "1.0",
		"truncation":    nil,
		"added_tokens":  adds,
		"normalizer":    nil,
		"pre_tokenizer": map[string]any{"type": "ByteLevel", "add_prefix_space": false},
		"decoder":       map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true},
		"model":         map[string]any{"type": "BPE", "dropout": nil, "vocab": vocab, "merges": []string{"Ġ t", "t h"}},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The same vocabulary as a tokenizer.json and as a .tiktoken file has the
// same hash, IDs and specials, and decodes any IDs to the same text.
func TestParseHF(t *testing.T) {
	want := byteLevel(t)
	v, err := ParseHF(hfJSON(t, want))
	if err != nil {
		t.Fatal(err)
	}
	if v.Hash() != want.Hash() || v.Len() != want.Len() || v.Kind() != ByteLevel {
		t.Fatalf("hash %x, Len %d; want %x, %d", v.Hash(), v.Len(), want.Hash(), want.Len())
	}
	for id := range v.Len() {
		a, aok := v.Bytes(uint32(id))
		b, bok := want.Bytes(uint32(id))
		an, _ := v.Special(uint32(id))
		bn, _ := want.Special(uint32(id))
		if aok != bok || string(a) != string(b) || an != bn {
			t.Errorf("ID %d: %q %v %q, want %q %v %q", id, a, aok, an, b, bok, bn)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		ids := rapid.SliceOf(rapid.Uint32Range(0, uint32(v.Len()-1))).Draw(t, "ids")
		a, an, aerr := NewDetokenizer(v).AppendText(nil, ids)
		b, bn, berr := NewDetokenizer(want).AppendText(nil, ids)
		if string(a) != string(b) || an != bn || (aerr == nil) != (berr == nil) {
			t.Fatalf("%q %d %v, want %q %d %v", a, an, aerr, b, bn, berr)
		}
	})
}

func TestParseHFAdded(t *testing.T) {
	doc := `{"added_tokens":[{"id":2,"content":"<|endoftext|>","special":true},{"id":3,"content":"<think>","special":false}],
"model":{"type":"BPE","vocab":{"a":0,"Ġ":1,"<|endoftext|>":2}},"decoder":{"type":"ByteLevel"}}`
	v, err := ParseHF([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := v.Bytes(1); string(b) != " " {
		t.Errorf("Ġ is %q, want a space", b)
	}
	if name, ok := v.Special(2); !ok || name != "<|endoftext|>" {
		t.Errorf("Special(2) = %q, %v", name, ok)
	}
	if b, ok := v.Bytes(3); !ok || string(b) != "<think>" {
		t.Errorf("Bytes(3) = %q, %v; a non-special added token is text", b, ok)
	}
}

func TestParseHFErrors(t *testing.T) {
	const dec = `"decoder":{"type":"ByteLevel"}`
	for _, c := range []struct {
		name, in string
		kind     error
		off      int64
	}{
		{"not JSON", `{"model":}`, ErrMalformed, 9},
		{"cut", `{"model":{"type":"BPE","vocab":{"a":0`, ErrTruncated, 37},
		{"wordpiece", `{"model":{"type":"BPE","vocab":{"a":0}},"decoder":{"type":"WordPiece"}}`, ErrUnsupported, -1},
		{"sequence", `{"model":{"type":"BPE","vocab":{"a":0}},"decoder":{"type":"Sequence","decoders":[{"type":"Replace"},{"type":"ByteLevel"}]}}`, ErrUnsupported, -1},
		{"unigram", `{"model":{"type":"Unigram","vocab":[]},` + dec + `}`, ErrUnsupported, 36},
		{"not byte-level", `{"model":{"type":"BPE","vocab":{"a":0,"\n":1}},` + dec + `}`, ErrMalformed, 42},
		{"bad ID", `{"model":{"type":"BPE","vocab":{"a":-1}},` + dec + `}`, ErrMalformed, 38},
		{"huge ID", `{"model":{"type":"BPE","vocab":{"a":4294967296}},` + dec + `}`, ErrTooLarge, 46},
		{"sparse", `{"model":{"type":"BPE","vocab":{"a":100000}},` + dec + `}`, ErrTooLarge, -1},
		{"twice", `{"model":{"type":"BPE","vocab":{"a":0,"b":0}},` + dec + `}`, ErrMalformed, 41},
		{"added twice", `{"added_tokens":[{"id":1,"content":"x"},{"id":1,"content":"y"}],"model":{"type":"BPE","vocab":{"a":0}},` + dec + `}`, ErrMalformed, 39},
		{"added without id", `{"added_tokens":[{"content":"x"}],"model":{"type":"BPE","vocab":{}},` + dec + `}`, ErrMalformed, 17},
		{"trailing", `{"model":{"type":"BPE","vocab":{}},` + dec + `} x`, ErrMalformed, 67},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseHF([]byte(c.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if !errors.Is(err, c.kind) || e.Offset != c.off {
				t.Errorf("err = %v (offset %d), want kind %v at offset %d", err, e.Offset, c.kind, c.off)
			}
		})
	}
}

// llama2JSON renders a SentencePiece vocabulary as Llama 2's tokenizer.json
// does: ▁ for a space, the specials as added tokens, the decoder sequence.
func llama2JSON(t testing.TB, v *Vocabulary) []byte {
	t.Helper()
	vocab := map[string]uint32{}
	var adds []map[string]any
	for id := range v.Len() {
		if name, ok := v.Special(uint32(id)); ok {
			vocab[name] = uint32(id)
			adds = append(adds, map[string]any{"id": id, "content": name, "special": true, "normalized": false})
			continue
		}
		b, _ := v.Bytes(uint32(id))
		if v.tab[id].flag == bytePc {
			vocab[fmt.Sprintf("<0x%02X>", b[0])] = uint32(id)
			continue
		}
		vocab[strings.ReplaceAll(string(b), " ", "\u2581")] = uint32(id)
	}
	doc := map[string]any{
		"added_tokens": adds,
		"decoder": map[string]any{"type": "Sequence", "decoders": []any{
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": "\u2581"}, "content": " "},
			map[string]any{"type": "ByteFallback"},
			map[string]any{"type": "Fuse"},
			map[string]any{"type": "Strip", "content": " ", "start": 1, "stop": 0},
		}},
		"model": map[string]any{"type": "BPE", "byte_fallback": true, "fuse_unk": true, "vocab": vocab, "merges": []string{"\u2581 t"}},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tok512.bin and the same tokens as Llama 2's tokenizer.json are one
// vocabulary: same hash, IDs, specials, and text for any IDs.
func TestParseHFSentencePiece(t *testing.T) {
	want := tok512(t)
	v, err := ParseHF(llama2JSON(t, want))
	if err != nil {
		t.Fatal(err)
	}
	if v.Hash() != want.Hash() || v.Len() != want.Len() || v.Kind() != SentencePiece {
		t.Fatalf("hash %x, Len %d, %v; want %x, %d", v.Hash(), v.Len(), v.Kind(), want.Hash(), want.Len())
	}
	rapid.Check(t, func(t *rapid.T) {
		ids := rapid.SliceOf(rapid.Uint32Range(0, uint32(v.Len()-1))).Draw(t, "ids")
		da, db := NewDetokenizer(v), NewDetokenizer(want)
		var a, b []byte
		for _, id := range ids {
			var sa, sb bool
			a, sa, _ = da.Next(a, id)
			b, sb, _ = db.Next(b, id)
			if sa != sb {
				t.Fatalf("ID %d special %v, want %v", id, sa, sb)
			}
		}
		if string(da.Flush(a)) != string(db.Flush(b)) {
			t.Fatalf("%q, want %q", a, b)
		}
	})
}
