package tiling

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestPageTableProperties builds random batches and checks FlashInfer's
// identity, the slot mapping against the table, and slot uniqueness.
func TestPageTableProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := Layout{TileShift: uint8(rapid.IntRange(0, 6).Draw(t, "shift"))}
		p, _ := NewPool(4096)
		lens := rapid.SliceOfN(rapid.IntRange(1, 300), 1, 20).Draw(t, "lens")
		tables := make([]*Table, len(lens))
		for i, n := range lens {
			tables[i] = NewTable(l)
			// Grow in random steps, as decoding does.
			for n > 0 {
				k := rapid.IntRange(1, n).Draw(t, "step")
				if err := p.Grow(tables[i], k); err != nil {
					t.Skip("pool too small for this draw")
				}
				n -= k
			}
		}
		var pt PageTable
		if err := pt.Build(tables); err != nil {
			t.Fatal(err)
		}
		slots := map[int64]bool{}
		for i, tb := range tables {
			pages := int(pt.Indptr[i+1] - pt.Indptr[i])
			last := int(pt.LastPageLen[i])
			if last < 1 || last > l.Size() || (pages-1)*l.Size()+last != tb.Len() {
				t.Fatalf("table %d: %d pages, last %d, len %d", i, pages, last, tb.Len())
			}
			got, err := tb.AppendSlots(nil, 0, tb.Len())
			if err != nil {
				t.Fatal(err)
			}
			for pos, s := range got {
				page := pt.Indices[int(pt.Indptr[i])+pos>>l.TileShift]
				if want := int64(page)<<l.TileShift | int64(pos&l.Mask()); s != want || int64(tb.Slot(pos)) != s {
					t.Fatalf("slot of %d: %d, page table says %d", pos, s, want)
				}
				if slots[s] {
					t.Fatalf("slot %d used twice", s)
				}
				slots[s] = true
			}
		}
	})
}

func TestPageTableErrors(t *testing.T) {
	p, _ := NewPool(10)
	a, b := NewTable(Layout{TileShift: 2}), NewTable(Layout{TileShift: 3})
	_ = p.Grow(a, 5)
	pt := PageTable{Indptr: []int32{9}}
	if err := pt.Build([]*Table{a, NewTable(a.Layout())}); !errors.Is(err, ErrEmpty) || len(pt.Indptr) != 0 {
		t.Fatalf("empty table: %v, %v", err, pt)
	}
	_ = p.Grow(b, 1)
	if err := pt.Build([]*Table{a, b}); !errors.Is(err, ErrRange) {
		t.Fatalf("mixed layouts: %v", err)
	}
	if err := pt.Build([]*Table{a}); err != nil {
		t.Fatal(err)
	}
	want := PageTable{Indptr: []int32{0, 2}, Indices: []int32{1, 2}, LastPageLen: []int32{1}}
	if d := cmp.Diff(want, pt); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if _, err := a.AppendSlots(nil, 0, a.Cap()+1); !errors.Is(err, ErrRange) {
		t.Fatalf("slots past capacity: %v", err)
	}
	if err := p.Grow(a, -1); !errors.Is(err, ErrRange) {
		t.Fatalf("negative growth: %v", err)
	}
}

func TestShare(t *testing.T) {
	l := Layout{TileShift: 2}
	p, _ := NewPool(10)
	src := NewTable(l)
	_ = p.Grow(src, 10) // 3 tiles, the last partial
	dst := NewTable(l)
	if err := p.Share(dst, src, 6); !errors.Is(err, ErrChunk) {
		t.Fatalf("sharing half a tile: %v", err)
	}
	if err := p.Share(dst, src, 8); err != nil {
		t.Fatal(err)
	}
	if p.Refs(src.TileIDs()[0]) != 2 || p.Refs(src.TileIDs()[2]) != 1 || dst.Len() != 8 {
		t.Fatalf("refs %d %d, len %d", p.Refs(src.TileIDs()[0]), p.Refs(src.TileIDs()[2]), dst.Len())
	}
	// dst now grows into a tile of its own.
	if err := p.Grow(dst, 1); err != nil || dst.TileIDs()[2] == src.TileIDs()[2] {
		t.Fatalf("grow after share: %v", err)
	}
	if err := p.Release(src); err != nil || p.Refs(dst.TileIDs()[0]) != 1 {
		t.Fatalf("release: %v", err)
	}
	if err := p.Share(dst, src, 0); !errors.Is(err, ErrRange) {
		t.Fatalf("share into a non-empty table: %v", err)
	}
}

func TestGrowAllOrNothing(t *testing.T) {
	p, _ := NewPool(4) // 3 tiles
	tb := NewTable(Layout{TileShift: 1})
	if err := p.Grow(tb, 3); err != nil {
		t.Fatal(err)
	}
	if err := p.Grow(tb, 4); !errors.Is(err, ErrExhausted) || tb.Len() != 3 || len(tb.TileIDs()) != 2 || p.Available() != 1 {
		t.Fatalf("Grow past the pool: %v, len %d, %d tiles, %d free", err, tb.Len(), len(tb.TileIDs()), p.Available())
	}
	if err := p.Grow(tb, 1); err != nil || p.Available() != 1 {
		t.Fatalf("Grow within the last tile took a tile: %v", err)
	}
}

// TestTableEdges pins the behaviour at the edges of Table and Pool.Share.
func TestTableEdges(t *testing.T) {
	l := Layout{TileShift: 2}
	p, _ := NewPool(10)
	src := NewTable(l)
	_ = p.Grow(src, 10) // 3 tiles, 2 of them full
	ids := append([]TileID(nil), src.TileIDs()...)

	// Sharing more tokens than the source holds, even a whole multiple of
	// the tile, takes nothing.
	dst := NewTable(l)
	if err := p.Share(dst, src, 12); !errors.Is(err, ErrRange) || dst.Len() != 0 || len(dst.TileIDs()) != 0 || p.Refs(ids[0]) != 1 {
		t.Fatalf("Share of 12 tokens of 10: %v, dst %d tokens, refs %d", err, dst.Len(), p.Refs(ids[0]))
	}

	// An empty range of slots is no slots and no error, anywhere up to Cap.
	for _, k := range []int{0, 3, src.Cap()} {
		if got, err := src.AppendSlots([]int64{7}, k, k); err != nil || len(got) != 1 {
			t.Errorf("AppendSlots(%d, %d) = %v, %v", k, k, got, err)
		}
	}
	for _, r := range [][2]int{{src.Cap() + 1, src.Cap() + 1}, {3, 2}, {-1, 0}} {
		if _, err := src.AppendSlots(nil, r[0], r[1]); !errors.Is(err, ErrRange) {
			t.Errorf("AppendSlots(%d, %d): %v, want ErrRange", r[0], r[1], err)
		}
	}

	// After Release a table is empty and reusable; releasing it again is a
	// no-op; its old tiles are free, so freeing them is an error.
	if err := p.Release(src); err != nil {
		t.Fatal(err)
	}
	if src.Len() != 0 || src.Cap() != 0 || len(src.TileIDs()) != 0 || p.Available() != 9 {
		t.Fatalf("after Release: len %d, cap %d, %d tiles, %d free", src.Len(), src.Cap(), len(src.TileIDs()), p.Available())
	}
	if got, err := src.AppendSlots(nil, 0, 0); err != nil || len(got) != 0 {
		t.Fatalf("slots of a released table: %v, %v", got, err)
	}
	if err := p.Release(src); err != nil || p.Available() != 9 {
		t.Fatalf("second Release: %v, %d free", err, p.Available())
	}
	if err := p.Free(ids[0]); !errors.Is(err, ErrNotAllocated) {
		t.Fatalf("Free of a released table's tile: %v", err)
	}
	if err := p.Grow(src, 5); err != nil || src.Len() != 5 || len(src.TileIDs()) != 2 {
		t.Fatalf("Grow after Release: %v, len %d", err, src.Len())
	}
}

// TestPageTablePageBound: a batch may hold math.MaxInt32 pages and no more.
// Tables that big do not fit in a test, so these are tables with a length
// and no tiles, which Build counts before it reads any tile: an empty
// table after them shows whether the count let them through.
func TestPageTablePageBound(t *testing.T) {
	l := Layout{TileShift: 0}
	for _, c := range []struct {
		lens []int
		kind error
		at   int64
	}{
		{[]int{math.MaxInt32, 0}, ErrEmpty, 1},
		{[]int{math.MaxInt32 - 1, 1, 0}, ErrEmpty, 2},
		{[]int{math.MaxInt32, 1, 0}, ErrRange, math.MaxInt32 + 1},
		{[]int{math.MaxInt32 + 1}, ErrRange, math.MaxInt32 + 1},
	} {
		tables := make([]*Table, len(c.lens))
		for i, n := range c.lens {
			tables[i] = &Table{layout: l, n: n}
		}
		var pt PageTable
		err := pt.Build(tables)
		var e *Error
		if !errors.As(err, &e) || e.Err != c.kind || e.Value != c.at {
			t.Errorf("tables of %v tokens: %v, want %v at %d", c.lens, err, c.kind, c.at)
		}
	}
}

// TestErrorMessage: an *Error says the operation, the kind and the value,
// and unwraps to the kind.
func TestErrorMessage(t *testing.T) {
	p, _ := NewPool(4)
	err := p.Free(3)
	if want := "tiling: Pool.Free: tile not allocated: 3"; err == nil || err.Error() != want || !errors.Is(err, ErrNotAllocated) {
		t.Fatalf("Free of a free tile: %v, want %q", err, want)
	}
}

// TestGrowBound: a table may grow to maxTokens tokens and no further. The
// tables here have a length and no tiles (a real one would need 2^24 tiles
// of 2^24 tokens), so a growth within the bound fails for want of tiles,
// ErrExhausted, and one past it fails first, ErrRange, taking nothing.
func TestGrowBound(t *testing.T) {
	p, _ := NewPool(4)
	for _, c := range []struct {
		len, n int
		kind   error
	}{
		{maxTokens, 0, ErrExhausted},
		{maxTokens, 1, ErrRange},
		{maxTokens - 1, 1, ErrExhausted},
		{maxTokens - 1, 2, ErrRange},
		{0, maxTokens, ErrExhausted},
		{0, maxTokens + 1, ErrRange},
		{1, maxTokens, ErrRange},
		{0, -1, ErrRange},
	} {
		tb := &Table{layout: Layout{TileShift: MaxTileShift}, n: c.len}
		if err := p.Grow(tb, c.n); !errors.Is(err, c.kind) || tb.Len() != c.len || p.Available() != 3 {
			t.Errorf("Grow a table of %d tokens by %d: %v, want %v; now %d tokens, %d tiles free", c.len, c.n, err, c.kind, tb.Len(), p.Available())
		}
	}
}
