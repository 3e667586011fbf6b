package deflate

import (
	"bytes"
	"compress/flate"
	"io"
	"strconv"
)

// AppendBlock appends src compressed as one final block of raw DEFLATE (RFC
// 1951) with dict as its preset dictionary (nil for none): the data of an
// EVENT frame of encoding 1 (SPEC.md §3.10). Any DEFLATE encoder's output
// inflates the same; this one is built for small values and no state
// between them. A general-purpose deflater spends microseconds on each
// value building Huffman tables and indexing the dictionary again
// (klauspost's stateless deflate: 5.8 µs for a message_start;
// compress/flate at its best level: 14 µs, after clearing 640 KB of hash
// tables). AppendBlock uses the dictionary's index, built once by
// NewDictionary, matches each value greedily against the dictionary and
// against itself, and writes one block of fixed Huffman codes (§3.2.6): a
// few hundred nanoseconds, a kilobyte of stack, and output a third larger
// than the best dynamic codes on a typical message_start.
func AppendBlock(dst, src []byte, dict *Dictionary) []byte {
	const localBits = 9
	var local [1 << localBits]int32 // last position in src of each hash, +1
	var d []byte
	if dict != nil {
		d = dict.b
	}
	w := bitWriter{B: dst}
	w.StartBlock(true)
	for i := 0; i < len(src); {
		length, dist := 0, 0
		if i+minMatch <= len(src) {
			h := hash4(src[i:])
			// In the dictionary: history ends where src begins. head holds
			// 1 + the last position of each hash, counted from its start.
			if dict != nil {
				if p := int(dict.head[h]) - 1; p >= 0 && len(d)-p+i <= maxDist {
					if n := matchDict(d[p:], src[i:]); n >= minMatch {
						length, dist = n, len(d)-p+i
					}
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
// MaxMatch. A match stops at the dictionary's end: the history goes on
// with the value's first bytes, not with b.
func matchDict(d, b []byte) int {
	limit := min(len(d), len(b), maxMatch)
	n := 0
	for n < limit && d[n] == b[n] {
		n++
	}
	return n
}

// matchSelf returns how many bytes from src[i] on repeat those from src[p]
// on (p < i), at most MaxMatch: the match may run on past i into the bytes
// it copies, as DEFLATE allows.
func matchSelf(src []byte, p, i int) int {
	limit := min(len(src)-i, maxMatch)
	n := 0
	for n < limit && src[p+n] == src[i+n] {
		n++
	}
	return n
}

// Inflater inflates whole raw DEFLATE values with a preset dictionary, such
// as EVENT data, keeping its inflater and buffer from one value to the
// next: reuse is explicit, one Inflater per reader of values. The zero
// value is ready to use; it is not safe for concurrent use.
type Inflater struct {
	zr  io.ReadCloser
	in  bytes.Reader
	out bytes.Buffer
}

// Inflate returns what z inflates to with dict as its preset dictionary
// (nil for none), valid until the next call. Output over max bytes is
// ErrTooLarge, found after at most max+1 bytes of it; z that is not raw
// DEFLATE, or ends before its final block, ErrMalformed. Errors are *Error
// with the offset -1: the value is one field of a frame, whose reader
// says where it is.
func (f *Inflater) Inflate(z []byte, dict *Dictionary, max int) ([]byte, error) {
	var d []byte
	if dict != nil {
		d = dict.b
	}
	f.in.Reset(z)
	if f.zr == nil {
		f.zr = flate.NewReaderDict(&f.in, d)
	} else {
		f.zr.(flate.Resetter).Reset(&f.in, d)
	}
	f.out.Reset()
	n, err := f.out.ReadFrom(io.LimitReader(f.zr, int64(max)+1))
	if err != nil {
		return nil, &Error{Offset: -1, Err: ErrMalformed, Detail: "the value does not inflate: " + err.Error()}
	}
	if n > int64(max) {
		return nil, &Error{Offset: -1, Err: ErrTooLarge, Detail: "the value inflates to over " + strconv.Itoa(max) + " bytes"}
	}
	return f.out.Bytes(), nil
}
