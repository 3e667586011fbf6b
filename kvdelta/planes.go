package kvdelta

import "github.com/layer0/anth/tiling"

// planes splits the tiles in src (whole tiles of g) into byte planes:
// planes[kv*w+b] holds byte b (0 = most significant) of every element of
// every K (kv=0) or V (kv=1) block, each element first rotated left by one
// bit so that the sign goes to the bottom and, for bf16 and fp32, the
// exponent fills the top byte. dst must hold 2*w planes of the right size.
func split(g tiling.Geometry, src []byte, dst [][]byte) {
	w := g.DType.Size()
	block := g.BlockBytes()
	var at [2]int // element cursor per K/V
	for off := 0; off < len(src); off += block {
		kv := (off / block) & 1
		b := src[off : off+block]
		n := len(b) / w
		i := at[kv]
		switch w {
		case 1:
			p := dst[kv][i : i+n]
			for j, c := range b {
				p[j] = c<<1 | c>>7
			}
		case 2:
			p0, p1 := dst[2*kv][i:i+n], dst[2*kv+1][i:i+n]
			for j := range p0 {
				u := uint16(b[2*j]) | uint16(b[2*j+1])<<8
				u = u<<1 | u>>15
				p0[j], p1[j] = byte(u>>8), byte(u)
			}
		case 4:
			p0, p1, p2, p3 := dst[4*kv][i:i+n], dst[4*kv+1][i:i+n], dst[4*kv+2][i:i+n], dst[4*kv+3][i:i+n]
			for j := range p0 {
				q := b[4*j : 4*j+4]
				u := uint32(q[0]) | uint32(q[1])<<8 | uint32(q[2])<<16 | uint32(q[3])<<24
				u = u<<1 | u>>31
				p0[j], p1[j], p2[j], p3[j] = byte(u>>24), byte(u>>16), byte(u>>8), byte(u)
			}
		}
		at[kv] = i + n
	}
}

// merge is the inverse of split: it writes the tiles of planes into dst.
func merge(g tiling.Geometry, planes [][]byte, dst []byte) {
	w := g.DType.Size()
	block := g.BlockBytes()
	var at [2]int
	for off := 0; off < len(dst); off += block {
		kv := (off / block) & 1
		b := dst[off : off+block]
		n := len(b) / w
		i := at[kv]
		switch w {
		case 1:
			p := planes[kv][i : i+n]
			for j, c := range p {
				b[j] = c>>1 | c<<7
			}
		case 2:
			p0, p1 := planes[2*kv][i:i+n], planes[2*kv+1][i:i+n]
			for j := range p0 {
				u := uint16(p0[j])<<8 | uint16(p1[j])
				u = u>>1 | u<<15
				b[2*j], b[2*j+1] = byte(u), byte(u>>8)
			}
		case 4:
			p0, p1, p2, p3 := planes[4*kv][i:i+n], planes[4*kv+1][i:i+n], planes[4*kv+2][i:i+n], planes[4*kv+3][i:i+n]
			for j := range p0 {
				u := uint32(p0[j])<<24 | uint32(p1[j])<<16 | uint32(p2[j])<<8 | uint32(p3[j])
				u = u>>1 | u<<31
				q := b[4*j : 4*j+4]
				q[0], q[1], q[2], q[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
			}
		}
		at[kv] = i + n
	}
}

// planeSize returns the bytes of each plane for count tiles.
func planeSize(g tiling.Geometry, count int) int {
	return count * g.TileBytes() / 2 / g.DType.Size()
}
