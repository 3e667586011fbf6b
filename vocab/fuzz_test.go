package vocab

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"
	stdutf8 "unicode/utf8"

	"github.com/layer0/anth/frame"
)

// checkErr holds a loader's error to its contract: an *Error of a known
// kind at an offset inside the input (or -1).
func checkErr(t *testing.T, err error, n int) {
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err %v is not an *Error", err)
	}
	if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v of no known kind", err)
	}
	if e.Offset < -1 || e.Offset > int64(n) || e.Index != -1 {
		t.Fatalf("err %v: offset %d, index %d, input %d bytes", err, e.Offset, e.Index, n)
	}
}

// FuzzParseTiktoken: no panic; an error is an *Error inside the input;
// a vocabulary is bounded by the input and its rendering reads back as
// the same vocabulary.
func FuzzParseTiktoken(f *testing.F) {
	if b, err := os.ReadFile("testdata/tiny.tiktoken"); err == nil {
		f.Add(b, "<|endoftext|>", uint32(9))
	}
	f.Add([]byte("YQ== 0\n\nYg== 2"), "<|x|>", uint32(1))
	f.Add([]byte("YQ== 4194303\n"), "", uint32(0))
	f.Fuzz(func(t *testing.T, data []byte, name string, id uint32) {
		var specials map[string]uint32
		if name != "" {
			specials = map[string]uint32{name: id}
		}
		v, err := ParseTiktoken(data, specials)
		if err != nil {
			checkErr(t, err, len(data))
			return
		}
		if v.Len() > len(data)+1+maxGap || len(v.data) > len(data)+len(name) {
			t.Fatalf("%d bytes of input made %d IDs, %d bytes", len(data), v.Len(), len(v.data))
		}
		w, err := ParseTiktoken(v.AppendTiktoken(nil), specials)
		if err != nil {
			t.Fatalf("rendering does not parse: %v", err)
		}
		if w.Hash() != v.Hash() || w.Len() != v.Len() {
			t.Fatalf("rendering reads back as another vocabulary")
		}
		for id := range v.Len() {
			a, aok := v.Bytes(uint32(id))
			b, bok := w.Bytes(uint32(id))
			if aok != bok || string(a) != string(b) {
				t.Fatalf("ID %d: %q, %v after the round trip, want %q, %v", id, b, bok, a, aok)
			}
		}
	})
}

// FuzzParseLlama2c: no panic; an error is an *Error inside the input; a
// vocabulary is bounded by the input and every ID decodes.
func FuzzParseLlama2c(f *testing.F) {
	if b, err := os.ReadFile("testdata/tok512.bin"); err == nil {
		f.Add(b)
		f.Add(b[:len(b)-3])
	}
	f.Add([]byte{0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseLlama2c(data)
		if err != nil {
			checkErr(t, err, len(data))
			return
		}
		if v.Len() > (len(data)-4)/8 || len(v.data) > len(data) {
			t.Fatalf("%d bytes of input made %d IDs, %d bytes", len(data), v.Len(), len(v.data))
		}
		d := NewDetokenizer(v)
		var out []byte
		for id := range v.Len() {
			if out, _, err = d.Next(out[:0], uint32(id)); err != nil {
				t.Fatalf("ID %d: %v", id, err)
			}
		}
		if _, _, err := d.Next(nil, uint32(v.Len())); !errors.Is(err, ErrUnknownToken) {
			t.Fatalf("ID %d past the end: %v", v.Len(), err)
		}
	})
}

// FuzzDetokenizer: any IDs, split in two anywhere, give the text and the
// error they give in one piece.
func FuzzDetokenizer(f *testing.F) {
	v := byteLevel(f)
	f.Add([]byte{0, 0xE4, 0, 0xBD, 0, 0xA0, 1, 0x20}, uint8(3))
	f.Fuzz(func(t *testing.T, raw []byte, cut uint8) {
		ids := make([]uint32, len(raw)/2)
		for i := range ids {
			ids[i] = uint32(binary.BigEndian.Uint16(raw[2*i:]))
		}
		run := func(chunks ...[]uint32) (string, error) {
			d := NewDetokenizer(v)
			var out []byte
			for _, c := range chunks {
				for len(c) > 0 {
					var n int
					var err error
					out, n, err = d.AppendText(out, c)
					if err != nil {
						return string(out), err
					}
					c = c[n:]
				}
			}
			return string(d.Flush(out)), nil
		}
		k := int(cut) % (len(ids) + 1)
		a, aerr := run(ids)
		b, berr := run(ids[:k], ids[k:])
		if a != b || (aerr == nil) != (berr == nil) || aerr != nil && aerr.Error() != berr.Error() {
			t.Fatalf("one piece: %q, %v; cut at %d: %q, %v", a, aerr, k, b, berr)
		}
	})
}

// FuzzParseHF: no panic; an error is an *Error inside the input; a
// vocabulary is bounded by the input.
func FuzzParseHF(f *testing.F) {
	// Seeds are small: the fuzzer minimizes each new find, and on a seed of
	// the test vocabulary's 5 KB that takes the whole run.
	f.Add([]byte(`{"added_tokens":[{"id":2,"content":"<|endoftext|>","special":true}],"model":{"type":"BPE","vocab":{"a":0,"Ġ":1}},"decoder":{"type":"ByteLevel"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseHF(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < -1 || e.Offset > int64(len(data)) {
				t.Fatalf("err %v", err)
			}
			return
		}
		if v.Len() > len(data)+maxGap || len(v.data) > len(data) {
			t.Fatalf("%d bytes of input made %d IDs, %d bytes", len(data), v.Len(), len(v.data))
		}
	})
}

// FuzzText: any stream read frame by frame through Text, with tok512 held:
// no panic; what comes out is valid UTF-8 and within SPEC.md §3.12's bound
// (the longest token a byte of payload, plus U+FFFD); an error is an
// *Error or the frame layer's, and final.
func FuzzText(f *testing.F) {
	v, err := ParseLlama2c(readFile(f, "tok512.bin"))
	if err != nil {
		f.Fatal(err)
	}
	named, _ := v.Named("tok512")
	f.Add(frame.AppendDone(frame.AppendToken(frame.AppendVocab(frame.AppendMagic(nil), named.Vocab(0)), 1, 300, 3, 200), 0, ""))
	f.Add(frame.AppendDone(frame.AppendText(frame.AppendToken(frame.AppendVocab(frame.AppendMagic(nil), named.Vocab(frame.VocabText|frame.VocabDigest)), 70000), 0, []byte("x")), 0, ""))
	f.Add(frame.AppendVocab(frame.AppendToken(frame.AppendMagic(nil), 5), named.Vocab(0)))
	longest := 0
	for id := range v.Len() {
		if b, ok := v.Bytes(uint32(id)); ok {
			longest = max(longest, len(b))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := frame.NewReader(bytes.NewReader(in), frame.ReaderOptions{RawFrames: true})
		tx := NewText(named)
		var out []byte
		var terr error
		bound := 0 // SPEC.md §3.12 and §7: the longest token an ID, one U+FFFD a byte of text or a frame's flush
		for fr, err := range r.All() {
			if err != nil {
				break
			}
			bound += longest*fr.TokenCount() + 3*len(fr.Payload) + 3
			out, terr = tx.AppendFrame(out, fr)
			if len(out) > bound {
				t.Fatalf("%d bytes of text, over the bound %d, after a %v frame", len(out), bound, fr.Type)
			}
			if terr != nil {
				var e *Error
				var fe *frame.Error
				if !errors.As(terr, &e) && !errors.As(terr, &fe) {
					t.Fatalf("error %v (%T), want *Error", terr, terr)
				}
				if _, again := tx.AppendFrame(nil, fr); again != terr {
					t.Fatalf("error not final: %v, then %v", terr, again)
				}
				break
			}
		}
		if !stdutf8.Valid(out) {
			t.Fatalf("text is not UTF-8: %q", out)
		}
	})
}
