package kvdelta

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/layer0/anth/tiling"
)

// seqGen produces one sequence's KV with the statistics of real caches:
// each channel has its own scale, a few outlier channels are far larger, K
// and V differ. Position p's values depend only on (seed, p), so snapshots
// of one sequence at different lengths share their prefix bit for bit.
type seqGen struct {
	g      tiling.Geometry
	seed   uint64
	scale  []float64 // per (layer, kv, head, dim)
	tokens []uint32
}

func newSeqGen(g tiling.Geometry, seed uint64) *seqGen {
	rng := rand.New(rand.NewPCG(seed, 99))
	s := &seqGen{g: g, seed: seed, scale: make([]float64, g.Layers*2*g.KVHeads*g.HeadDim)}
	for i := range s.scale {
		s.scale[i] = math.Exp(rng.NormFloat64() * 0.7)
		if rng.IntN(40) == 0 {
			s.scale[i] *= 20 // an outlier channel
		}
		if (i/(g.KVHeads*g.HeadDim))%2 == 1 {
			s.scale[i] *= 0.3 // V runs smaller than K
		}
	}
	return s
}

func (s *seqGen) token(p int) uint32 {
	for len(s.tokens) <= p {
		s.tokens = append(s.tokens, uint32(rand.New(rand.NewPCG(s.seed, uint64(len(s.tokens)))).IntN(128_000)))
	}
	return s.tokens[p]
}

// snapshot returns the first n tokens as a snapshot; hashes when hashed.
func (s *seqGen) snapshot(n int, hashed bool) *Snapshot {
	g := s.g
	snap := &Snapshot{Geometry: g, Tokens: n, Data: make([]byte, g.Layout().Tiles(n)*g.TileBytes())}
	w := g.DType.Size()
	for p := range n {
		rng := rand.New(rand.NewPCG(s.seed, uint64(p)+1<<32))
		tile, off := g.Layout().Tile(p)
		for layer := range g.Layers {
			for kv := range 2 {
				for h := range g.KVHeads {
					for d := range g.HeadDim {
						x := rng.NormFloat64() * s.scale[((layer*2+kv)*g.KVHeads+h)*g.HeadDim+d]
						putElem(snap.Data[g.Offset(layer, kv, h, tile, off, d):], g.DType, x, w)
					}
				}
			}
		}
	}
	if hashed {
		ids := make([]uint32, n)
		for p := range ids {
			ids[p] = s.token(p)
		}
		snap.Hashes = tiling.AppendTileHashes([]tiling.Hash{}, g.Layout(), tiling.Root(nil), ids)
	}
	return snap
}

func putElem(b []byte, d tiling.DType, x float64, w int) {
	switch d {
	case tiling.FP32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(x)))
	case tiling.BF16:
		binary.LittleEndian.PutUint16(b, BF16(float32(x)))
	case tiling.FP16:
		binary.LittleEndian.PutUint16(b, FP16(float32(x)))
	default: // fp8: a plausible byte with a skewed exponent
		e := int(math.Log2(math.Abs(x)+1e-9)) + 7
		b[0] = byte(max(0, min(15, e)))<<3 | byte(int(math.Abs(x)*8)&7)
		if x < 0 {
			b[0] |= 0x80
		}
	}
	_ = w
}
