package deflate

import (
	"encoding/binary"
	"math/bits"
)

// A record of one token at a flush is a TOKEN frame of 5 bytes (type,
// length, a 2-byte ID), and its size is the bits of its two or three
// symbols, rounded up to a byte: which are matches matters more than how
// long each is. A 3-byte match of the frame header at distance 5 costs 13
// bits, a 4-byte one of the header and the ID's high byte 3,000 back 22,
// the whole frame 5,000 back 23; lazy matching takes the longest, wherever
// it is, and finds the whole frame only among the 32 nearest that share
// its header and high byte. So a Write this small (smallParse) is parsed
// for the fewest bits: for each position the matches of its hash chain
// and its 3-byte head, each the nearest of its length, and those one
// position on that the byte before extends; then the cheapest path from
// the end back (RFC 1951's fixed codes price every symbol in bits before
// any is written). Its candidates include every match lazy matching would
// take, so its record is never larger (TestParseSmallNoLarger). On the
// Go code of testdata/tokens at a flush per token it saves 1.0–1.3 % of
// the body (4.18 to 4.12 bytes a token under cl100k, 4.19 to 4.15 under
// o200k), as much as a search of the whole window would; parsing longer
// Writes too would save more (up to 9 bytes, TEXT frames of 1–4 bytes of
// text: 4 % on the same code) but cost about 30 % more CPU than lazy
// matching on BenchmarkRecord's deltas.

// smallParser is parseSmall's working space, in the Writer so that a
// record costs no allocation.
type smallParser struct {
	cands [smallParse][smallParse - minLength + 1]match // per position, matches by length and distance, both increasing: one of each length at most
	n     [smallParse]uint8                             // how many of cands each has
	cost  [smallParse + 1]uint32                        // bits from a position to the end
	pick  [smallParse]match                             // the symbol that starts the cheapest path from there; length 0 is a literal
	whole [smallParse]uint16                            // when the record ends with the Write: per position, the distance of the match to its end whose bits up to the last 1 are fewest, 0 if none
}

type match struct{ length, dist uint16 }

// lengthBits is the bits of a fixed length code of each length, extra
// bits included (§3.2.5, §3.2.6: symbols 257–279 have 7-bit codes, the
// rest 8). fixed.go's init makes the codes, after variables like this one
// are set, so it counts them itself.
var lengthBits = func() (t [maxMatch + 1]uint8) {
	for l := minLength; l <= maxMatch; l++ {
		c := lengthCode(l)
		t[l] = 7 + lengthExtra[c]
		if 257+c >= 280 {
			t[l]++
		}
	}
	return t
}()

// parseSmall writes hist[start:end], at most smallParse bytes, as the
// literals and matches of fewest bits. If the record ends at end (last),
// it counts the last symbol's bits up to its last 1: the end of block and
// the flush that follow are zero bits, and a record leaves out the zero
// bytes it ends with (SPEC.md §11.2), so the record costs the bytes up to
// that bit.
func (z *Writer) parseSmall(start, end int, last bool) {
	p := &z.small
	h := z.hist
	n := end - start
	for k := range n {
		c := &p.cands[k]
		n, whole := z.candidates(start+k, end, c, last)
		p.n[k], p.whole[k] = uint8(n), whole
	}
	// A match at k+1 whose byte before matches too is one a byte longer
	// at k, at the same distance, which k's chain may not reach: a TOKEN
	// frame's header and its ID's high byte are in thousands of places
	// (maxChain are tried), the header's last byte and the ID in few.
	for k := n - 2; k >= 0; k-- {
		i := start + k
		for _, m := range p.cands[k+1][:p.n[k+1]] {
			if d := int(m.dist); d <= i && h[i-d] == h[i] {
				p.n[k] = uint8(addMatch(&p.cands[k], int(p.n[k]), match{m.length + 1, m.dist}))
			}
		}
	}
	p.cost[n] = 0
	for k := n - 1; k >= 0; k-- {
		c := h[start+k]
		var lb uint32
		if last && k == n-1 {
			lb = uint32(max(bits.Len16(fixedLitCode[c]), int(fixedLitLen[c])-keptZeros))
		} else {
			lb = uint32(fixedLitLen[c])
		}
		best, pick := lb+p.cost[k+1], match{}
		shorter := minLength - 1
		for _, m := range p.cands[k][:p.n[k]] {
			d := int(m.dist)
			dc := distCode(d)
			db := uint32(5 + distExtra[dc])
			for l := shorter + 1; l <= int(m.length); l++ {
				var b uint32
				dist := m.dist
				if last && k+l == n {
					b = uint32(lastMatchBits(l, d))
					// The nearest is not always the cheapest here: a
					// farther match to the end whose extra bits end in
					// zeros has fewer bits up to its last 1.
					if w := p.whole[k]; w != 0 {
						if wb := uint32(lastMatchBits(l, int(w))); wb < b {
							b, dist = wb, w
						}
					}
				} else {
					b = uint32(lengthBits[l]) + db + p.cost[k+l]
				}
				if b < best {
					best, pick = b, match{uint16(l), dist}
				}
			}
			shorter = int(m.length)
		}
		p.cost[k], p.pick[k] = best, pick
	}
	for k := 0; k < n; {
		m := p.pick[k]
		if m.length == 0 {
			z.bw.Literal(h[start+k])
			k++
			continue
		}
		z.bw.Match(int(m.length), int(m.dist))
		k += int(m.length)
	}
	z.insertUpTo(end)
}

// lastMatchBits returns the bits of a match up to its last 1, as Match
// writes it: the bits after are zeros a record leaves out when it ends
// there.
func lastMatchBits(length, dist int) int {
	l, d := lengthCode(length), distCode(dist)
	s := 257 + l
	v := uint64(fixedLitCode[s]) | uint64(length-int(lengthBase[l]))<<fixedLitLen[s]
	n := uint(fixedLitLen[s]) + uint(lengthExtra[l])
	v |= (uint64(fixedDistCode[d]) | uint64(dist-int(distBase[d]))<<5) << n
	return max(bits.Len64(v), int(n)+5+int(distExtra[d])-keptZeros)
}

// wholeChain is how many more positions of a hash chain candidates
// tries, past the nearest match to a record's end, for one of fewer bits
// up to its last 1: a walk to maxChain at every token of a response sent a
// token a flush, in TOKEN frames, cost a record 40-70 % more CPU.
const wholeChain = 8

// keptZeros is how many of a record's last symbol's zero bits it keeps
// even so: Flush leaves out 2 zero bytes at most, and the end of block and
// the flush after that symbol are 10 zero bits, so 6 of its own may have
// to stay to make the 16.
const keptZeros = 6

// candidates puts in c the matches for hist[i:end] that parseSmall
// weighs, and returns how many: a 3-byte match from i's 3-byte head, when
// it is nearer than the others, then walking i's hash chain nearest first,
// each match longer than all nearer ones (the nearest match of each length
// is the cheapest). With last, the record ends at end, and a match to end
// is priced by its bits up to its last 1, which a farther one may have
// fewer of (distance 97's 5 extra bits are zeros, 41's end in a 1): the
// walk goes on past the nearest such match, wholeChain positions at
// most, and whole is the distance of the one of fewest, or 0. It puts i
// in the chains, as find does.
func (z *Writer) candidates(i, end int, c *[smallParse - minLength + 1]match, last bool) (n int, whole uint16) {
	h := z.hist
	left := end - i
	if left < minLength {
		return 0, 0
	}
	pos := z.base + uint32(i)
	var h3 uint32
	if left >= minMatch {
		h3 = hash3(h[i:])
	} else {
		// hash3 of the 3 bytes left: it reads 4 and drops the last.
		h3 = (uint32(h[i]) | uint32(h[i+1])<<8 | uint32(h[i+2])<<16) << 8 * 2654435761 >> (32 - hash3Bits)
	}
	c3 := z.head3[h3] // before i goes in
	near := window    // the nearest match of 4 or more
	wholeBits := 0    // whole's bits up to the last 1
	if left >= minMatch {
		z.insertUpTo(i)
		h4 := hash4(h[i:])
		head := z.head[h4]
		cur := h[i:end]
		best := minMatch - 1
		tail := binary.LittleEndian.Uint32(cur[best-3:])
		reach := min(window-2, i)
		d := int(pos - (head - 1))
		for k := 0; head != 0 && k < maxChain && uint(d-1) < uint(reach); k++ {
			j := i - d
			if binary.LittleEndian.Uint32(h[j+best-3:]) == tail {
				if m := matchLen(h[j:j+left], cur); m > best {
					near = min(near, d)
					best = m
					c[n] = match{uint16(m), uint16(d)}
					n++
					if m == left {
						if !last {
							break
						}
						whole, wholeBits = uint16(d), lastMatchBits(m, d)
						if wholeBits <= lastMatchBits(m, 1) {
							break // distance 1's are the fewest any distance has
						}
						k = max(k, maxChain-wholeChain-1)
					} else {
						tail = binary.LittleEndian.Uint32(cur[best-3:])
					}
				} else if m == left && whole != 0 {
					if b := lastMatchBits(m, d); b < wholeBits {
						whole, wholeBits = uint16(d), b
					}
				}
			}
			step := int(z.prev[(pos-uint32(d))%window])
			if step == 0 {
				break
			}
			d += step
		}
		if z.hashed == i {
			z.put(i, pos, h3, h4, head)
		}
	}
	// The 4th byte, if there is one, does not match (or the chain would
	// have had it first).
	if d := int(pos - (c3 - 1)); c3 != 0 && d > 0 && d < near && d <= i && h[i-d] == h[i] && h[i-d+1] == h[i+1] && h[i-d+2] == h[i+2] {
		for x := n; x > 0; x-- {
			c[x] = c[x-1]
		}
		c[0] = match{minLength, uint16(d)}
		n++
	}
	return n, whole
}

// addMatch adds m to the n matches of c, by distance and by length both
// increasing, unless a match as near is as long, and drops those m makes
// no better than it; it returns how many there are. Their lengths differ,
// so c holds them all.
func addMatch(c *[smallParse - minLength + 1]match, n int, m match) int {
	k := 0
	for k < n && c[k].dist < m.dist {
		k++
	}
	if k > 0 && c[k-1].length >= m.length || k < n && c[k].dist == m.dist && c[k].length >= m.length {
		return n
	}
	// c[k:j] are as far or farther and no longer: m takes their place.
	j := k
	for j < n && c[j].length <= m.length {
		j++
	}
	if j == k {
		for x := n; x > k; x-- {
			c[x] = c[x-1]
		}
		c[k] = m
		return n + 1
	}
	c[k] = m
	return k + 1 + copy(c[k+1:], c[j:n])
}
