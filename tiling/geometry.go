package tiling

import "strconv"

// DType is the element type of a KV cache.
type DType uint8

// The element types a KV cache is stored in.
const (
	BF16    DType = 1
	FP16    DType = 2
	FP32    DType = 3
	FP8E4M3 DType = 4
	FP8E5M2 DType = 5
)

// Size returns the bytes of one element, or 0 for an unknown DType.
func (d DType) Size() int {
	switch d {
	case BF16, FP16:
		return 2
	case FP32:
		return 4
	case FP8E4M3, FP8E5M2:
		return 1
	}
	return 0
}

var dtypeNames = [...]string{BF16: "bf16", FP16: "fp16", FP32: "fp32", FP8E4M3: "fp8e4m3", FP8E5M2: "fp8e5m2"}

// String returns the conventional lower-case name ("bf16", …).
func (d DType) String() string {
	if int(d) < len(dtypeNames) && dtypeNames[d] != "" {
		return dtypeNames[d]
	}
	return "dtype(" + strconv.Itoa(int(d)) + ")"
}

// ParseDType returns the DType named name.
func ParseDType(name string) (DType, bool) {
	for i, n := range dtypeNames {
		if n != "" && n == name {
			return DType(i), true
		}
	}
	return 0, false
}

// Order is the layout of one layer's K (or V) inside a tile.
type Order uint8

const (
	// NHD is token-major: [token][kv_head][head_dim], as vLLM and
	// FlashInfer's default lay out pages.
	NHD Order = 0
	// HND is head-major: [kv_head][token][head_dim], so that one head's
	// tokens are contiguous.
	HND Order = 1
)

// String returns "nhd" or "hnd".
func (o Order) String() string {
	switch o {
	case NHD:
		return "nhd"
	case HND:
		return "hnd"
	}
	return "order(" + strconv.Itoa(int(o)) + ")"
}

// K and V select the key or the value half of a layer.
const (
	K = 0
	V = 1
)

// maxTileBytes bounds a tile so that offsets of a pool of 2^31 tiles stay
// far from overflow on 64-bit platforms and a tile stays addressable.
const maxTileBytes = 1 << 34

// Geometry describes a KV cache stored in tiles: physical tile t holds
// bytes [t*TileBytes(), (t+1)*TileBytes()) of a flat buffer, and inside a
// tile the data is [layer][K,V] blocks, each laid out by Order. So a tile
// is one contiguous range — the unit allocated, hashed, compressed and sent.
// Its methods other than Check compute without checking: they are for a
// Geometry that passes Check.
type Geometry struct {
	Layers    int
	KVHeads   int
	HeadDim   int
	DType     DType
	TileShift uint8
	Order     Order
}

// Check reports whether g describes a usable cache: positive dimensions, a
// known DType and Order, a valid tile shift, and a tile of at most 16 GiB.
func (g Geometry) Check() error {
	for _, v := range []int{g.Layers, g.KVHeads, g.HeadDim} {
		if v <= 0 || v > 1<<20 {
			return errf("Geometry", int64(v), ErrRange)
		}
	}
	if g.DType.Size() == 0 {
		return errf("Geometry.DType", int64(g.DType), ErrRange)
	}
	if g.Order > HND {
		return errf("Geometry.Order", int64(g.Order), ErrRange)
	}
	if err := g.Layout().Check(); err != nil {
		return err
	}
	// Each factor is at most 2^24, so check the product step by step.
	n := int64(g.Layers) * 2 * int64(g.KVHeads)
	for _, f := range []int64{int64(g.HeadDim), int64(g.DType.Size()), int64(1) << g.TileShift} {
		if n *= f; n > maxTileBytes {
			return errf("Geometry.TileBytes", n, ErrRange)
		}
	}
	return nil
}

// Layout returns the tiling of positions.
func (g Geometry) Layout() Layout { return Layout{TileShift: g.TileShift} }

// TokenBytes returns the bytes one token takes in one layer's K (or V).
func (g Geometry) TokenBytes() int { return g.KVHeads * g.HeadDim * g.DType.Size() }

// BlockBytes returns the bytes of one layer's K (or V) in one tile.
func (g Geometry) BlockBytes() int { return g.TokenBytes() << g.TileShift }

// TileBytes returns the bytes of one tile: every layer's K and V for 2^k
// tokens.
func (g Geometry) TileBytes() int { return g.Layers * 2 * g.BlockBytes() }

// Offset returns the byte offset, in a flat buffer of tiles, of element dim
// of head head for token token (the offset within the tile) of tile tile, in
// layer layer's K or V (kv is K or V). Arguments must be in range; Offset
// does not check them, so that it costs a few multiplications.
func (g Geometry) Offset(layer, kv, head, tile, token, dim int) int {
	var e int // element index within the block
	if g.Order == NHD {
		e = (token*g.KVHeads+head)*g.HeadDim + dim
	} else {
		e = (head<<g.TileShift+token)*g.HeadDim + dim
	}
	return tile*g.TileBytes() + (layer*2+kv)*g.BlockBytes() + e*g.DType.Size()
}

// RowRuns returns how many contiguous runs of bytes a range of tokens takes
// in a block (one layer's K or V): 1 in NHD, where a token's heads are
// adjacent, and KVHeads in HND, where each head's tokens are.
func (g Geometry) RowRuns() int {
	if g.Order == NHD {
		return 1
	}
	return g.KVHeads
}

// RowRun returns the offset and length in bytes of run i (0 ≤ i < RowRuns())
// of tokens [from, to) in a block of tokens tokens laid out by g.Order: a
// tile's block holds 1<<TileShift tokens, a raw dump's block the whole
// sequence. Copying the runs of a token range in order moves it between
// layouts, whatever the block's length.
func (g Geometry) RowRun(tokens, from, to, i int) (off, n int) {
	if g.Order == NHD {
		tb := g.TokenBytes()
		return from * tb, (to - from) * tb
	}
	rb := g.HeadDim * g.DType.Size()
	return (i*tokens + from) * rb, (to - from) * rb
}
