package sse

import (
	"github.com/layer0/anth/frame"
	anthutf8 "github.com/layer0/anth/utf8"
)

// Text reassembles the text of a response's content blocks into whole
// UTF-8 characters (SPEC.md §7): the bytes of TEXT frames and of thinking,
// tool-input and signature DELTA frames, per block and kind, holding a
// character split between frames until it is whole. The Encoder writes its
// deltas through one; a client that shows text uses one the same way. The
// zero value is ready to use. A Text holds at most 3 bytes for each block
// and kind it has seen and not forgotten.
type Text struct {
	blocks map[uint16]*[frame.DeltaSignature + 1]anthutf8.Decoder
}

// Append appends the characters data completes in block's text of the
// given kind (0 for TEXT frames) to dst and returns the extended slice.
func (t *Text) Append(dst []byte, block uint16, kind frame.DeltaKind, data []byte) []byte {
	if kind > frame.DeltaSignature {
		return append(dst, data...) // a citation is JSON, whole in its frame
	}
	return t.decoders(block)[kind].Append(dst, data)
}

// Pending reports whether block holds the start of a character in the text
// of kind.
func (t *Text) Pending(block uint16, kind frame.DeltaKind) bool {
	d := t.blocks[block]
	return d != nil && kind <= frame.DeltaSignature && d[kind].Pending() > 0
}

// Flush appends what block's text of kind still holds, a character cut off
// by the block's end, as one U+FFFD.
func (t *Text) Flush(dst []byte, block uint16, kind frame.DeltaKind) []byte {
	if d := t.blocks[block]; d != nil && kind <= frame.DeltaSignature {
		return d[kind].Flush(dst)
	}
	return dst
}

// Forget drops block's state, after its end.
func (t *Text) Forget(block uint16) { delete(t.blocks, block) }

// Blocks returns the number of blocks the Text holds state for.
func (t *Text) Blocks() int { return len(t.blocks) }

func (t *Text) decoders(block uint16) *[frame.DeltaSignature + 1]anthutf8.Decoder {
	d := t.blocks[block]
	if d == nil {
		if t.blocks == nil {
			t.blocks = map[uint16]*[frame.DeltaSignature + 1]anthutf8.Decoder{}
		}
		d = new([frame.DeltaSignature + 1]anthutf8.Decoder)
		t.blocks[block] = d
	}
	return d
}
