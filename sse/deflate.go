package sse

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// EVENT data of encoding frame.EventDeflate is raw DEFLATE (RFC 1951) with
// EventDictionary as the preset dictionary (SPEC.md §3.10). Any encoder's
// output is valid; this one is built for small events and no per-stream
// state. A general-purpose deflater spends microseconds on each event
// building Huffman tables and indexing the dictionary again (klauspost's
// stateless deflate: 5.8 µs for a message_start; compress/flate at its best
// level: 14 µs, after clearing 640 KB of hash tables), where a text delta
// costs under a microsecond to convert. This encoder indexes the dictionary
// once per process, matches each event greedily against the dictionary and
// against itself, and writes one block of RFC 1951's fixed Huffman codes
// (§3.2.6): a few hundred nanoseconds, a kilobyte of stack, and output a
// third larger than the best dynamic codes on a typical message_start.

const (
	hashBits   = 12
	minMatch   = 4
	maxMatch   = 258
	maxDist    = 32768
	localBits  = 9
	endOfBlock = 256
)

func hash4(b []byte) uint32 { return binary.LittleEndian.Uint32(b) * 2654435761 >> (32 - hashBits) }

// dictIndex maps the hash of every 4 bytes of EventDictionary to the last
// position they start at. It is built once, on first use, and only read.
var dictIndex = sync.OnceValue(func() *[1 << hashBits]int32 {
	var idx [1 << hashBits]int32
	for i := range idx {
		idx[i] = -1
	}
	d := []byte(EventDictionary)
	for i := 0; i+minMatch <= len(d); i++ {
		idx[hash4(d[i:])] = int32(i)
	}
	return &idx
})

// bitWriter packs bits least significant first, as DEFLATE does.
type bitWriter struct {
	b     []byte
	acc   uint64
	nbits uint
}

func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

// code writes a Huffman code of n bits: codes go most significant bit
// first, so they are reversed into the LSB-first stream.
func (w *bitWriter) code(c uint16, n uint) { w.bits(uint64(bits.Reverse16(c)>>(16-n)), n) }

// literal writes a literal/length symbol with its fixed code (RFC 1951
// §3.2.6).
func (w *bitWriter) literal(sym int) {
	switch {
	case sym < 144:
		w.code(uint16(0x30+sym), 8)
	case sym < 256:
		w.code(uint16(0x190+sym-144), 9)
	case sym < 280:
		w.code(uint16(sym-256), 7)
	default:
		w.code(uint16(0xC0+sym-280), 8)
	}
}

// The length and distance codes of RFC 1951 §3.2.5: the base of each code
// and its count of extra bits.
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// match writes a match of length 3–258 at distance 1–32768.
func (w *bitWriter) match(length, dist int) {
	l := lengthCode(length)
	w.literal(257 + l)
	w.bits(uint64(length-int(lengthBase[l])), uint(lengthExtra[l]))
	d := distCode(dist)
	w.code(uint16(d), 5)
	w.bits(uint64(dist-int(distBase[d])), uint(distExtra[d]))
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

// appendDeflate appends src compressed as one final block of raw DEFLATE
// with EventDictionary as its preset dictionary.
func appendDeflate(dst, src []byte) []byte {
	dict := EventDictionary
	idx := dictIndex()
	var local [1 << localBits]int32 // last position in src of each hash, +1
	w := bitWriter{b: dst}
	w.bits(1|1<<1, 3) // BFINAL, BTYPE 01: fixed Huffman codes
	for i := 0; i < len(src); {
		length, dist := 0, 0
		if i+minMatch <= len(src) {
			h := hash4(src[i:])
			// In the dictionary: history ends where src begins.
			if p := int(idx[h]); p >= 0 && len(dict)-p+i <= maxDist {
				if n := matchDict(dict[p:], src[i:]); n >= minMatch {
					length, dist = n, len(dict)-p+i
				}
			}
			hl := h >> (hashBits - localBits)
			if p := int(local[hl]) - 1; p >= 0 && i-p <= maxDist {
				if n := matchSelf(src, p, i); n > length && n >= minMatch {
					length, dist = n, i-p
				}
			}
			local[hl] = int32(i + 1)
		}
		if length == 0 {
			w.literal(int(src[i]))
			i++
			continue
		}
		w.match(length, dist)
		i += length
	}
	w.literal(endOfBlock)
	if w.nbits > 0 {
		w.b = append(w.b, byte(w.acc))
	}
	return w.b
}

// matchDict returns how many leading bytes of d and b agree, at most
// maxMatch. A match stops at the dictionary's end: the history goes on
// with the event's first bytes, not with b.
func matchDict(d string, b []byte) int {
	limit := min(len(d), len(b), maxMatch)
	n := 0
	for n < limit && d[n] == b[n] {
		n++
	}
	return n
}

// matchSelf returns how many bytes from src[i] on repeat those from src[p]
// on (p < i), at most maxMatch: the match may run on past i into the bytes
// it copies, as DEFLATE allows.
func matchSelf(src []byte, p, i int) int {
	limit := min(len(src)-i, maxMatch)
	n := 0
	for n < limit && src[p+n] == src[i+n] {
		n++
	}
	return n
}
