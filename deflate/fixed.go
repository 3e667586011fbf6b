package deflate

// This file writes DEFLATE (RFC 1951) blocks of fixed Huffman codes
// (§3.2.6), the block type that suits small pieces of data: it needs no
// code table, so a few bytes cost a few bytes. Both of the package's
// encoders share it: EVENT blocks against a dictionary (AppendBlock) and
// the anth-deflate stream (Writer). What to match is theirs to decide;
// this file only spells symbols.

import (
	"encoding/binary"
	"math/bits"
)

// DEFLATE's limits (RFC 1951 §3.2.5).
const (
	minLength = 3     // the shortest match a length code can say
	maxMatch  = 258   // the longest
	maxDist   = 32768 // the farthest back a match may reach
)

const endOfBlock = 256

// bitWriter packs DEFLATE's bits into bytes, least significant bit first, and
// appends the whole bytes to B, 4 at a time: it holds up to 31 bits until
// Align. The zero value writes after nothing.
type bitWriter struct {
	B     []byte
	acc   uint64
	nbits uint // bits held in acc, under 32 between calls
}

// Bits writes the n low bits of v, n at most 32; v has no bits above them.
func (w *bitWriter) Bits(v uint64, n uint) {
	w.acc |= v << w.nbits
	w.nbits += n
	if w.nbits >= 32 {
		w.B = binary.LittleEndian.AppendUint32(w.B, uint32(w.acc))
		w.acc >>= 32
		w.nbits -= 32
	}
}

// Len returns how many whole bytes w has written, those it holds too.
func (w *bitWriter) Len() int { return len(w.B) + int(w.nbits/8) }

// StartBlock writes the header of a block of fixed codes: BFINAL, then
// BTYPE 01.
func (w *bitWriter) StartBlock(final bool) {
	v := uint64(1 << 1)
	if final {
		v |= 1
	}
	w.Bits(v, 3)
}

// EndBlock writes the end-of-block symbol.
func (w *bitWriter) EndBlock() { w.symbol(endOfBlock) }

// SyncFlush writes what zlib's Z_SYNC_FLUSH writes after the blocks so far:
// the header of an empty stored block (BFINAL 0, BTYPE 00) and the zero bits
// that reach the next byte. It leaves out the block's LEN and NLEN (00 00
// FF FF), which are the same every time: whoever inflates puts them back.
// (Writer.Flush leaves out the zero bytes it ends with too, SPEC.md §11.2.)
func (w *bitWriter) SyncFlush() {
	w.Bits(0, 3)
	w.Align()
}

// Align writes the bits held and zero bits up to the next byte boundary.
func (w *bitWriter) Align() {
	for ; w.nbits > 0; w.nbits -= min(w.nbits, 8) {
		w.B = append(w.B, byte(w.acc))
		w.acc >>= 8
	}
}

// Literal writes a literal byte.
func (w *bitWriter) Literal(c byte) { w.symbol(int(c)) }

// symbol writes a literal/length symbol with its fixed code (§3.2.6), from
// the table of them bit-reversed that writeTokens reads too.
func (w *bitWriter) symbol(sym int) { w.Bits(uint64(fixedLitCode[sym]), uint(fixedLitLen[sym])) }

// The length and distance codes of RFC 1951 §3.2.5: the base of each code
// and its count of extra bits.
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// Match writes a match of length minLength to maxMatch at distance 1 to
// maxDist.
func (w *bitWriter) Match(length, dist int) {
	// At most 8+5 bits for the length and 5+13 for the distance: one
	// call of Bits.
	l, d := lengthCode(length), distCode(dist)
	s := 257 + l
	v := uint64(fixedLitCode[s]) | uint64(length-int(lengthBase[l]))<<fixedLitLen[s]
	n := uint(fixedLitLen[s]) + uint(lengthExtra[l])
	v |= (uint64(fixedDistCode[d]) | uint64(dist-int(distBase[d]))<<5) << n
	w.Bits(v, n+5+uint(distExtra[d]))
}

// matchBits returns how many bits Match writes for a match: a deflater
// weighs it against the literals it replaces.
func matchBits(length, dist int) int {
	l := lengthCode(length)
	n := 8
	if 257+l < 280 {
		n = 7
	}
	return n + int(lengthExtra[l]) + 5 + int(distExtra[distCode(dist)])
}

// literalBits returns how many bits Literal writes for c.
func literalBits(c byte) int {
	if c < 144 {
		return 8
	}
	return 9
}

// lengthCode returns the index in lengthBase of the code of a length of
// 3–258: its bases double every four codes from 11 on.
func lengthCode(length int) int {
	switch {
	case length <= 10:
		return length - 3
	case length == 258:
		return 28
	}
	n := bits.Len(uint(length - 3))
	return 4*(n-2) + (length-3)>>(n-3)&3
}

// distCode returns the code of a distance of 1–32768: its bases double
// every two codes from 5 on.
func distCode(dist int) int {
	if dist <= 4 {
		return dist - 1
	}
	n := bits.Len(uint(dist - 1))
	return 2*(n-1) + (dist-1)>>(n-2)&1
}
