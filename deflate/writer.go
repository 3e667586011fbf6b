package deflate

import (
	"encoding/binary"
	"io"
	"math/bits"
)

// Window is how far back DEFLATE reaches: of a preset dictionary, and of
// the event before an EVENT of encoding 3 (AppendBlockAfter), only the last
// Window bytes count, so a caller keeps no more of them.
const Window = maxDist

const (
	window     = Window   // DEFLATE's window, a power of two
	maxChunk   = 16 << 10 // input matched at a time, after the window
	hashBits   = 12
	hash3Bits  = 10
	tooFar3    = 4096     // the farthest back a 3-byte match is taken, as zlib's TOO_FAR
	minMatch   = 4        // what hash4 finds
	maxChain   = 32       // candidates tried at a position
	niceMatch  = 64       // a match this long is taken without looking further
	lazyMatch  = 16       // a match shorter than this waits to see the next position's
	goodMatch  = 8        // from a match this long, the next position's walk is shorter:
	goodShift  = 2        // maxChain>>goodShift candidates, as zlib's good_length
	skipInsert = 32       // the positions inside a match this long are not hashed
	maxRecord  = 16 << 10 // coded bytes a Writer holds before it ends a record unasked
	idSize     = 4        // the DICTID that starts a body (§11.2)
	lenRoom    = idSize + binary.MaxVarintLen32
	smallParse = 5 // a Write this long or shorter is parsed for the fewest bits: a TOKEN frame of one ID (parseSmall)
)

func hash4(b []byte) uint32 { return binary.LittleEndian.Uint32(b) * 2654435761 >> (32 - hashBits) }

// hash3 hashes b's first 3 bytes (b has 4), for the 3-byte matches that
// hash4's chains cannot find.
func hash3(b []byte) uint32 {
	return (binary.LittleEndian.Uint32(b) << 8) * 2654435761 >> (32 - hash3Bits)
}

// Writer compresses an ANTH stream as anth-deflate. Write compresses; Flush
// ends a record and writes it to the underlying writer, so everything
// written so far can be inflated by a reader that has the bytes written so
// far. A Writer also ends a record by itself once it holds 16 KiB of output.
// It has no end marker and so no Close: the ANTH stream it carries ends
// itself (SPEC.md §3.11); Flush after the last frame.
//
// The encoder is greedy with one step of lazy matching, tries up to 32
// earlier positions with the same 4-byte hash (8 for the next position
// when the match it has is 8 bytes or more), and where none matches, the
// last position with the same 3 bytes, up to 4 KiB back when its code is
// shorter than the 3 literals': a frame's header and a token's 2-byte ID
// repeat in 3 bytes (at 16 o200k IDs a record, 2.4 % of the body). A Write
// of 5 bytes or fewer, a TOKEN frame of one ID, is parsed for the fewest
// bits instead (parseSmall). It writes fixed Huffman codes only: on a
// token's dozen bytes a code table would cost more than it saves. A Writer
// is about 150 KiB; Reset reuses one.
//
// Errors from the underlying writer are sticky. A Writer is not safe for
// concurrent use.
type Writer struct {
	w      io.Writer
	dict   *Dictionary
	hist   []byte // the last window bytes coded, then the input being coded
	base   uint32 // stream position of hist[0], counted from the dictionary's start
	hashed int    // hist[:hashed] are in the hash chains
	bw     bitWriter
	open   bool // a block has begun since the last record
	held   int  // the last bytes of hist, written but not yet coded: a small Write (parseSmall), until it is known whether it ends the record
	begun  bool // the DICTID is written
	err    error
	head   [1 << hashBits]uint32  // per hash, 1 + the position last seen with it
	head3  [1 << hash3Bits]uint32 // per hash of 3 bytes, 1 + the position last seen with them
	prev   [window]uint16         // per position mod window, the distance back to the previous one with its hash
	small  smallParser
}

// NewWriter returns a Writer writing records to w, starting from the preset
// dictionary dict (nil for none), which the reader must be given too.
func NewWriter(w io.Writer, dict *Dictionary) *Writer {
	z := &Writer{hist: make([]byte, 0, window+maxChunk), bw: bitWriter{B: make([]byte, lenRoom, 512)}, dict: dict}
	z.Reset(w)
	return z
}

// Dictionary returns the preset dictionary z was made with (nil for
// none).
func (z *Writer) Dictionary() *Dictionary { return z.dict }

// Reset discards the Writer's state and makes it write a new stream to w,
// from the same dictionary.
func (z *Writer) Reset(w io.Writer) {
	z.w, z.err, z.open, z.begun, z.base, z.held = w, nil, false, false, 0, 0
	if d := z.dict; d != nil {
		z.head = d.head
		z.head3 = d.head3
		copy(z.prev[:], d.prev)
		z.hist = append(z.hist[:0], d.b...)
		z.hashed = d.hashed
	} else {
		z.head = [1 << hashBits]uint32{}
		z.head3 = [1 << hash3Bits]uint32{}
		z.hist = z.hist[:0]
		z.hashed = 0
	}
	z.bw = bitWriter{B: z.bw.B[:lenRoom]}
}

// Write compresses p. The bytes reach the underlying writer at the next
// Flush, or when the Writer ends a record by itself.
func (z *Writer) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	if z.held > 0 {
		z.encode(len(z.hist)-z.held, smallParse, false)
		z.held = 0
	}
	if n <= smallParse {
		// Coded at the next Write or Flush, which says whether its last
		// symbol ends the record.
		if len(z.hist)+n > cap(z.hist) {
			z.slide()
		}
		z.hist = append(z.hist, p...)
		z.held = n
		return n, nil
	}
	for len(p) > 0 {
		k := min(len(p), maxChunk)
		if len(z.hist)+k > cap(z.hist) {
			z.slide()
		}
		start := len(z.hist)
		z.hist = append(z.hist, p[:k]...)
		p = p[k:]
		z.encode(start, smallParse, false)
		if z.bw.Len() >= maxRecord {
			if err := z.Flush(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// Flush ends the record begun since the last Flush, if any, and writes it
// to the underlying writer, after the dictionary's DICTID if it is the
// first. It does not flush the underlying writer.
func (z *Writer) Flush() error {
	if z.err != nil {
		return z.err
	}
	if z.held > 0 {
		z.encode(len(z.hist)-z.held, smallParse, true)
		z.held = 0
	}
	if !z.open {
		return nil
	}
	z.bw.EndBlock()
	z.bw.SyncFlush()
	z.open = false
	b := z.bw.B
	// The flush's end-of-block code, stored block header and padding are
	// at least 10 zero bits: the last byte is zero, and so is the one
	// before it when 16 or more are. The reader puts back the zero bytes
	// a record leaves out as the inflater asks for them (SPEC.md §11.2),
	// so the record leaves out all it may: up to maxZeros. It keeps at
	// least its first byte, which holds the block header's BTYPE 01.
	for k := 0; k < maxZeros && b[len(b)-1] == 0; k++ {
		b = b[:len(b)-1]
	}
	n := len(b) - lenRoom
	// The length, and before the first record the DICTID, go in the room
	// left before the bits: no copy, one Write.
	var l [binary.MaxVarintLen32]byte
	k := binary.PutUvarint(l[:], uint64(n))
	start := lenRoom - k
	copy(b[start:], l[:k])
	if !z.begun {
		start -= idSize
		binary.BigEndian.PutUint32(b[start:], z.dict.ID())
		z.begun = true
	}
	_, z.err = z.w.Write(b[start:])
	z.bw.B = b[:lenRoom]
	return z.err
}

// slide drops all but the last window bytes, which are all coded.
func (z *Writer) slide() {
	drop := len(z.hist) - window
	copy(z.hist, z.hist[drop:])
	z.hist = z.hist[:window]
	z.base += uint32(drop)
	z.hashed -= drop
}

// insertUpTo puts the positions before end that have 4 bytes after them in
// the hash chains.
func (z *Writer) insertUpTo(end int) {
	if z.hashed >= end {
		return // most calls, from find: a call of insert costs more
	}
	insert(&z.head, &z.head3, &z.prev, z.hist, z.base, &z.hashed, end)
}

// put puts position i, pos in the stream, in the chains as insert does,
// given its hashes and head, the head of its 4-byte chain before it went
// in: for a matcher that found them on its way (find, parseSmall).
func (z *Writer) put(i int, pos, h3, h4, head uint32) {
	z.head3[h3] = pos + 1
	step := pos - (head - 1)
	if head == 0 || step >= window {
		step = 0
	}
	z.prev[pos%window] = uint16(step)
	z.head[h4] = pos + 1
	z.hashed = i + 1
}

func insert(head *[1 << hashBits]uint32, head3 *[1 << hash3Bits]uint32, prev *[window]uint16, hist []byte, base uint32, hashed *int, end int) {
	end = min(end, len(hist)-minMatch+1)
	for i := *hashed; i < end; i++ {
		pos := base + uint32(i)
		head3[hash3(hist[i:])] = pos + 1
		h := hash4(hist[i:])
		d := pos - (head[h] - 1)
		if head[h] == 0 || d >= window {
			d = 0
		}
		prev[pos%window] = uint16(d)
		head[h] = pos + 1
	}
	*hashed = max(*hashed, end)
}

// encode writes the symbols for hist[start:]: for the fewest bits if they
// are small bytes or fewer (parseSmall; last if the record ends after
// them), else by lazy matching.
func (z *Writer) encode(start, small int, last bool) {
	if !z.open {
		z.bw.StartBlock(false)
		z.open = true
	}
	// Positions near the end of the last input can be hashed now.
	z.insertUpTo(start)
	end := len(z.hist)
	if end-start <= small {
		z.parseSmall(start, end, last)
		return
	}
	for i := start; i < end; {
		length, dist := z.find(i, end, 0)
		if length >= minLength && length < lazyMatch && i+1 < end {
			if l2, d2 := z.find(i+1, end, length); l2 > length {
				z.bw.Literal(z.hist[i])
				i++
				length, dist = l2, d2
			}
		}
		if length < minLength {
			z.bw.Literal(z.hist[i])
			i++
			continue
		}
		z.bw.Match(length, dist)
		if length >= skipInsert && z.hashed <= i+1 {
			// Like zlib's fast levels: the positions inside a long match
			// go unhashed, which costs little ratio and much time on the
			// JSON of events, most of it one long match after another.
			z.insertUpTo(i + 1)
			z.hashed = i + length
		}
		i += length
	}
	z.insertUpTo(end)
}

// find returns the longest match for hist[i:end] among the positions in
// its hash chain, or a 3-byte one that pays (see Writer), and puts i in the
// chain. It returns only a match longer than longer: lazy matching asks
// whether the next position beats the match it has, and candidates that
// cannot are passed over with one compare of 4 bytes.
func (z *Writer) find(i, end, longer int) (length, dist int) {
	if i+minMatch > end {
		return 0, 0
	}
	z.insertUpTo(i)
	h := z.hist
	limit := min(end-i, maxMatch)
	best := max(minMatch-1, longer)
	if best >= limit {
		z.insertUpTo(i + 1)
		return 0, 0
	}
	h4 := hash4(h[i:])
	c := z.head[h4]
	chain := maxChain
	if longer >= goodMatch {
		// As zlib's good_length: a match this long is seldom beaten
		// one position on, and the walk is most of the Writer's time.
		chain >>= goodShift
	}
	cur := h[i : i+limit]
	// A candidate that beats best shares cur's bytes up to best: the 4
	// that end there reject most of the others with one compare.
	tail := binary.LittleEndian.Uint32(cur[best-3:])
	// A chain entry is good while no later position has overwritten it:
	// i itself goes in below, so stay under window-1 back.
	reach := min(window-2, i)
	pos := z.base + uint32(i)
	prev := &z.prev
	d := int(pos - (c - 1))
	for n := 0; c != 0 && n < chain && uint(d-1) < uint(reach); n++ {
		j := i - d
		if binary.LittleEndian.Uint32(h[j+best-3:]) == tail {
			if m := matchLen(h[j:j+limit], cur); m > best {
				best, dist = m, d
				if m >= niceMatch || m == limit {
					break
				}
				tail = binary.LittleEndian.Uint32(cur[best-3:])
			}
		}
		step := int(prev[(pos-uint32(d))%window])
		if step == 0 {
			break
		}
		d += step
	}
	h3 := hash3(h[i:])
	if dist == 0 && longer < minLength {
		// No 4 bytes match: 3 may, near enough that a match's bits
		// are fewer than the literals'.
		c := z.head3[h3]
		d := int(z.base + uint32(i) - (c - 1))
		if c != 0 && d > 0 && d <= tooFar3 && d <= i && h[i-d] == h[i] && h[i-d+1] == h[i+1] && h[i-d+2] == h[i+2] &&
			matchBits(3, d) < literalBits(h[i])+literalBits(h[i+1])+literalBits(h[i+2]) {
			best, dist = 3, d
		}
	}
	if z.hashed == i {
		// i goes in the chains as insert puts it, with the hashes and
		// the chain's head found above.
		z.put(i, pos, h3, h4, c)
	}
	if dist == 0 {
		return 0, 0
	}
	return best, dist
}

// matchLen returns how many leading bytes a and b, of equal length, share.
func matchLen(a, b []byte) int {
	n := 0
	for len(b)-n >= 8 {
		if x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:]); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
