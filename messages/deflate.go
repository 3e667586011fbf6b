package messages

import (
	"encoding/binary"
	"sync"

	"github.com/layer0/anth/internal/fixedflate"
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
	hashBits  = 12
	minMatch  = 4 // what hash4 finds
	localBits = 9
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

// appendDeflate appends src compressed as one final block of raw DEFLATE
// with EventDictionary as its preset dictionary.
func appendDeflate(dst, src []byte) []byte {
	dict := EventDictionary
	idx := dictIndex()
	var local [1 << localBits]int32 // last position in src of each hash, +1
	w := fixedflate.Writer{B: dst}
	w.StartBlock(true)
	for i := 0; i < len(src); {
		length, dist := 0, 0
		if i+minMatch <= len(src) {
			h := hash4(src[i:])
			// In the dictionary: history ends where src begins.
			if p := int(idx[h]); p >= 0 && len(dict)-p+i <= fixedflate.MaxDist {
				if n := matchDict(dict[p:], src[i:]); n >= minMatch {
					length, dist = n, len(dict)-p+i
				}
			}
			hl := h >> (hashBits - localBits)
			if p := int(local[hl]) - 1; p >= 0 && i-p <= fixedflate.MaxDist {
				if n := matchSelf(src, p, i); n > length && n >= minMatch {
					length, dist = n, i-p
				}
			}
			local[hl] = int32(i + 1)
		}
		if length == 0 {
			w.Literal(src[i])
			i++
			continue
		}
		w.Match(length, dist)
		i += length
	}
	w.EndBlock()
	w.Align()
	return w.B
}

// matchDict returns how many leading bytes of d and b agree, at most
// maxMatch. A match stops at the dictionary's end: the history goes on
// with the event's first bytes, not with b.
func matchDict(d string, b []byte) int {
	limit := min(len(d), len(b), fixedflate.MaxMatch)
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
	limit := min(len(src)-i, fixedflate.MaxMatch)
	n := 0
	for n < limit && src[p+n] == src[i+n] {
		n++
	}
	return n
}
