package tiling

import (
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// TestGeometryOffsets: every element of a tile has its own offset, inside
// the tile, with the layout the Order names.
func TestGeometryOffsets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := Geometry{
			Layers:    rapid.IntRange(1, 3).Draw(t, "layers"),
			KVHeads:   rapid.IntRange(1, 4).Draw(t, "heads"),
			HeadDim:   rapid.IntRange(1, 8).Draw(t, "dim"),
			DType:     rapid.SampledFrom([]DType{BF16, FP16, FP32, FP8E4M3, FP8E5M2}).Draw(t, "dtype"),
			TileShift: uint8(rapid.IntRange(0, 3).Draw(t, "shift")),
			Order:     rapid.SampledFrom([]Order{NHD, HND}).Draw(t, "order"),
		}
		if err := g.Check(); err != nil {
			t.Fatal(err)
		}
		size := g.DType.Size()
		tile := rapid.IntRange(0, 5).Draw(t, "tile")
		seen := map[int]bool{}
		for layer := range g.Layers {
			for kv := range 2 {
				for head := range g.KVHeads {
					for tok := range g.Layout().Size() {
						for d := range g.HeadDim {
							off := g.Offset(layer, kv, head, tile, tok, d)
							rel := off - tile*g.TileBytes()
							if rel < 0 || rel+size > g.TileBytes() || rel%size != 0 || seen[off] {
								t.Fatalf("offset %d of (%d,%d,%d,%d,%d) out of place", off, layer, kv, head, tok, d)
							}
							seen[off] = true
							// Consecutive dims are adjacent in both orders;
							// the order decides what comes next.
							if d+1 < g.HeadDim && g.Offset(layer, kv, head, tile, tok, d+1) != off+size {
								t.Fatal("head_dim not innermost")
							}
							if g.Order == NHD && head+1 < g.KVHeads && g.Offset(layer, kv, head+1, tile, tok, d) != off+g.HeadDim*size {
								t.Fatal("NHD: heads of a token not adjacent")
							}
							if g.Order == HND && tok+1 < g.Layout().Size() && g.Offset(layer, kv, head, tile, tok+1, d) != off+g.HeadDim*size {
								t.Fatal("HND: tokens of a head not adjacent")
							}
						}
					}
				}
			}
		}
		if len(seen)*size != g.TileBytes() {
			t.Fatalf("%d elements fill %d of %d bytes", len(seen), len(seen)*size, g.TileBytes())
		}
	})
}

func TestGeometryCheck(t *testing.T) {
	good := Geometry{Layers: 32, KVHeads: 8, HeadDim: 128, DType: BF16, TileShift: 4}
	if err := good.Check(); err != nil || good.TileBytes() != 32*2*8*128*2*16 {
		t.Fatalf("Llama-3-8B geometry: %v, %d bytes", err, good.TileBytes())
	}
	for name, g := range map[string]Geometry{
		"no layers":   {KVHeads: 1, HeadDim: 1, DType: BF16},
		"dtype":       {Layers: 1, KVHeads: 1, HeadDim: 1, DType: 9},
		"order":       {Layers: 1, KVHeads: 1, HeadDim: 1, DType: BF16, Order: 2},
		"shift":       {Layers: 1, KVHeads: 1, HeadDim: 1, DType: BF16, TileShift: MaxTileShift + 1},
		"huge tile":   {Layers: 1 << 20, KVHeads: 1 << 20, HeadDim: 1 << 20, DType: FP32, TileShift: MaxTileShift},
		"negative":    {Layers: -1, KVHeads: 1, HeadDim: 1, DType: BF16},
		"too big dim": {Layers: 1, KVHeads: 1, HeadDim: 1<<20 + 1, DType: BF16},
	} {
		if err := g.Check(); !errors.Is(err, ErrRange) {
			t.Errorf("%s: %v, want ErrRange", name, err)
		}
	}
	for _, d := range []DType{BF16, FP16, FP32, FP8E4M3, FP8E5M2} {
		if back, ok := ParseDType(d.String()); !ok || back != d {
			t.Errorf("ParseDType(%q) = %v, %v", d, back, ok)
		}
	}
	for _, c := range []struct {
		d    DType
		name string
		size int
	}{
		{0, "dtype(0)", 0}, {FP8E5M2, "fp8e5m2", 1}, {6, "dtype(6)", 0}, {255, "dtype(255)", 0},
	} {
		if c.d.String() != c.name || c.d.Size() != c.size {
			t.Errorf("DType(%d): %q, size %d; want %q, %d", uint8(c.d), c.d.String(), c.d.Size(), c.name, c.size)
		}
		if _, ok := ParseDType(c.name); ok != (c.size != 0) {
			t.Errorf("ParseDType(%q) ok = %v", c.name, ok)
		}
	}
	if HND.String() != "hnd" || NHD.String() != "nhd" || Order(2).String() != "order(2)" {
		t.Error("order names")
	}
	// The 16 GiB tile bound is inclusive, and holds one step past it either way.
	at := Geometry{Layers: 1 << 9, KVHeads: 8, HeadDim: 128, DType: FP32, TileShift: 12}
	if err := at.Check(); err != nil || at.TileBytes() != 16<<30 {
		t.Errorf("a tile of exactly 16 GiB: %v, %d bytes", err, at.TileBytes())
	}
	for _, over := range []Geometry{
		{Layers: 1<<9 + 1, KVHeads: 8, HeadDim: 128, DType: FP32, TileShift: 12},
		{Layers: 1 << 9, KVHeads: 8, HeadDim: 128, DType: FP32, TileShift: 13},
		{Layers: 1 << 9, KVHeads: 8, HeadDim: 129, DType: FP32, TileShift: 12},
	} {
		if err := over.Check(); !errors.Is(err, ErrRange) {
			t.Errorf("a tile of %d bytes: %v, want ErrRange", int64(over.Layers)*2*int64(over.KVHeads)*int64(over.HeadDim)*4<<over.TileShift, err)
		}
	}
	if err := (Geometry{Layers: 1, KVHeads: 1, HeadDim: 1, DType: BF16, TileShift: MaxTileShift}).Check(); err != nil {
		t.Errorf("shift %d: %v", MaxTileShift, err)
	}
}

// TestRowRuns: the runs of a token range cover exactly its elements, as
// Offset places them, in increasing order.
func TestRowRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := Geometry{
			Layers:    1,
			KVHeads:   rapid.IntRange(1, 4).Draw(t, "heads"),
			HeadDim:   rapid.IntRange(1, 5).Draw(t, "dim"),
			DType:     rapid.SampledFrom([]DType{BF16, FP32, FP8E4M3}).Draw(t, "dtype"),
			TileShift: uint8(rapid.IntRange(0, 3).Draw(t, "shift")),
			Order:     rapid.SampledFrom([]Order{NHD, HND}).Draw(t, "order"),
		}
		size := g.Layout().Size()
		from := rapid.IntRange(0, size).Draw(t, "from")
		to := rapid.IntRange(from, size).Draw(t, "to")
		want := map[int]bool{} // byte offsets of the range's elements
		for tok := from; tok < to; tok++ {
			for h := range g.KVHeads {
				for d := range g.HeadDim {
					for b := range g.DType.Size() {
						want[g.Offset(0, K, h, 0, tok, d)+b] = true
					}
				}
			}
		}
		got := map[int]bool{}
		end := 0
		for i := range g.RowRuns() {
			off, n := g.RowRun(size, from, to, i)
			if n > 0 && off < end {
				t.Fatalf("run %d at %d overlaps or precedes the run before (end %d)", i, off, end)
			}
			for b := off; b < off+n; b++ {
				got[b] = true
			}
			end = off + n
		}
		if len(got) != len(want) {
			t.Fatalf("runs cover %d bytes, the range has %d", len(got), len(want))
		}
		for b := range want {
			if !got[b] {
				t.Fatalf("byte %d of the range is in no run", b)
			}
		}
	})
}

// TestGeometryDimensionBound: each dimension may be 1<<20 and no more,
// whatever the others are.
func TestGeometryDimensionBound(t *testing.T) {
	one := Geometry{Layers: 1, KVHeads: 1, HeadDim: 1, DType: FP8E4M3}
	for name, set := range map[string]func(*Geometry, int){
		"Layers":  func(g *Geometry, v int) { g.Layers = v },
		"KVHeads": func(g *Geometry, v int) { g.KVHeads = v },
		"HeadDim": func(g *Geometry, v int) { g.HeadDim = v },
	} {
		for _, c := range []struct {
			v  int
			ok bool
		}{{1, true}, {1 << 20, true}, {1<<20 + 1, false}, {0, false}} {
			g := one
			set(&g, c.v)
			err := g.Check()
			var e *Error
			if c.ok && err != nil || !c.ok && (!errors.As(err, &e) || e.Err != ErrRange || e.Value != int64(c.v) || e.Op != "Geometry") {
				t.Errorf("%s %d: %v, want ok=%v", name, c.v, err, c.ok)
			}
		}
	}
}
