package tiling

import (
	"math/bits"
	"strconv"
)

// MaxTileShift is the largest tile shift: tiles of up to 2^24 tokens.
const MaxTileShift = 24

// Layout is the tiling of a sequence's positions: tiles of 1<<TileShift
// tokens. It is a value with no state; its methods are a shift or a mask.
//
// A TileShift over MaxTileShift is a caller's bug, as an index out of range
// is: Check reports it, and every other method, NewTable and
// AppendTileHashes panic on it rather than compute with a shift that makes a
// tile of no tokens or of more than an int holds.
type Layout struct {
	TileShift uint8
}

// shift returns l.TileShift, or panics if it is over MaxTileShift. The
// panic value is a badShift, whose message is built only if it is printed:
// building it here (strconv.Itoa and a concatenation) or calling a helper
// that does cost shift, Tile, Tiles and Pos their inlining, and Tile 3.4x
// its time (TestInlined checks).
func (l Layout) shift() uint8 {
	if l.TileShift > MaxTileShift {
		panic(badShift(l.TileShift))
	}
	return l.TileShift
}

// badShift is the panic value of a Layout whose TileShift is over
// MaxTileShift: an error, so the runtime prints its message.
type badShift uint8

func (s badShift) Error() string {
	return "tiling: Layout.TileShift " + strconv.Itoa(int(s)) + " is over MaxTileShift"
}

// NewLayout returns the Layout for tiles of size tokens, which must be a
// power of two no larger than 1<<MaxTileShift.
func NewLayout(size int) (Layout, error) {
	if size <= 0 || size&(size-1) != 0 || size > 1<<MaxTileShift {
		return Layout{}, errf("NewLayout", int64(size), ErrRange)
	}
	return Layout{TileShift: uint8(bits.TrailingZeros(uint(size)))}, nil
}

// Check reports whether l.TileShift is at most MaxTileShift.
func (l Layout) Check() error {
	if l.TileShift > MaxTileShift {
		return errf("Layout", int64(l.TileShift), ErrRange)
	}
	return nil
}

// Size returns the tokens in one tile.
func (l Layout) Size() int { return 1 << l.shift() }

// Mask returns Size()-1: pos&Mask() is the offset within a tile.
func (l Layout) Mask() int { return 1<<l.shift() - 1 }

// Tile returns the tile holding position pos and the offset in it. It
// panics if pos is negative, as indexing with it would.
func (l Layout) Tile(pos int) (tile, offset int) {
	if pos < 0 {
		panic("tiling: negative position")
	}
	s := l.shift()
	return pos >> s, pos & (1<<s - 1)
}

// Pos is the inverse of Tile. It panics if tile is negative or offset is not
// within a tile, as indexing would.
func (l Layout) Pos(tile, offset int) int {
	if tile < 0 || uint(offset) >= uint(l.Size()) {
		panic("tiling: tile or offset out of range")
	}
	return tile<<l.shift() | offset
}

// Tiles returns how many tiles hold n tokens: n/Size() rounded up. It
// panics if n is negative, as make does.
func (l Layout) Tiles(n int) int {
	if n < 0 {
		panic("tiling: negative token count")
	}
	s := l.shift()
	t := n >> s
	if n&(1<<s-1) != 0 {
		t++
	}
	return t
}

// Capacity returns the tokens that Tiles(n) tiles hold: n rounded up to a
// whole tile, the reservation this package recommends.
func (l Layout) Capacity(n int) int { return l.Tiles(n) << l.shift() }

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
