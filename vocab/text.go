package vocab

import (
	"encoding/binary"

	"github.com/layer0/anth/frame"
)

// Text gives a response's text from its frames through the call that gives
// TEXT frames' text, frame.Text's AppendFrame, and reads the token
// frames as text with a Vocabulary (SPEC.md §3.12–3.14):
//
//   - A VOCAB frame is checked against the Vocabulary (Vocabulary.Check): a
//     stream that names another is ErrUnknownVocabulary, before any of its
//     IDs is read. A VOCAB frame after a token frame, or a second one, is
//     ErrMalformed. A stream that names none is read with the Vocabulary,
//     the one agreed out of band (§3.1).
//   - Without VOCAB's text flag the IDs are the response's text (block 0's):
//     their text is appended as they come, a character split between
//     tokens once whole; a special token appends nothing (it is never
//     text), and an ID the Vocabulary lacks is ErrUnknownToken.
//   - With the text flag the text travels in TEXT and DELTA frames too, and
//     Text reads it there only: the IDs are not read as text, nor checked
//     (SPEC.md §3.14: each is read once). So it needs no Vocabulary then.
//
// Everything else is frame.Text's: TEXT frames, the DELTA kinds asked for
// with Include, BLOCK stops and DONE. Errors are final. A Text allocates
// nothing for token frames; it is not safe for concurrent use.
type Text struct {
	frame.Text
	d       Detokenizer
	named   bool // a VOCAB frame was read
	textToo bool // and it had the text flag
	tokens  bool // a token frame was read
	ids     frame.TokenDecoder
	scratch []uint32 // a PACKED_TOKEN frame's IDs
	err     error
}

// NewText returns a Text that reads token frames with v. v may be nil for
// a reader that only reads text: a token frame the Text must read then is
// ErrUnknownVocabulary.
func NewText(v *Vocabulary) *Text { return &Text{d: Detokenizer{v: v}} }

// AppendFrame appends the text f completes to dst and returns the extended
// slice, or dst and the error that stops the stream. Like
// Detokenizer.Next, it may write anywhere in dst's spare capacity, beyond
// the text it appends; that capacity must not hold f's payload.
func (t *Text) AppendFrame(dst []byte, f frame.Frame) ([]byte, error) {
	if t.err != nil {
		return dst, t.err
	}
	switch f.Type {
	case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24, frame.TypePackedToken:
		t.tokens = true
		if t.textToo {
			return dst, nil
		}
		if f.Type == frame.TypePackedToken {
			return t.appendPacked(dst, f)
		}
		// A stream flushed at every token has one ID a frame: its common
		// case costs no further call. A token frame of 2 or 3 bytes is
		// one ID, u16 (TOKEN, SHORT_TOKEN) or u24 (SHORT_TOKEN24).
		if p := f.Payload; uint(len(p)-2) <= 1 && t.d.v != nil {
			id := uint32(p[0])<<8 | uint32(p[1])
			if len(p) == 3 {
				id = id<<8 | uint32(p[2])
			}
			if out, ok := t.d.appendWhole(dst, id); ok {
				return out, nil
			}
		}
		return t.appendTokens(dst, f)
	case frame.TypeVocab:
		return dst, t.vocab(f)
	case frame.TypeDone:
		if !t.textToo && t.d.v != nil {
			dst = t.d.Flush(dst)
		}
	}
	return t.Text.AppendFrame(dst, f), nil
}

func (t *Text) appendTokens(dst []byte, f frame.Frame) ([]byte, error) {
	if t.d.v == nil {
		t.err = &Error{Offset: -1, Index: -1, Err: ErrUnknownVocabulary, Detail: "token frames to read as text, and no vocabulary"}
		return dst, t.err
	}
	p := f.Payload
	var err error
	// Each ID tries Next's common case inline first (appendWhole), so
	// most IDs cost no call; any other goes through Next.
	switch f.Type {
	case frame.TypeShortToken24:
		if len(p) == 3 { // as a Reader returns it; a hand-made frame of another length holds no ID
			dst, _, err = t.d.Next(dst, uint32(p[0])<<16|uint32(p[1])<<8|uint32(p[2]))
		}
	case frame.TypeToken, frame.TypeShortToken:
		for i := 0; i+1 < len(p) && err == nil; i += 2 {
			id := uint32(p[i])<<8 | uint32(p[i+1])
			if out, ok := t.d.appendWhole(dst, id); ok {
				dst = out
				continue
			}
			dst, _, err = t.d.Next(dst, id)
		}
	default:
		for i := 0; i+3 < len(p) && err == nil; i += 4 {
			id := binary.BigEndian.Uint32(p[i:])
			if out, ok := t.d.appendWhole(dst, id); ok {
				dst = out
				continue
			}
			dst, _, err = t.d.Next(dst, id)
		}
	}
	if err != nil {
		t.err = err
	}
	return dst, err
}

// appendPacked appends the text of a PACKED_TOKEN frame, whose IDs
// t.ids reads with the frames before it (SPEC.md §3.1.1).
func (t *Text) appendPacked(dst []byte, f frame.Frame) ([]byte, error) {
	if t.d.v == nil {
		return t.appendTokens(dst, f)
	}
	var err error
	if t.scratch, err = t.ids.Tokens(t.scratch[:0], f); err != nil {
		t.err = err
		return dst, err
	}
	for _, id := range t.scratch {
		if out, ok := t.d.appendWhole(dst, id); ok {
			dst = out
			continue
		}
		if dst, _, err = t.d.Next(dst, id); err != nil {
			t.err = err
			return dst, err
		}
	}
	return dst, nil
}

// vocab applies SPEC.md §3.13 to a VOCAB frame.
func (t *Text) vocab(f frame.Frame) error {
	if t.named || t.tokens {
		t.err = &Error{Offset: -1, Index: -1, Err: ErrMalformed, Detail: "a VOCAB frame after a token frame or another VOCAB frame"}
		return t.err
	}
	t.named = true
	fv, err := f.Vocab()
	if err != nil {
		t.err = err
		return err
	}
	if fv.Flags&frame.VocabText != 0 {
		t.textToo = true
		return nil
	}
	if t.d.v == nil {
		t.err = &Error{Offset: -1, Index: -1, Err: ErrUnknownVocabulary, Detail: "the stream names " + describe(string(fv.Name), fv.Hash) + ", and no vocabulary is held"}
		return t.err
	}
	if err := t.d.v.Check(fv); err != nil {
		t.err = err
	}
	return t.err
}

// Named reports whether the stream named its vocabulary, and TextToo
// whether it said its text travels in TEXT frames as well.
func (t *Text) Named() (named, textToo bool) { return t.named, t.textToo }

// Err returns the error that stopped the Text, or nil.
func (t *Text) Err() error { return t.err }

// Reset makes t ready for a new response read with the same Vocabulary,
// keeping the DELTA kinds asked for with Include. After a response's DONE
// it allocates nothing.
func (t *Text) Reset() {
	t.Text.FlushAll(nil) // forget the blocks a response cut short left
	*t = Text{Text: t.Text, d: Detokenizer{v: t.d.v}, scratch: t.scratch[:0]}
}
