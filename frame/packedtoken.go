package frame

import (
	"encoding/binary"
	"math/bits"
	"strconv"
)

// RecentTokens is the length of a stream's list of recent token IDs, which
// a PACKED_TOKEN frame names an ID by its place in (SPEC.md §3.1.1).
const RecentTokens = 64

const (
	// maxPackedPerFrame keeps a PACKED_TOKEN frame within MaxPayload: an
	// ID's code is at most 65 bits (a flag and an order-0 code of 2^32−1).
	maxPackedPerFrame = (MaxPayload - 1) * 8 / 65
	recentBits        = 6 // log2(RecentTokens): a recent ID's place
	maxOrder          = 31
)

// recent is a stream's list of recent token IDs, most recent first
// (SPEC.md §3.1.1): each ID a PACKED_TOKEN frame carries moves to the
// front, a new one pushing the last out.
type recent struct {
	ids [RecentTokens]uint32
	n   int
}

// find returns the place of id in the list, or -1.
func (l *recent) find(id uint32) int {
	for i, v := range l.ids[:l.n] {
		if v == id {
			return i
		}
	}
	return -1
}

// use moves the ID at place i to the front.
func (l *recent) use(i int) uint32 {
	id := l.ids[i]
	if i < 8 { // shorter than a call to memmove
		for ; i > 0; i-- {
			l.ids[i] = l.ids[i-1]
		}
	} else {
		copy(l.ids[1:i+1], l.ids[:i])
	}
	l.ids[0] = id
	return id
}

// push puts a new ID in front.
func (l *recent) push(id uint32) {
	if l.n < RecentTokens {
		l.n++
	}
	copy(l.ids[1:l.n], l.ids[:l.n-1])
	l.ids[0] = id
}

// expGolombBits is the size of id's exponential-Golomb code of order k.
func expGolombBits(id uint32, k int) int {
	return 2*(bits.Len64(uint64(id)>>k+1)-1) + 1 + k
}

// TokenEncoder writes PACKED_TOKEN frames (SPEC.md §3.1.1): each ID the
// stream's recent-ID list holds in 7 bits, any other as an
// exponential-Golomb code, so that at 16 IDs a flush an ID of a 100k+
// vocabulary costs 1.4–1.9 bytes on prose, code and Chinese
// (BenchmarkTokenBytes). A frame's IDs depend
// on the PACKED_TOKEN frames before it in the stream: use one TokenEncoder
// for every PACKED_TOKEN frame of a stream, in order, and Reset it for the
// next stream. The zero value is ready to use.
type TokenEncoder struct{ l recent }

// Reset empties the recent-ID list, for a new stream.
func (e *TokenEncoder) Reset() { e.l = recent{} }

// AppendPackedToken appends ids as PACKED_TOKEN frames, one unless there
// are more than fit in one, and returns the extended slice. No IDs append
// nothing. It does not allocate beyond b's growth.
func (e *TokenEncoder) AppendPackedToken(b []byte, ids ...uint32) []byte {
	for len(ids) > 0 {
		k := min(len(ids), maxPackedPerFrame)
		b = e.appendFrame(b, ids[:k])
		ids = ids[k:]
	}
	return b
}

func (e *TokenEncoder) appendFrame(b []byte, ids []uint32) []byte {
	// First on a copy of the list: which IDs it holds, and the order that
	// codes the others in fewest bits.
	l := e.l
	var cost [maxOrder + 1]int
	hits := 0
	for _, id := range ids {
		if i := l.find(id); i >= 0 {
			l.use(i)
			hits++
			continue
		}
		l.push(id)
		for k := range cost {
			cost[k] += 1 + expGolombBits(id, k)
		}
	}
	k := 0
	for i, c := range cost {
		if c < cost[k] {
			k = i
		}
	}
	n := hits*(1+recentBits) + cost[k]
	pad := -n & 7
	b = appendHeader(b, TypePackedToken, 1+(n+pad)/8)
	b = append(b, byte(k<<3|pad))
	w := bitWriter{b: b}
	for _, id := range ids {
		if i := e.l.find(id); i >= 0 {
			e.l.use(i)
			w.put(1<<recentBits|uint64(i), 1+recentBits)
			continue
		}
		e.l.push(id)
		v := uint64(id)>>k + 1
		z := bits.Len64(v) - 1
		w.put(0, 1+z)
		w.put(v, z+1)
		w.put(uint64(id), k)
	}
	return w.flush()
}

// bitWriter appends bits to b, most significant first.
type bitWriter struct {
	b   []byte
	acc uint64
	n   int
}

// put writes the low n bits of v, n ≤ 33.
func (w *bitWriter) put(v uint64, n int) {
	for n > 0 {
		m := min(n, 24)
		n -= m
		w.acc = w.acc<<m | v>>n&(1<<m-1)
		w.n += m
		for w.n >= 8 {
			w.n -= 8
			w.b = append(w.b, byte(w.acc>>w.n))
		}
	}
}

func (w *bitWriter) flush() []byte {
	if w.n > 0 {
		w.b = append(w.b, byte(w.acc<<(8-w.n)))
	}
	return w.b
}

// bitReader reads a PACKED_TOKEN payload's codes, most significant bit
// first: acc holds n bits not yet read at its top (and below them the
// payload's next bits, or zeros), refilled 8 bytes at a time; left counts
// the code bits not yet read (the padding excluded).
type bitReader struct {
	p    []byte
	i    int
	acc  uint64
	n    int
	left int
}

func newBitReader(p []byte) bitReader {
	return bitReader{p: p, i: 1, left: 8*(len(p)-1) - int(p[0]&7)}
}

// refill tops acc up to at least 56 bits, or to the payload's end. The
// bits it ORs in below the n it counts are the payload's own, so the next
// refill ORs the same bits there again.
func (r *bitReader) refill() {
	if r.i+8 <= len(r.p) {
		r.acc |= binary.BigEndian.Uint64(r.p[r.i:]) >> r.n
		adv := (63 - r.n) >> 3
		r.i += adv
		r.n += adv << 3
		return
	}
	for r.n <= 56 && r.i < len(r.p) {
		r.acc |= uint64(r.p[r.i]) << (56 - r.n)
		r.i++
		r.n += 8
	}
}

// skip drops the next n bits, n ≤ r.n.
func (r *bitReader) skip(n int) {
	r.acc <<= n
	r.n -= n
	r.left -= n
}

// at is the payload offset of the byte that holds the next bit.
func (r *bitReader) at() int { return r.i - (r.n+7)/8 }

// A code's faults (SPEC.md §3.1.1), as next reports them.
const (
	codeOK = iota
	codePlaceCut
	codePlacePast
	codeCut
	codeLong
	codePast32
)

// next reads one ID's code with order k against a list that holds have
// IDs: a place (hit) or a new ID, or one of the faults above, leaving r
// at the code's start.
func (r *bitReader) next(k, have int) (v uint32, hit bool, fault int) {
	if r.n < 40 {
		r.refill()
	}
	if r.acc>>63 == 1 {
		if r.left < 1+recentBits {
			return 0, false, codePlaceCut
		}
		i := int(r.acc >> (63 - recentBits) & (RecentTokens - 1))
		if i >= have {
			return uint32(i), false, codePlacePast
		}
		r.skip(1 + recentBits)
		return uint32(i), true, codeOK
	}
	// acc holds at least 40 bits, or every bit left: the zeros of a valid
	// code (at most 32) and the 1 after them are there.
	z := min(bits.LeadingZeros64(r.acc<<1), r.left-1)
	if z > 32 {
		return 0, false, codeLong
	}
	size := 2 + 2*z + k // the flag, z zeros, w and r
	if size > r.left {
		return 0, false, codeCut
	}
	if size <= r.n {
		x := r.acc << (1 + z) >> (64 - (z + 1 + k)) // w, then r
		id := x - 1<<k
		if id > 0xFFFFFFFF {
			return 0, false, codePast32
		}
		r.skip(size)
		return uint32(id), false, codeOK
	}
	// A code longer than the bits in acc: w and r a part at a time.
	s := *r
	s.skip(1 + z)
	s.refill()
	w := s.acc >> (64 - (z + 1))
	s.skip(z + 1)
	s.refill()
	id := (w-1)<<k | s.acc>>(64-k)&(1<<k-1)
	if id > 0xFFFFFFFF {
		return 0, false, codePast32
	}
	s.skip(k)
	*r = s
	return uint32(id), false, codeOK
}

// faultDetail says what fault (from next, with the place i it returned)
// breaks.
func faultDetail(fault int, i uint32, have int) string {
	switch fault {
	case codePlaceCut:
		return "the payload ends inside a recent ID's place"
	case codePlacePast:
		return "recent ID " + strconv.Itoa(int(i)) + ", the list holds " + strconv.Itoa(have)
	case codeCut:
		return "the payload ends inside an ID's code"
	case codeLong:
		return "an ID's code longer than 32 bits"
	}
	return "an ID past 2^32-1"
}

// paddingOK reports whether a PACKED_TOKEN payload of at least 2 bytes
// has zero padding bits.
func paddingOK(p []byte) bool { return p[len(p)-1]&(1<<(p[0]&7)-1) == 0 }

// scanPacked checks a PACKED_TOKEN payload's codes (SPEC.md §3.1.1) for a
// list that holds have IDs before it, and returns how many IDs it carries
// and how many the list holds after it.
func scanPacked(p []byte, have int) (count, after, at int, detail string, ok bool) {
	if !paddingOK(p) {
		return 0, have, len(p) - 1, "padding bits not zero", false
	}
	r := newBitReader(p)
	k := int(p[0] >> 3)
	for r.left > 0 {
		// A place in a full list, or a new ID's code within acc, is skipped
		// here without next's call (z + k < 32 keeps an ID under 2^32);
		// next reads the rest and says what is wrong.
		if r.n < 40 {
			r.refill()
		}
		if r.acc>>63 == 1 {
			if have == RecentTokens && r.left >= 1+recentBits {
				r.skip(1 + recentBits)
				count++
				continue
			}
		} else if z := bits.LeadingZeros64(r.acc << 1); z+k < 32 {
			if size := 2 + 2*z + k; size <= r.n && size <= r.left {
				r.skip(size)
				count++
				have = min(have+1, RecentTokens)
				continue
			}
		}
		v, hit, fault := r.next(k, have)
		if fault != codeOK {
			return count, have, r.at(), faultDetail(fault, v, have), false
		}
		if !hit && have < RecentTokens {
			have++
		}
		count++
	}
	return count, have, 0, "", true
}

// checkPacked is PACKED_TOKEN's check in Parse: the padding alone, which
// needs no walk through the codes. A Reader or a TokenDecoder checks the
// codes, once, as it reads them.
func checkPacked(p []byte) (int, string, bool) {
	if !paddingOK(p) {
		return len(p) - 1, "padding bits not zero", false
	}
	return 0, "", true
}

// TokenDecoder reads the IDs of a stream's token frames, PACKED_TOKEN
// frames (SPEC.md §3.1.1) among them, whose IDs depend on the PACKED_TOKEN
// frames before them: give it every PACKED_TOKEN frame of a stream, in
// order, and Reset it for the next stream. The zero value is ready to use.
type TokenDecoder struct{ l recent }

// Reset empties the recent-ID list, for a new stream.
func (d *TokenDecoder) Reset() { d.l = recent{} }

// Tokens appends the IDs of token frame f to dst and returns the extended
// slice: Frame.Tokens for the other token frames, and for a PACKED_TOKEN
// frame its IDs as the list of the frames before it makes them. A
// PACKED_TOKEN frame that breaks its layout returns dst and an *Error
// wrapping ErrMalformed whose Offset is within f's payload (a Reader has
// checked a stream's frames already, with stream offsets). It does not
// allocate beyond dst's growth.
func (d *TokenDecoder) Tokens(dst []uint32, f Frame) ([]uint32, error) {
	if f.Type != TypePackedToken {
		return f.Tokens(dst)
	}
	p := f.Payload
	if len(p) < 2 {
		return dst, frameErr(0, f.Type, ErrMalformed, "payload length "+strconv.Itoa(len(p))+", want at least 2")
	}
	if !paddingOK(p) {
		return dst, frameErr(int64(len(p)-1), f.Type, ErrMalformed, "padding bits not zero")
	}
	l := d.l
	r := newBitReader(p)
	k := int(p[0] >> 3)
	n := len(dst)
	for r.left > 0 {
		// A place, or a short new ID's code, is read here without next's
		// call, as in scanPacked.
		if r.n < 40 {
			r.refill()
		}
		if r.acc>>63 == 1 {
			if i := int(r.acc >> (63 - recentBits) & (RecentTokens - 1)); i < l.n && r.left >= 1+recentBits {
				r.skip(1 + recentBits)
				dst = append(dst, l.use(i))
				continue
			}
		} else if z := bits.LeadingZeros64(r.acc << 1); z+k < 32 {
			if size := 2 + 2*z + k; size <= r.n && size <= r.left {
				id := uint32(r.acc<<(1+z)>>(64-(z+1+k))) - 1<<k
				r.skip(size)
				l.push(id)
				dst = append(dst, id)
				continue
			}
		}
		v, hit, fault := r.next(k, l.n)
		if fault != codeOK {
			return dst[:n], frameErr(int64(r.at()), f.Type, ErrMalformed, faultDetail(fault, v, l.n))
		}
		if hit {
			v = l.use(int(v))
		} else {
			l.push(v)
		}
		dst = append(dst, v)
	}
	d.l = l
	return dst, nil
}
