package vocab

import (
	"bytes"
	"errors"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
)

// tokenFrames cuts ids into TOKEN/TOKEN32 frames, or PACKED_TOKEN frames
// of one stream, of random sizes.
func tokenFrames(t *rapid.T, ids []uint32) []frame.Frame {
	var fs []frame.Frame
	var packed *frame.TokenEncoder
	if rapid.Bool().Draw(t, "packed") {
		packed = new(frame.TokenEncoder)
	}
	for len(ids) > 0 {
		n := rapid.IntRange(1, len(ids)).Draw(t, "per frame")
		b := frame.AppendToken(nil, ids[:n]...)
		if packed != nil {
			b = packed.AppendPackedToken(nil, ids[:n]...)
		}
		f, _, err := frame.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
		ids = ids[n:]
	}
	return fs
}

func mustFrame(t interface {
	Helper()
	Fatalf(string, ...any)
}, b []byte) frame.Frame {
	t.Helper()
	f, n, err := frame.Parse(b)
	if err != nil || n != len(b) {
		t.Fatalf("Parse: %v", err)
	}
	return f
}

// TestTextTokensAsText: a response's IDs in token frames, however cut, and
// named by a VOCAB frame or not, give through Text.AppendFrame the text a
// Detokenizer gives for the IDs at once; and the same text sent as TEXT
// frames, one token's bytes a frame, gives the same through the same call.
func TestTextTokensAsText(t *testing.T) {
	for _, v := range []*Vocabulary{named(t, byteLevel(t), "test"), named(t, tok512(t), "tok512")} {
		enc := newEncoder(v)
		rapid.Check(t, func(rt *rapid.T) {
			var ids []uint32
			for _, s := range rapid.SliceOf(rapid.SampledFrom(fragments)).Draw(rt, "text") {
				ids = enc.encode(ids, s)
			}
			d := NewDetokenizer(v)
			want, _, err := d.AppendText(nil, ids)
			if err != nil {
				rt.Fatal(err)
			}
			want = d.Flush(want)

			var fs []frame.Frame
			if rapid.Bool().Draw(rt, "named") {
				fs = append(fs, mustFrame(rt, frame.AppendVocab(nil, v.Vocab(frame.VocabFlags(rapid.IntRange(0, 1).Draw(rt, "digest"))<<1))))
			}
			fs = append(fs, tokenFrames(rt, ids)...)
			fs = append(fs, mustFrame(rt, frame.AppendDone(nil, frame.StopEndTurn, "")))
			tx := NewText(v)
			var got []byte
			for _, f := range fs {
				if got, err = tx.AppendFrame(got, f); err != nil {
					rt.Fatal(err)
				}
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				rt.Fatalf("token frames (-Detokenizer +Text):\n%s", diff)
			}

			if v.kind != ByteLevel {
				return // a SentencePiece token's text depends on the one before (BOS)
			}
			var ft frame.Text
			var viaText []byte
			for _, id := range ids {
				b, _ := v.Bytes(id)
				viaText = ft.AppendFrame(viaText, mustFrame(rt, frame.AppendText(nil, 0, b)))
			}
			viaText = ft.AppendFrame(viaText, mustFrame(rt, frame.AppendDone(nil, 0, "")))
			if diff := cmp.Diff(string(viaText), string(got)); diff != "" {
				rt.Fatalf("TEXT frames (-frame.Text +Text):\n%s", diff)
			}
		})
	}
}

// TestTextVocabChecked: SPEC.md §3.13 — a stream naming another vocabulary
// (hash, kind, special table or its digest) stops before any ID is read; a
// VOCAB frame after a token frame or a second one is malformed; with the
// text flag the IDs are not read as text (nor checked), TEXT frames are.
func TestTextVocabChecked(t *testing.T) {
	v := named(t, byteLevel(t), "test")
	other := named(t, tok512(t), "tok512")
	good := v.Vocab(0)
	otherSpecials := good
	otherSpecials.Specials = append([]byte{}, good.Specials...)
	otherSpecials.Specials[len(otherSpecials.Specials)-1] ^= 1
	otherDigest := v.Vocab(frame.VocabDigest)
	otherDigest.Digest[0] ^= 1
	otherKind := good
	otherKind.Kind = 1
	hi := frame.AppendToken(nil, 'H', 'i')
	for _, c := range []struct {
		name   string
		frames [][]byte
		want   string
		kind   error
	}{
		{"named", [][]byte{frame.AppendVocab(nil, good), hi}, "Hi", nil},
		{"digest", [][]byte{frame.AppendVocab(nil, v.Vocab(frame.VocabDigest)), hi}, "Hi", nil},
		{"unnamed", [][]byte{hi}, "Hi", nil},
		{"other hash", [][]byte{frame.AppendVocab(nil, other.Vocab(0)), hi}, "", ErrUnknownVocabulary},
		{"other specials", [][]byte{frame.AppendVocab(nil, otherSpecials), hi}, "", ErrUnknownVocabulary},
		{"other digest", [][]byte{frame.AppendVocab(nil, otherDigest), hi}, "", ErrUnknownVocabulary},
		{"other kind", [][]byte{frame.AppendVocab(nil, otherKind), hi}, "", ErrUnknownVocabulary},
		{"after tokens", [][]byte{hi, frame.AppendVocab(nil, good)}, "Hi", ErrMalformed},
		{"twice", [][]byte{frame.AppendVocab(nil, good), frame.AppendVocab(nil, good)}, "", ErrMalformed},
		{"text too", [][]byte{frame.AppendVocab(nil, other.Vocab(frame.VocabText)), hi, frame.AppendText(nil, 0, []byte("Hi"))}, "Hi", nil},
		{"unknown ID", [][]byte{frame.AppendVocab(nil, good), frame.AppendToken(nil, 'H', 70000)}, "H", ErrUnknownToken},
	} {
		tx := NewText(v)
		var got []byte
		var err error
		for _, b := range c.frames {
			if got, err = tx.AppendFrame(got, mustFrame(t, b)); err != nil {
				break
			}
		}
		if string(got) != c.want || (c.kind == nil) != (err == nil) || (c.kind != nil && !errors.Is(err, c.kind)) {
			t.Errorf("%s: %q, %v; want %q, %v", c.name, got, err, c.want, c.kind)
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Errorf("%s: %v is not an *Error", c.name, err)
		}
		if err != nil {
			if _, again := tx.AppendFrame(nil, mustFrame(t, hi)); again != err {
				t.Errorf("%s: error not final: %v", c.name, again)
			}
		}
	}
}

// TestTextNoVocabulary: a Text made without a Vocabulary reads a stream
// whose text travels in TEXT frames, and refuses token frames it would
// have to read as text.
func TestTextNoVocabulary(t *testing.T) {
	v := byteLevel(t)
	tx := NewText(nil)
	got, err := tx.AppendFrame(nil, mustFrame(t, frame.AppendVocab(nil, v.Vocab(frame.VocabText))))
	got, err2 := tx.AppendFrame(got, mustFrame(t, frame.AppendToken(nil, 1)))
	got, err3 := tx.AppendFrame(got, mustFrame(t, frame.AppendText(nil, 0, []byte("ok"))))
	if err != nil || err2 != nil || err3 != nil || string(got) != "ok" {
		t.Fatalf("%q, %v %v %v", got, err, err2, err3)
	}
	_, err = NewText(nil).AppendFrame(nil, mustFrame(t, frame.AppendToken(nil, 1)))
	if !errors.Is(err, ErrUnknownVocabulary) {
		t.Fatalf("token frame with no vocabulary: %v", err)
	}
}

// TestTextAllocs: reading a token frame as text allocates nothing, nor does
// a whole response (VOCAB, tokens, TEXT, DONE) read again after Reset.
func TestTextAllocs(t *testing.T) {
	v := byteLevel(t)
	tx := NewText(v)
	f := mustFrame(t, frame.AppendToken(nil, 'H', 'i', ' '))
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		buf, _ = tx.AppendFrame(buf[:0], f)
	}); n != 0 {
		t.Errorf("%v allocs per token frame, want 0", n)
	}
	response := []frame.Frame{mustFrame(t, frame.AppendVocab(nil, v.Vocab(0))), f,
		mustFrame(t, frame.AppendText(nil, 1, []byte("\xe4\xbd"))), mustFrame(t, frame.AppendDone(nil, 0, ""))}
	tx.Reset()
	if n := testing.AllocsPerRun(100, func() {
		tx.Reset()
		buf = buf[:0]
		for _, f := range response {
			var err error
			if buf, err = tx.AppendFrame(buf, f); err != nil {
				t.Fatal(err)
			}
		}
	}); n != 0 {
		t.Errorf("%v allocs per response after Reset, want 0", n)
	}
	if string(buf) != "Hi \uFFFD" {
		t.Errorf("response gives %q", buf)
	}
}

// TestTextOutputBound: SPEC.md §3.12's bound, with the worst input for
// cl100k_base — full TOKEN frames of its longest token (128 bytes, ID
// 58040) — gives 64 bytes of text per byte of payload, and no more; a
// PACKED_TOKEN frame of it, 146.3.
func TestTextOutputBound(t *testing.T) {
	v := loadTestTiktoken(t, "cl100k_base")
	longest := 0
	for id := range v.Len() {
		if b, ok := v.Bytes(uint32(id)); ok {
			longest = max(longest, len(b))
		}
	}
	if b, _ := v.Bytes(58040); longest != 128 || len(b) != 128 {
		t.Fatalf("longest token %d bytes, ID 58040 %d; want 128", longest, len(b))
	}
	ids := make([]uint32, 32767) // a full TOKEN frame
	for i := range ids {
		ids[i] = 58040
	}
	f := mustFrame(t, frame.AppendToken(nil, ids...))
	tx := NewText(v)
	out, err := tx.AppendFrame(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	if ratio := float64(len(out)) / float64(len(f.Payload)); ratio != 64 {
		t.Errorf("%d bytes of text from %d of payload: %.2f a byte, want 64", len(out), len(f.Payload), ratio)
	}
	// A PACKED_TOKEN frame names a recent ID in 7 bits (SPEC.md §3.1.1):
	// 128 × 8 / 7 = 146.3 bytes of text per byte, and no more.
	// The densest: ID 58040 new (order 16: 18 bits), then place 0 in every
	// 7 bits the payload has left.
	m := (8*(frame.MaxPayload-1) - 18) / 7
	pad := 8*(frame.MaxPayload-1) - 18 - 7*m
	var bits []byte
	put := func(v uint64, n int) {
		for i := n - 1; i >= 0; i-- {
			bits = append(bits, byte(v>>i&1))
		}
	}
	put(0b01, 2)
	put(58040, 16)
	for range m {
		put(0b1000000, 7)
	}
	p := []byte{16<<3 | byte(pad)}
	for i := 0; i < len(bits); i += 8 {
		var c byte
		for j := range 8 {
			if i+j < len(bits) {
				c |= bits[i+j] << (7 - j)
			}
		}
		p = append(p, c)
	}
	f = frame.Frame{Type: frame.TypePackedToken, Payload: p}
	if _, _, err := frame.Parse(f.Append(nil)); err != nil || len(p) != frame.MaxPayload {
		t.Fatalf("the densest PACKED_TOKEN frame (%d bytes): %v", len(p), err)
	}
	out, err = NewText(v).AppendFrame(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	if ratio := float64(len(out)) / float64(len(f.Payload)); ratio > 128*8/7.0 || ratio < 146 {
		t.Errorf("PACKED_TOKEN: %d bytes of text from %d of payload: %.2f a byte, want at most 146.3", len(out), len(f.Payload), ratio)
	}
}

var vocabFrameRow = regexp.MustCompile("^\\| `(vocab|vocab-digest)` \\| `([0-9A-F ]*)` \\|$")

// TestVocabSpecVectors: SPEC.md §3.13's VOCAB vectors are what
// Vocabulary.Vocab makes for §3.12's vocabulary of "a" and "b" with
// <|endoftext|> as ID 2, named "ab": its hash, special table and digest.
func TestVocabSpecVectors(t *testing.T) {
	v, err := ParseTiktoken([]byte("YQ== 0\nYg== 1\n"), map[string]uint32{"<|endoftext|>": 2})
	if err != nil {
		t.Fatal(err)
	}
	v = named(t, v, "ab")
	flags := map[string]frame.VocabFlags{"vocab": 0, "vocab-digest": frame.VocabText | frame.VocabDigest}
	rows := testdata.SpecRows(t, "3.13", vocabFrameRow)
	if len(rows) != len(flags) {
		t.Fatalf("found %d of the %d VOCAB vectors", len(rows), len(flags))
	}
	for _, m := range rows {
		if got := frame.AppendVocab(nil, v.Vocab(flags[m[1]])); !bytes.Equal(got, testdata.Hex(t, m[2])) {
			t.Errorf("%s: Vocab gives\n% X\nSPEC.md says\n%s", m[1], got, m[2])
		}
		if err := v.Check(mustVocab(t, testdata.Hex(t, m[2]))); err != nil {
			t.Errorf("%s: Check: %v", m[1], err)
		}
	}
}

func mustVocab(t *testing.T, b []byte) frame.Vocab {
	fv, err := mustFrame(t, b).Vocab()
	if err != nil {
		t.Fatal(err)
	}
	return fv
}
