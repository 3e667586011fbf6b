package kvdelta

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/layer0/anth/tiling"
)

// FromRaw lays a raw KV dump out as a Snapshot. The dump is little-endian
// elements of g.DType in sequence order: [layer][K,V][token][kv_head]
// [head_dim] when g.Order is NHD, [layer][K,V][kv_head][token][head_dim]
// when HND. The token count is derived from its length.
func FromRaw(g tiling.Geometry, raw []byte) (*Snapshot, error) {
	if err := g.Check(); err != nil {
		return nil, inputErr("geometry: " + err.Error())
	}
	per := g.Layers * 2 * g.TokenBytes() // bytes per token, all layers
	if len(raw)%per != 0 {
		return nil, inputErr("dump of " + strconv.Itoa(len(raw)) + " bytes is not a whole number of " + strconv.Itoa(per) + "-byte tokens")
	}
	s := &Snapshot{Geometry: g, Tokens: len(raw) / per}
	s.Data = make([]byte, s.Tiles()*g.TileBytes())
	copyRaw(g, s.Tokens, raw, s.Data, true)
	return s, nil
}

// AppendRaw appends s as a raw dump (the format FromRaw reads) to dst.
func (s *Snapshot) AppendRaw(dst []byte) []byte {
	g := s.Geometry
	n := len(dst)
	dst = append(dst, make([]byte, s.Tokens*g.Layers*2*g.TokenBytes())...)
	copyRaw(g, s.Tokens, dst[n:], s.Data, false)
	return dst
}

// copyRaw moves tokens between a raw dump and tiles, in the direction
// toTiles says: a dump is, for each layer's K and V, one block of every token
// (tiling.Geometry.RowRun lays both out).
func copyRaw(g tiling.Geometry, tokens int, raw, tiles []byte, toTiles bool) {
	size := g.Layout().Size()
	blockRaw := tokens * g.TokenBytes() // one layer's K (or V) in the dump
	for blk := range g.Layers * 2 {
		r := raw[blk*blockRaw : (blk+1)*blockRaw]
		for tile, p := 0, 0; p < tokens; tile, p = tile+1, p+size {
			n := min(size, tokens-p)
			b := tiles[tile*g.TileBytes()+blk*g.BlockBytes():]
			for i := range g.RowRuns() {
				ro, rn := g.RowRun(tokens, p, p+n, i)
				to, _ := g.RowRun(size, 0, n, i)
				if toTiles {
					copy(b[to:to+rn], r[ro:ro+rn])
				} else {
					copy(r[ro:ro+rn], b[to:to+rn])
				}
			}
		}
	}
}

// ConvertFP32 converts a little-endian float32 dump to bf16 or fp16,
// rounding to nearest even.
func ConvertFP32(raw []byte, to tiling.DType) ([]byte, error) {
	if len(raw)%4 != 0 || (to != tiling.BF16 && to != tiling.FP16) {
		return nil, inputErr("ConvertFP32 takes whole float32s to bf16 or fp16")
	}
	out := make([]byte, len(raw)/2)
	for i := range len(raw) / 4 {
		f := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		v := BF16(f)
		if to == tiling.FP16 {
			v = FP16(f)
		}
		binary.LittleEndian.PutUint16(out[2*i:], v)
	}
	return out, nil
}

// BF16 returns f rounded to bfloat16, to nearest even (NaNs stay NaN).
func BF16(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40
	}
	return uint16((b + 0x7FFF + (b>>16)&1) >> 16)
}

// FP16 returns f rounded to IEEE half precision, to nearest even;
// magnitudes past the largest half overflow to infinity.
func FP16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xFF) - 127 + 15
	mant := b & 0x7FFFFF
	switch {
	case b&0x7FFFFFFF > 0x7F800000: // NaN
		return sign | 0x7E00
	case exp >= 31:
		return sign | 0x7C00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		half := uint32(1) << (shift - 1)
		r := mant >> shift
		if rem := mant & (1<<shift - 1); rem > half || rem == half && r&1 == 1 {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(exp)<<10 | mant>>13
	if rem := mant & 0x1FFF; rem > 0x1000 || rem == 0x1000 && r&1 == 1 {
		r++ // may carry into the exponent, and to infinity: both correct
	}
	return sign | uint16(r)
}
