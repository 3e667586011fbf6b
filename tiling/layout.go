package tiling

import "math/bits"

// MaxShift is the largest Layout.Shift: tiles of up to 2^24 tokens.
const MaxShift = 24

// Layout is the tiling of a sequence's positions: tiles of 1<<Shift tokens.
// It is a value with no state; its methods are a shift or a mask.
type Layout struct {
	Shift uint8
}

// NewLayout returns the Layout for tiles of size tokens, which must be a
// power of two no larger than 1<<MaxShift.
func NewLayout(size int) (Layout, error) {
	if size <= 0 || size&(size-1) != 0 || size > 1<<MaxShift {
		return Layout{}, errf("NewLayout", int64(size), ErrRange)
	}
	return Layout{Shift: uint8(bits.TrailingZeros(uint(size)))}, nil
}

// Check reports whether l.Shift is at most MaxShift.
func (l Layout) Check() error {
	if l.Shift > MaxShift {
		return errf("Layout", int64(l.Shift), ErrRange)
	}
	return nil
}

// Size returns the tokens in one tile.
func (l Layout) Size() int { return 1 << l.Shift }

// Mask returns Size()-1: pos&Mask() is the offset within a tile.
func (l Layout) Mask() int { return 1<<l.Shift - 1 }

// Tile returns the tile holding position pos and the offset in it. It
// panics if pos is negative, as indexing with it would.
func (l Layout) Tile(pos int) (tile, offset int) {
	if pos < 0 {
		panic("tiling: negative position")
	}
	return pos >> l.Shift, pos & l.Mask()
}

// Pos is the inverse of Tile. It panics if tile is negative or offset is not
// within a tile, as indexing would.
func (l Layout) Pos(tile, offset int) int {
	if tile < 0 || uint(offset) >= uint(l.Size()) {
		panic("tiling: tile or offset out of range")
	}
	return tile<<l.Shift | offset
}

// Tiles returns how many tiles hold n tokens: n/Size() rounded up. It
// panics if n is negative, as make does.
func (l Layout) Tiles(n int) int {
	if n < 0 {
		panic("tiling: negative token count")
	}
	t := n >> l.Shift
	if n&l.Mask() != 0 {
		t++
	}
	return t
}

// Capacity returns the tokens that Tiles(n) tiles hold: n rounded up to a
// whole tile, the reservation this package recommends.
func (l Layout) Capacity(n int) int { return l.Tiles(n) << l.Shift }

// Waste returns Capacity(n)-n: the tokens reserved for n and not used,
// always less than one tile.
func (l Layout) Waste(n int) int { return l.Capacity(n) - n }

// RoundPow2 returns the seed design's reservation for n tokens: the
// smallest power of two that is at least n and at least one tile. It is kept
// for compatibility and should not be used to size caches: it wastes up to
// half of what it reserves (n = 2^k+1 reserves 2^(k+1)), where Capacity
// wastes less than one tile. It panics if n is negative or above 1<<62.
func (l Layout) RoundPow2(n int) int {
	if n < 0 || n > 1<<62 {
		panic("tiling: RoundPow2 size out of range")
	}
	if n <= l.Size() {
		return l.Size()
	}
	return 1 << bits.Len(uint(n-1))
}

// CheckChunk reports whether a chunk of chunk tokens (the unit a cache
// store moves, such as LMCache's chunk) is a positive multiple of the tile
// size, so that chunks and tiles line up.
func (l Layout) CheckChunk(chunk int) error {
	if chunk <= 0 || chunk&l.Mask() != 0 {
		return errf("Layout.CheckChunk", int64(chunk), ErrChunk)
	}
	return nil
}
