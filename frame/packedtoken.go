package frame

import (
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
	copy(l.ids[1:i+1], l.ids[:i])
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
// exponential-Golomb code, so that at 16 IDs a flush an ID costs 1.3–1.9
// bytes on English and code (BenchmarkTokenBytes). A frame's IDs depend
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
// first; left counts the code bits not yet read (the padding excluded).
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

// read returns the next n bits, n ≤ 32; the caller has checked left ≥ n.
func (r *bitReader) read(n int) uint64 {
	for r.n < n {
		r.acc = r.acc<<8 | uint64(r.p[r.i])
		r.i++
		r.n += 8
	}
	r.n -= n
	r.left -= n
	return r.acc >> r.n & (1<<n - 1)
}

// at is the payload offset of the byte that holds the next bit.
func (r *bitReader) at() int { return r.i - (r.n+7)/8 }

// code reads one ID's code: a place in the recent list (hit) or a new ID.
// have is the list's length; detail says what is wrong when ok is false.
func (r *bitReader) code(k, have int) (v uint32, hit bool, detail string, ok bool) {
	if r.read(1) == 1 {
		if r.left < recentBits {
			return 0, false, "the payload ends inside a recent ID's place", false
		}
		i := int(r.read(recentBits))
		if i >= have {
			return 0, false, "recent ID " + strconv.Itoa(i) + ", the list holds " + strconv.Itoa(have), false
		}
		return uint32(i), true, "", true
	}
	z := 0
	for {
		if r.left == 0 {
			return 0, false, "the payload ends inside an ID's code", false
		}
		if r.read(1) == 1 {
			break
		}
		if z++; z > 32 {
			return 0, false, "an ID's code longer than 32 bits", false
		}
	}
	if r.left < z+k {
		return 0, false, "the payload ends inside an ID's code", false
	}
	id := (1<<z|r.read(z)-1)<<k | r.read(k)
	if id > 0xFFFFFFFF {
		return 0, false, "an ID past 2^32-1", false
	}
	return uint32(id), false, "", true
}

// scanPacked checks a PACKED_TOKEN payload's layout (SPEC.md §3.1.1) for
// a list that holds have IDs before it (RecentTokens when unknown, as for
// Parse), and returns how many IDs it carries and how many the list holds
// after it.
func scanPacked(p []byte, have int) (count, after, at int, detail string, ok bool) {
	if p[len(p)-1]&(1<<(p[0]&7)-1) != 0 {
		return 0, have, len(p) - 1, "padding bits not zero", false
	}
	r := newBitReader(p)
	k := int(p[0] >> 3)
	for r.left > 0 {
		at := r.at()
		if _, hit, detail, ok := r.code(k, have); !ok {
			return count, have, at, detail, false
		} else if !hit && have < RecentTokens {
			have++
		}
		count++
	}
	return count, have, 0, "", true
}

func checkPacked(p []byte) (int, string, bool) {
	_, _, at, detail, ok := scanPacked(p, RecentTokens)
	return at, detail, ok
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
	if p[len(p)-1]&(1<<(p[0]&7)-1) != 0 {
		return dst, frameErr(int64(len(p)-1), f.Type, ErrMalformed, "padding bits not zero")
	}
	l := d.l
	r := newBitReader(p)
	k := int(p[0] >> 3)
	n := len(dst)
	for r.left > 0 {
		at := r.at()
		v, hit, detail, ok := r.code(k, l.n)
		if !ok {
			return dst[:n], frameErr(int64(at), f.Type, ErrMalformed, detail)
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
