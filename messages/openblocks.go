package messages

import "math/bits"

// openBlocks is the set of content blocks open in an ANTH → SSE bridge,
// asked about once a frame. Blocks 0–63, which every response the API
// sends numbers its blocks within, are bits of one word, so the question
// is a shift and a test; a higher index goes to a map. A map for all of
// them cost the bridge a hash lookup a frame: 1.06x 0d2be57's
// `SSEBridge/anth-to-sse` (issue 26).
type openBlocks struct {
	low  uint64              // bit i: block i open, for i < 64
	high map[uint16]struct{} // the open blocks from 64 up
}

func (o *openBlocks) has(block uint16) bool {
	if block < 64 {
		return o.low&(1<<block) != 0
	}
	_, ok := o.high[block]
	return ok
}

func (o *openBlocks) add(block uint16) {
	if block < 64 {
		o.low |= 1 << block
		return
	}
	if o.high == nil {
		o.high = map[uint16]struct{}{}
	}
	o.high[block] = struct{}{}
}

func (o *openBlocks) remove(block uint16) {
	if block < 64 {
		o.low &^= 1 << block
		return
	}
	delete(o.high, block)
}

// len returns how many blocks are open.
func (o *openBlocks) len() int { return bits.OnesCount64(o.low) + len(o.high) }

// lowest returns the open block of lowest index (blocks stop in order);
// there must be one.
func (o *openBlocks) lowest() uint16 {
	if o.low != 0 {
		return uint16(bits.TrailingZeros64(o.low))
	}
	lowest := -1
	for i := range o.high {
		if lowest < 0 || int(i) < lowest {
			lowest = int(i)
		}
	}
	return uint16(lowest)
}
