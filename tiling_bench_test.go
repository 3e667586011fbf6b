package anth_test

import (
	"testing"

	"github.com/layer0/anth/tiling"
)

// BenchmarkSlot maps 4,096 positions of a sequence to physical slots, by
// shift and mask (tiling.Table.Slot) and by the division and modulo a
// hand-written cache manager with a non-power-of-two block would use.
func BenchmarkSlot(b *testing.B) {
	const n = 4096
	pool, _ := tiling.NewPool(1 << 12)
	t := tiling.NewTable(tiling.Layout{TileShift: 4})
	if err := pool.Grow(t, n); err != nil {
		b.Fatal(err)
	}
	ids := t.TileIDs()
	per := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/slot")
	}
	b.Run("shift-mask", func(b *testing.B) {
		b.ReportAllocs()
		sum := 0
		for b.Loop() {
			for pos := range n {
				sum += t.Slot(pos)
			}
		}
		per(b)
		_ = sum
	})
	b.Run("div-mod", func(b *testing.B) {
		b.ReportAllocs()
		block := benchBlock // a run-time value, as a configured block size is
		sum := 0
		for b.Loop() {
			for pos := range n {
				sum += int(ids[pos/block])*block + pos%block
			}
		}
		per(b)
		_ = sum
	})
	b.Run("AppendSlots", func(b *testing.B) {
		b.ReportAllocs()
		dst := make([]int64, 0, n)
		for b.Loop() {
			dst, _ = t.AppendSlots(dst[:0], 0, n)
		}
		per(b)
	})
}

// BenchmarkTile splits 4,096 positions into tile and offset, by
// tiling.Layout.Tile (a shift and a mask, inlined) and by the division and
// modulo of a run-time block size, the baseline.
func BenchmarkTile(b *testing.B) {
	const n = 4096
	l := tiling.Layout{TileShift: 4}
	per := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/pos")
	}
	b.Run("Layout.Tile", func(b *testing.B) {
		b.ReportAllocs()
		sum := 0
		for b.Loop() {
			for pos := range n {
				t, o := l.Tile(pos)
				sum += t ^ o
			}
		}
		per(b)
		_ = sum
	})
	b.Run("div-mod", func(b *testing.B) {
		b.ReportAllocs()
		block := benchBlock
		sum := 0
		for b.Loop() {
			for pos := range n {
				sum += pos/block ^ pos%block
			}
		}
		per(b)
		_ = sum
	})
}

// benchBlock is the block size of the division form, in a variable so the
// compiler cannot turn the division into a shift.
var benchBlock = 16

// BenchmarkPoolAllocFree takes a tile and gives it back: O(1), no
// allocation, whatever the pool's size.
func BenchmarkPoolAllocFree(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		b.Run(map[int]string{1 << 10: "1Ki-tiles", 1 << 20: "1Mi-tiles"}[size], func(b *testing.B) {
			pool, _ := tiling.NewPool(size)
			held, _ := pool.Alloc(nil, size/2) // a half-full pool
			_ = held
			ids := make([]tiling.TileID, 0, 1)
			b.ReportAllocs()
			for b.Loop() {
				ids, _ = pool.Alloc(ids[:0], 1)
				_ = pool.Free(ids[0])
			}
		})
	}
}

// BenchmarkPageTable exports 256 tables of 1–4,096 tokens as FlashInfer
// page-table arrays, reusing the arrays as a server does each step.
func BenchmarkPageTable(b *testing.B) {
	pool, _ := tiling.NewPool(1 << 17)
	l := tiling.Layout{TileShift: 4}
	tables := make([]*tiling.Table, 256)
	pages := 0
	for i := range tables {
		tables[i] = tiling.NewTable(l)
		n := 1 + (i*2654435761)%4096
		if err := pool.Grow(tables[i], n); err != nil {
			b.Fatal(err)
		}
		pages += l.Tiles(n)
	}
	var pt tiling.PageTable
	_ = pt.Build(tables)
	b.ReportAllocs()
	for b.Loop() {
		if err := pt.Build(tables); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(pages), "ns/page")
}
