package deflate

import (
	"bytes"
	"encoding/binary"
	"io"
	"strconv"

	"github.com/klauspost/compress/flate"
)

// AppendBlock appends src compressed as one final block of raw DEFLATE (RFC
// 1951) with dict as its preset dictionary (nil for none): the data of an
// EVENT frame of encoding 1 (SPEC.md §3.10). Any DEFLATE encoder's output
// inflates the same; this one is built for small values and no state
// between them. A general-purpose deflater spends microseconds on each
// value building Huffman tables and indexing the dictionary again
// (compress/flate at its best level: 40 µs an event with the EVENT
// dictionary). AppendBlock uses the dictionary's index, built once by
// NewDictionary: it tries the first positions of the dictionary's hash
// chain and the value's last position with the same hash, with one step of
// lazy matching, and writes fixed Huffman codes (§3.2.6); or, for a value
// of a few hundred bytes or more, dynamic codes (§3.2.7) built from its
// counts of symbols when they come out smaller, header included.
func AppendBlock(dst, src []byte, dict *Dictionary) []byte {
	return appendBlock(dst, src, dict, nil)
}

// AppendBlockAfter is AppendBlock with prev after dict in the window: src
// compressed as one final block of raw DEFLATE whose preset dictionary is
// dict's bytes followed by prev's (of which, with dict's, the last 32 KiB
// count), for an EVENT of encoding 3 (SPEC.md §3.10), prev the data of the
// event before it. prev is indexed on each call, by the last position of
// each hash, as src is: it is one event, not a stream's history.
func AppendBlockAfter(dst, src []byte, dict *Dictionary, prev []byte) []byte {
	return appendBlock(dst, src, dict, prev)
}

func appendBlock(dst, src []byte, dict *Dictionary, prev []byte) []byte {
	start := len(dst)
	if 9*len(src)+10 < 8*dynamicMinBytes {
		// Fixed codes for sure: no tokens, the bits straight away.
		b, _ := appendTokens(dst, src, dict, prev, nil)
		return b
	}
	var f blockFreq
	// The tokens go after dst first, 4 bytes each: a literal, or a match
	// as (length-2)<<16 | (dist-1). The block's bits follow them, and move
	// down over them at the end.
	tok, fixedBits := appendTokens(dst, src, dict, prev, &f)
	end := len(tok)
	w := bitWriter{B: tok}
	if fixedBits < 8*dynamicMinBytes || !writeDynamic(&w, &f, fixedBits, start, end) {
		w.StartBlock(true)
		writeTokens(&w, start, end, &fixedLitCode, &fixedLitLen, &fixedDistCode, &fixedDistLen)
	}
	w.Align()
	n := copy(w.B[start:], w.B[end:])
	return w.B[:start+n]
}

// Block matching (AppendBlock's): how many positions of the dictionary's
// hash chain are tried, and the match length from which one is taken
// without looking at the next position's.
const (
	blockChain = 16
	blockNice  = 16
	localBits  = 9
	prevBits   = 11 // the previous event's index (AppendBlockAfter)
)

// dynamicMinBytes is the size of fixed codes under which a block of
// dynamic codes is not tried: its header alone is some 60 bytes, and on
// the events of testdata/sse dynamic codes come out smaller only from 160
// bytes of fixed codes on (a message_delta of 598 bytes: 163 → 159; a
// web_search_tool_result of 1469: 882 → 663).
const dynamicMinBytes = 160

// appendTokens appends the tokens of src to tok, counting their symbols in
// f, and returns it with the size in bits of the block of fixed codes of
// them; or with f nil, appends that block itself. Its matching is greedy matching with one step of lazy matching against the
// dictionary (its chain, blockChain deep) and the value itself (its last
// position of each hash).
func appendTokens(tok, src []byte, dict *Dictionary, prev []byte, f *blockFreq) ([]byte, int) {
	var local [1 << localBits]int32 // last position in src of each hash, +1
	// prev, after the dictionary and before src in the window: the last
	// position in it of each hash, +1, within reach of src's start.
	var before *[1 << prevBits]int32
	if len(prev) > maxDist {
		prev = prev[len(prev)-maxDist:]
	}
	if len(prev) >= minMatch {
		before = new([1 << prevBits]int32)
		for q := 0; q+minMatch <= len(prev); q++ {
			before[hash4(prev[q:])>>(hashBits-prevBits)] = int32(q + 1)
		}
	}
	var d []byte
	var head *[1 << hashBits]uint32
	var chain []uint16
	if dict != nil {
		d, head, chain = dict.b, &dict.head, dict.prev
	}
	n := len(src)
	pending, pdist := 0, 0 // a match from i-1, held to see i's
	fixedBits := 3 + 7     // the block's header and end
	// With f nil, the block's bits, 4 bytes appended at a time.
	direct := f == nil
	var acc uint64
	var nbits uint
	put := func(v uint64, n uint) {
		acc |= v << nbits
		nbits += n
		if nbits >= 32 {
			tok = binary.LittleEndian.AppendUint32(tok, uint32(acc))
			acc >>= 32
			nbits -= 32
		}
	}
	literal := func(c byte) {
		if direct {
			put(uint64(fixedLitCode[c]), uint(fixedLitLen[c]))
			return
		}
		f.lit[c]++
		fixedBits += 8 + (int(c)+112)>>8 // 9 bits from 144 on
		tok = binary.LittleEndian.AppendUint32(tok, uint32(c))
	}
	if direct {
		put(1|1<<1, 3) // BFINAL, BTYPE 01
	}
	for i := 0; ; {
		length, dist := 0, 0
		if pending < blockNice && i+minMatch <= n {
			h := hash4(src[i:])
			best := minMatch - 1
			hl := h >> (hashBits - localBits)
			first := binary.LittleEndian.Uint32(src[i:])
			if p := int(local[hl]) - 1; p >= 0 && i-p <= maxDist && binary.LittleEndian.Uint32(src[p:]) == first {
				limit := min(n-i, maxMatch)
				best, dist = 4+matchLen(src[p+4:p+limit], src[i+4:i+limit]), i-p
			}
			local[hl] = int32(i + 1)
			if before != nil && best < maxMatch {
				// In prev, which ends where src begins; a match stops at
				// its end.
				if q := int(before[h>>(hashBits-prevBits)]) - 1; q >= 0 && len(prev)-q+i <= maxDist && binary.LittleEndian.Uint32(prev[q:]) == first {
					lim := min(len(prev)-q, n-i, maxMatch)
					if k := 4 + matchLen(prev[q+4:q+lim], src[i+4:i+lim]); k > best {
						best, dist = k, len(prev)-q+i
					}
				}
			}
			if head != nil && best < maxMatch {
				// In the dictionary: history ends where prev (or src)
				// begins. head holds 1 + the last position of each hash,
				// counted from its start; chain, the step back to the one
				// before.
				b := src[i:min(n, i+maxMatch)]
				p := int(head[h]) - 1
				back := len(prev) + i // from the dictionary's end to src[i]
				for c := 0; p >= 0 && c < blockChain && len(d)-p+back <= maxDist; c++ {
					// A match stops at the dictionary's end: the history
					// goes on with prev or the value's first bytes, not
					// with b.
					if lim := min(len(d)-p, len(b)); lim > best && d[p+best] == b[best] && binary.LittleEndian.Uint32(d[p:]) == first {
						if k := matchLen(d[p:p+lim], b[:lim]); k > best {
							best, dist = k, len(d)-p+back
							if k == len(b) {
								break
							}
						}
					}
					step := int(chain[p])
					if step == 0 {
						break
					}
					p -= step
				}
			}
			if dist != 0 {
				length = best
			}
		}
		if pending > 0 {
			if length > pending {
				// A longer match one byte on: the byte before it goes as
				// a literal, and the new match waits in turn.
				literal(src[i-1])
				pending, pdist = length, dist
				i++
				continue
			}
			l, d := lengthCode(pending), distCode(pdist)
			if direct {
				s := 257 + l
				put(uint64(fixedLitCode[s])|uint64(pending-int(lengthBase[l]))<<fixedLitLen[s], uint(fixedLitLen[s])+uint(lengthExtra[l]))
				put(uint64(fixedDistCode[d])|uint64(pdist-int(distBase[d]))<<5, 5+uint(distExtra[d]))
			} else {
				f.lit[257+l]++
				f.dist[d]++
				fixedBits += 7 + 5 + int(lengthExtra[l]) + int(distExtra[d]) + (l+257)/280
				tok = binary.LittleEndian.AppendUint32(tok, uint32(pending-2)<<16|uint32(pdist-1))
			}
			i += pending - 1
			pending = 0
			continue
		}
		if i >= n {
			if direct {
				put(uint64(fixedLitCode[endOfBlock]), uint(fixedLitLen[endOfBlock]))
				for ; nbits > 0; nbits -= min(nbits, 8) {
					tok = append(tok, byte(acc))
					acc >>= 8
				}
			}
			return tok, fixedBits
		}
		if length > 0 {
			pending, pdist = length, dist
			i++
			continue
		}
		literal(src[i])
		i++
	}
}

// writeTokens writes the tokens in w.B[start:end] with the given codes,
// bit-reversed, and the end of block.
func writeTokens(w *bitWriter, start, end int, litCode *[numLit]uint16, litLen *[numLit]uint8, dCode *[numDist]uint16, dLen *[numDist]uint8) {
	// w's bits, kept here and appended 4 bytes at a time.
	b, acc, nbits := w.B, w.acc, w.nbits
	put := func(v uint64, n uint) {
		acc |= v << nbits
		nbits += n
		if nbits >= 32 {
			b = binary.LittleEndian.AppendUint32(b, uint32(acc))
			acc >>= 32
			nbits -= 32
		}
	}
	for k := start; k < end; k += 4 {
		x := binary.LittleEndian.Uint32(b[k:])
		if x>>16 == 0 {
			put(uint64(litCode[x]), uint(litLen[x]))
			continue
		}
		length, dist := int(x>>16)+2, int(x&0xFFFF)+1
		l := lengthCode(length)
		s := 257 + l
		put(uint64(litCode[s])|uint64(length-int(lengthBase[l]))<<litLen[s], uint(litLen[s])+uint(lengthExtra[l]))
		dc := distCode(dist)
		put(uint64(dCode[dc])|uint64(dist-int(distBase[dc]))<<dLen[dc], uint(dLen[dc])+uint(distExtra[dc]))
	}
	put(uint64(litCode[endOfBlock]), uint(litLen[endOfBlock]))
	w.B, w.acc, w.nbits = b, 0, 0
	w.Bits(acc, nbits)
}

// The fixed codes (§3.2.6), bit-reversed, as writeTokens takes them.
var (
	fixedLitCode  [numLit]uint16
	fixedLitLen   [numLit]uint8
	fixedDistCode [numDist]uint16
	fixedDistLen  [numDist]uint8
)

func init() {
	// The fixed literal/length code has 288 symbols; the last two are
	// never used but take their place in the canonical order.
	var lens [numLit + 2]uint8
	var codes [numLit + 2]uint16
	for s := range lens {
		switch {
		case s < 144:
			lens[s] = 8
		case s < 256:
			lens[s] = 9
		case s < 280:
			lens[s] = 7
		default:
			lens[s] = 8
		}
	}
	canonical(lens[:], codes[:])
	copy(fixedLitLen[:], lens[:])
	copy(fixedLitCode[:], codes[:])
	for s := range numDist {
		fixedDistLen[s] = 5
	}
	canonical(fixedDistLen[:], fixedDistCode[:])
}

// writeDynamic writes the final block of the tokens in w.B[start:end] with
// dynamic codes built for their counts f, if that is smaller than the
// fixedBits of fixed codes, and reports whether it did.
//
//go:noinline
func writeDynamic(w *bitWriter, f *blockFreq, fixedBits, start, end int) bool {
	f.lit[endOfBlock]++
	var t dynTables
	if t.build(f) >= fixedBits {
		return false
	}
	t.writeHeader(w)
	writeTokens(w, start, end, &t.litCode, &t.litLen, &t.distCode, &t.distLen)
	return true
}

// Inflater inflates whole raw DEFLATE values with a preset dictionary, such
// as EVENT data, keeping its inflater and buffer from one value to the
// next: reuse is explicit, one Inflater per reader of values. The zero
// value is ready to use; it is not safe for concurrent use.
//
// It inflates with klauspost/compress's flate, which keeps the memory of
// its Huffman tables from one value to the next (compress/flate makes the
// tables of codes over 9 bits again on every value: a message_start of
// dynamic codes, 13 allocations) and took 0.47–0.50x compress/flate's
// time a value (TestInflaterAgreesWithStd holds them to the same output).
// The stream Reader keeps compress/flate: its feeder relies on exactly
// when compress/flate asks for a byte (reader.go).
type Inflater struct {
	zr  io.ReadCloser
	in  bytes.Reader
	out bytes.Buffer
	lim io.LimitedReader // zr, bounded: a value here, not io.LimitReader's allocation a call
	win []byte           // a dictionary followed by prev (InflateAfter)
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
	return f.inflate(z, d, max)
}

// InflateAfter is Inflate with prev after dict in the window, as
// AppendBlockAfter writes: the data of an EVENT of encoding 3 (SPEC.md
// §3.10), prev the data of the event before it.
func (f *Inflater) InflateAfter(z []byte, dict *Dictionary, prev []byte, limit int) ([]byte, error) {
	if len(prev) >= window {
		return f.inflate(z, prev[len(prev)-window:], limit)
	}
	f.win = f.win[:0]
	if dict != nil {
		f.win = append(f.win, dict.b[max(0, len(dict.b)+len(prev)-window):]...)
	}
	f.win = append(f.win, prev...)
	return f.inflate(z, f.win, limit)
}

func (f *Inflater) inflate(z, d []byte, max int) ([]byte, error) {
	f.in.Reset(z)
	if f.zr == nil {
		f.zr = flate.NewReaderDict(&f.in, d)
	} else {
		f.zr.(flate.Resetter).Reset(&f.in, d)
	}
	f.out.Reset()
	f.lim = io.LimitedReader{R: f.zr, N: int64(max) + 1}
	n, err := f.out.ReadFrom(&f.lim)
	if err != nil {
		return nil, &Error{Offset: -1, Err: ErrMalformed, Detail: "the value does not inflate: " + err.Error()}
	}
	if n > int64(max) {
		return nil, &Error{Offset: -1, Err: ErrTooLarge, Detail: "the value inflates to over " + strconv.Itoa(max) + " bytes"}
	}
	return f.out.Bytes(), nil
}
