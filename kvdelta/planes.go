package kvdelta

import (
	"encoding/binary"

	"github.com/layer0/anth/tiling"
)

// The plane transform (SPEC.md §10.4). An element of w bytes is split into
// w byte planes, most significant byte first, K and V apart. For w ≥ 2 the
// top bits of the two most significant bytes are swapped first: in bf16
// and fp32 that trades the sign (top of byte 0) for the exponent's lowest
// bit (top of byte 1), so plane 0 holds exactly the exponent's 8 bits, where
// nearly all the redundancy is, and the near-random sign joins the mantissa
// (fp16's plane 0 gets the same bits rotation would give it). The swap is
// its own inverse and, unlike a rotation, costs two masks per byte lane.

// swap exchanges the top bits of the bytes in a and b, lane by lane.
func swap(a, b uint64) (uint64, uint64) {
	return a&^lanesHi | b&lanesHi, b&^lanesHi | a&lanesHi
}

const lanesHi = 0x8080808080808080

// split splits src, a sequence of blocks of block bytes alternating K and
// V (whole tiles, or the gathered rows of a ROWS record), into planes:
// planes[kv*w+b] holds byte b of every element of every K (kv=0) or V
// (kv=1) block. Each plane must have room for its elements.
func split(w, block int, src []byte, dst [][]byte) {
	var at [2]int // element cursor per K/V
	for off := 0; off < len(src); off += block {
		kv := (off / block) & 1
		b := src[off : off+block]
		n := len(b) / w
		i := at[kv]
		switch w {
		case 1:
			copy(dst[kv][i:i+n], b)
		case 2:
			split2(b, dst[2*kv][i:i+n], dst[2*kv+1][i:i+n])
		case 4:
			p0, p1, p2, p3 := dst[4*kv][i:i+n], dst[4*kv+1][i:i+n], dst[4*kv+2][i:i+n], dst[4*kv+3][i:i+n]
			for j := range p0 {
				q := b[4*j : 4*j+4]
				p0[j], p1[j] = q[3]&0x7F|q[2]&0x80, q[2]&0x7F|q[3]&0x80
				p2[j], p3[j] = q[1], q[0]
			}
		}
		at[kv] = i + n
	}
}

// merge is the inverse of split, from planes held in spools: it writes the
// blocks of dst (block bytes each, K and V alternating) from planes[kv*w+b].
// The spools have pieces of one size and start at a piece, so a run of
// elements that stays in one piece of one plane does in every plane.
func merge(w, block int, planes []spool, dst []byte) {
	piece := planes[0].piece
	var at [2]int
	var p [4][]byte
	for off := 0; off < len(dst); off += block {
		kv := (off / block) & 1
		out := dst[off : off+block]
		for i := at[kv]; len(out) > 0; {
			k := min(len(out)/w, piece-i%piece)
			for b := range w {
				p[b] = planes[kv*w+b].at(i, k)
			}
			mergeRun(w, p[:w], out[:k*w])
			out, i = out[k*w:], i+k
		}
		at[kv] += block / w
	}
}

// mergeRun writes the elements whose bytes are in p (one slice per plane)
// into out.
func mergeRun(w int, p [][]byte, out []byte) {
	switch w {
	case 1:
		copy(out, p[0])
	case 2:
		merge2(p[0], p[1], out)
	case 4:
		p0, p1, p2, p3 := p[0], p[1][:len(p[0])], p[2][:len(p[0])], p[3][:len(p[0])]
		for j := range p0 {
			q := out[4*j : 4*j+4]
			q[3], q[2] = p0[j]&0x7F|p1[j]&0x80, p1[j]&0x7F|p0[j]&0x80
			q[1], q[0] = p2[j], p3[j]
		}
	}
}

// moveRows moves the token rows [from, to) of every block of tile (K and V of
// every layer) to or from dense, where they lie block after block.
func moveRows(g tiling.Geometry, tile, dense []byte, from, to int, toDense bool) {
	size := g.Layout().Size()
	at := 0
	for blk := range g.Layers * 2 {
		b := tile[blk*g.BlockBytes() : (blk+1)*g.BlockBytes()]
		for i := range g.RowRuns() {
			off, n := g.RowRun(size, from, to, i)
			if toDense {
				copy(dense[at:at+n], b[off:off+n])
			} else {
				copy(b[off:off+n], dense[at:at+n])
			}
			at += n
		}
	}
}

// split2 splits little-endian 2-byte elements in b into planes p0 (high
// bytes) and p1 (low bytes), top bits swapped, 8 elements a step. The
// three-index slices let the compiler drop the bounds checks from the loop.
func split2(b, p0, p1 []byte) {
	n := len(p0) &^ 7
	p1 = p1[:len(p0)]
	b = b[:2*len(p0)]
	for j := 0; j < n; j += 8 {
		q := b[2*j : 2*j+16 : 2*j+16]
		x := binary.LittleEndian.Uint64(q)
		y := binary.LittleEndian.Uint64(q[8:])
		hi, lo := swap(unzip(x>>8)|unzip(y>>8)<<32, unzip(x)|unzip(y)<<32)
		binary.LittleEndian.PutUint64(p0[j:j+8:j+8], hi)
		binary.LittleEndian.PutUint64(p1[j:j+8:j+8], lo)
	}
	for j := n; j < len(p0); j++ {
		hi, lo := b[2*j+1], b[2*j]
		p0[j], p1[j] = hi&0x7F|lo&0x80, lo&0x7F|hi&0x80
	}
}

// merge2 is the inverse of split2.
func merge2(p0, p1, b []byte) {
	n := len(p0) &^ 7
	p1 = p1[:len(p0)]
	b = b[:2*len(p0)]
	for j := 0; j < n; j += 8 {
		hi, lo := swap(binary.LittleEndian.Uint64(p0[j:j+8:j+8]), binary.LittleEndian.Uint64(p1[j:j+8:j+8]))
		q := b[2*j : 2*j+16 : 2*j+16]
		binary.LittleEndian.PutUint64(q, zip(lo)|zip(hi)<<8)
		binary.LittleEndian.PutUint64(q[8:], zip(lo>>32)|zip(hi>>32)<<8)
	}
	for j := n; j < len(p0); j++ {
		hi, lo := p0[j], p1[j]
		b[2*j+1], b[2*j] = hi&0x7F|lo&0x80, lo&0x7F|hi&0x80
	}
}

// zip spreads the 4 low bytes of x to the even bytes of the result.
func zip(x uint64) uint64 {
	x = uint64(uint32(x))
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	return (x | x<<8) & 0x00FF00FF00FF00FF
}

// unzip gathers the even bytes of x into its 4 low bytes.
func unzip(x uint64) uint64 {
	x &= 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	return (x | x>>16) & 0xFFFFFFFF
}
