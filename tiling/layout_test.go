package tiling

import (
	"errors"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func genLayout() *rapid.Generator[Layout] {
	return rapid.Custom(func(t *rapid.T) Layout {
		return Layout{TileShift: uint8(rapid.IntRange(0, MaxTileShift).Draw(t, "shift"))}
	})
}

func TestLayoutProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := genLayout().Draw(t, "layout")
		pos := rapid.IntRange(0, 1<<50).Draw(t, "pos")
		tile, off := l.Tile(pos)
		if l.Pos(tile, off) != pos || off < 0 || off >= l.Size() {
			t.Fatalf("Pos(Tile(%d)) = %d (tile %d, offset %d)", pos, l.Pos(tile, off), tile, off)
		}
		if tile != pos/l.Size() || off != pos%l.Size() {
			t.Fatalf("Tile(%d) disagrees with division", pos)
		}
		n := rapid.IntRange(0, 1<<50).Draw(t, "n")
		tiles := l.Tiles(n)
		if tiles != (n+l.Size()-1)/l.Size() {
			t.Fatalf("Tiles(%d) = %d", n, tiles)
		}
		if w := l.Waste(n); w < 0 || w >= l.Size() || l.Capacity(n) != n+w {
			t.Fatalf("Waste(%d) = %d, capacity %d", n, w, l.Capacity(n))
		}
		p2 := l.RoundPow2(n)
		if p2 < n || p2 < l.Size() || p2&(p2-1) != 0 || (p2 > l.Size() && p2/2 >= n) {
			t.Fatalf("RoundPow2(%d) = %d", n, p2)
		}
	})
}

func TestNewLayout(t *testing.T) {
	for _, size := range []int{1, 2, 16, 256, 1 << MaxTileShift} {
		l, err := NewLayout(size)
		if err != nil || l.Size() != size {
			t.Errorf("NewLayout(%d) = %v, %v", size, l, err)
		}
	}
	for _, size := range []int{0, -16, 3, 48, 1 << (MaxTileShift + 1)} {
		if _, err := NewLayout(size); !errors.Is(err, ErrRange) {
			t.Errorf("NewLayout(%d): %v, want ErrRange", size, err)
		}
	}
	if err := (Layout{TileShift: MaxTileShift + 1}).Check(); !errors.Is(err, ErrRange) {
		t.Errorf("Check of shift %d: %v", MaxTileShift+1, err)
	}
	if err := (Layout{TileShift: MaxTileShift}).Check(); err != nil {
		t.Errorf("Check of shift %d: %v", MaxTileShift, err)
	}
}

func TestCheckChunk(t *testing.T) {
	for _, c := range []struct {
		shift uint8
		chunk int
		ok    bool
	}{
		{4, 16, true}, {4, 256, true}, {4, 128, true}, {4, 0, false}, {4, -16, false}, {4, 8, false}, {4, 100, false},
		{4, 1, false}, {0, 1, true}, {0, 3, true}, {MaxTileShift, 1 << MaxTileShift, true}, {MaxTileShift, 1 << (MaxTileShift - 1), false},
	} {
		err := Layout{TileShift: c.shift}.CheckChunk(c.chunk)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrChunk)) {
			t.Errorf("shift %d: CheckChunk(%d) = %v", c.shift, c.chunk, err)
		}
	}
}

func TestLayoutPanics(t *testing.T) {
	l := Layout{TileShift: 4}
	for name, f := range map[string]func(){
		"Tile(-1)":        func() { l.Tile(-1) },
		"Pos(0, 16)":      func() { l.Pos(0, 16) },
		"Pos(-1, 0)":      func() { l.Pos(-1, 0) },
		"Tiles(-1)":       func() { l.Tiles(-1) },
		"RoundPow2(-1)":   func() { l.RoundPow2(-1) },
		"RoundPow2(huge)": func() { l.RoundPow2(1<<62 + 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

// TestLayoutOverMaxTileShift: a Layout whose shift is over MaxTileShift is
// reported by Check and panics everywhere else, promptly: it never maps a
// position with a shift that makes tiles of no tokens (or of more than an int
// holds), and never loops on one.
func TestLayoutOverMaxTileShift(t *testing.T) {
	for _, shift := range []uint8{MaxTileShift + 1, 63, 64, 255} {
		l := Layout{TileShift: shift}
		if err := l.Check(); !errors.Is(err, ErrRange) {
			t.Errorf("shift %d: Check() = %v, want ErrRange", shift, err)
		}
		for name, f := range map[string]func(){
			"Size":             func() { l.Size() },
			"Mask":             func() { l.Mask() },
			"Tile":             func() { l.Tile(999) },
			"Pos":              func() { l.Pos(0, 0) },
			"Tiles":            func() { l.Tiles(999) },
			"Capacity":         func() { l.Capacity(999) },
			"Waste":            func() { l.Waste(999) },
			"RoundPow2":        func() { l.RoundPow2(999) },
			"CheckChunk":       func() { _ = l.CheckChunk(16) },
			"NewTable":         func() { NewTable(l) },
			"AppendTileHashes": func() { AppendTileHashes(nil, l, Root(nil), []uint32{1, 2, 3}) },
		} {
			done := make(chan any, 1)
			go func() {
				defer func() { done <- recover() }()
				f()
			}()
			select {
			case p := <-done:
				if p == nil {
					t.Errorf("shift %d: %s did not panic", shift, name)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("shift %d: %s still running after 5 s", shift, name)
			}
		}
	}
}

// TestRoundPow2Edges: RoundPow2 takes n up to 1<<62 inclusive, and a power
// of two at least a tile is its own reservation.
func TestRoundPow2Edges(t *testing.T) {
	for _, c := range []struct {
		shift uint8
		n     int
		want  int
	}{
		{0, 0, 1}, {0, 1, 1}, {0, 2, 2}, {0, 3, 4}, {4, 0, 16}, {4, 16, 16}, {4, 17, 32}, {4, 32, 32},
		{MaxTileShift, 1 << MaxTileShift, 1 << MaxTileShift}, {0, 1<<62 - 1, 1 << 62}, {4, 1 << 62, 1 << 62},
	} {
		if got := (Layout{TileShift: c.shift}).RoundPow2(c.n); got != c.want {
			t.Errorf("shift %d: RoundPow2(%d) = %d, want %d", c.shift, c.n, got, c.want)
		}
	}
}
