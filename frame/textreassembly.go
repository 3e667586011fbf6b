package frame

import (
	"slices"

	anthutf8 "github.com/layer0/anth/utf8"
)

// Text reassembles the text of a response's content blocks into whole
// UTF-8 characters (SPEC.md §7): the bytes of TEXT frames and of thinking,
// tool-input and signature DELTA frames, per block and kind, holding a
// character split between frames until it is whole. The zero value is
// ready to use. A Text holds at most 3 bytes for each block and kind it has
// seen and not forgotten, and gives out at most 3 bytes (one U+FFFD) for
// each byte it is given.
//
// A client that shows a response's text gives it every frame (AppendFrame):
// by default only text blocks' text comes out, as the JS TextReassembler
// gives it; Include asks for thinking, signatures, tool input JSON or
// citations too. The Encoder, which must pass every kind on, calls Append
// with the kind itself.
//
// Token frames (TOKEN, TOKEN32, SHORT_TOKEN, SHORT_TOKEN24) give no text
// here: their IDs need a vocabulary, which this layer does not know. Package vocab's Text embeds a Text and
// reads them through the same AppendFrame (SPEC.md §3.12–3.14).
type Text struct {
	blocks  map[uint16]*[DeltaSignature + 1]anthutf8.Decoder
	spares  []*[DeltaSignature + 1]anthutf8.Decoder // forgotten blocks', reused by the next: a response after another allocates nothing
	include uint32                                  // bit k: AppendFrame gives DELTA frames of kind k

	// last is blocks[lastBlock], or nil: the block of the frame before,
	// which the next frame almost always continues. A uint16 key takes the
	// map's generic hash; with it here and in messages' toSSE for every
	// frame, ANTH → SSE took 1.57x the time it took at 0d2be57 (issue 26).
	last      *[DeltaSignature + 1]anthutf8.Decoder
	lastBlock uint16
}

// Include makes AppendFrame give the DELTA frames of kinds as well as text
// blocks' text.
func (t *Text) Include(kinds ...DeltaKind) {
	for _, k := range kinds {
		if k < 32 {
			t.include |= 1 << k
		}
	}
}

// AppendFrame appends the text frame f completes to dst: for a TEXT frame,
// or a DELTA frame of a kind asked for with Include, the whole characters
// its bytes complete; for a BLOCK frame that stops a block, what the block
// still held (a cut character as U+FFFD), after which the block is
// forgotten; for a DONE frame, what every block still held. Other frames
// append nothing.
func (t *Text) AppendFrame(dst []byte, f Frame) []byte {
	switch f.Type {
	case TypeText:
		if block, text, err := f.Text(); err == nil {
			return t.Append(dst, block, 0, text)
		}
	case TypeDelta:
		if block, kind, data, err := f.Delta(); err == nil && kind < 32 && t.include&(1<<kind) != 0 {
			return t.Append(dst, block, kind, data)
		}
	case TypeBlock:
		if block, op, err := f.Block(); err == nil && op == BlockStop {
			for kind := range DeltaSignature + 1 {
				dst = t.Flush(dst, block, kind)
			}
			t.Forget(block)
		}
	case TypeDone:
		dst = t.FlushAll(dst)
	}
	return dst
}

// FlushAll appends what every block still holds, in block order and kind
// order within a block, and forgets every block: the end of a response.
func (t *Text) FlushAll(dst []byte) []byte {
	blocks := make([]uint16, 0, len(t.blocks))
	for b := range t.blocks {
		blocks = append(blocks, b)
	}
	slices.Sort(blocks)
	for _, b := range blocks {
		for kind := range DeltaSignature + 1 {
			dst = t.Flush(dst, b, kind)
		}
		t.Forget(b)
	}
	return dst
}

// Append appends the characters data completes in block's text of the
// given kind (0 for TEXT frames) to dst and returns the extended slice.
func (t *Text) Append(dst []byte, block uint16, kind DeltaKind, data []byte) []byte {
	if kind > DeltaSignature {
		return append(dst, data...) // a citation is JSON, whole in its frame
	}
	return t.decoders(block)[kind].Append(dst, data)
}

// Pending reports whether block holds the start of a character in the text
// of kind.
func (t *Text) Pending(block uint16, kind DeltaKind) bool {
	d := t.blocks[block]
	return d != nil && kind <= DeltaSignature && d[kind].Pending() > 0
}

// Flush appends what block's text of kind still holds, a character cut off
// by the block's end, as one U+FFFD.
func (t *Text) Flush(dst []byte, block uint16, kind DeltaKind) []byte {
	if d := t.blocks[block]; d != nil && kind <= DeltaSignature {
		return d[kind].Flush(dst)
	}
	return dst
}

// Forget drops block's state, after its end.
func (t *Text) Forget(block uint16) {
	if d := t.blocks[block]; d != nil {
		*d = [DeltaSignature + 1]anthutf8.Decoder{}
		t.spares = append(t.spares, d)
		delete(t.blocks, block)
		if d == t.last {
			t.last = nil
		}
	}
}

// Reset forgets every block without appending what it held, for a new
// response; what Include asked for stays. It keeps the map and the blocks'
// state, as Forget does, so a Text reused for response after response
// allocates nothing for as many blocks at once as it held before.
func (t *Text) Reset() {
	for b := range t.blocks {
		t.Forget(b)
	}
}

// Blocks returns the number of blocks the Text holds state for.
func (t *Text) Blocks() int { return len(t.blocks) }

func (t *Text) decoders(block uint16) *[DeltaSignature + 1]anthutf8.Decoder {
	if t.last != nil && t.lastBlock == block {
		return t.last
	}
	d := t.blocks[block]
	if d == nil {
		if t.blocks == nil {
			t.blocks = map[uint16]*[DeltaSignature + 1]anthutf8.Decoder{}
		}
		if n := len(t.spares); n > 0 {
			d, t.spares = t.spares[n-1], t.spares[:n-1]
		} else {
			d = new([DeltaSignature + 1]anthutf8.Decoder)
		}
		t.blocks[block] = d
	}
	t.last, t.lastBlock = d, block
	return d
}
