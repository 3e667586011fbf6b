package tiling_test

import (
	"fmt"
	"log"

	"github.com/layer0/anth/tiling"
)

func ExampleLayout() {
	l, err := tiling.NewLayout(16)
	if err != nil {
		log.Fatal(err)
	}
	tile, off := l.Tile(1000)
	fmt.Println(tile, off, l.Pos(tile, off))
	fmt.Println("tiles for 1000 tokens:", l.Tiles(1000), "waste:", l.Waste(1000))
	fmt.Println("seed's power of two:", l.RoundPow2(1000), "waste:", l.RoundPow2(1000)-1000)
	// Output:
	// 62 8 1000
	// tiles for 1000 tokens: 63 waste: 8
	// seed's power of two: 1024 waste: 24
}

// A server keeps one Table per sequence in a shared Pool, grows it as
// tokens arrive, and hands the kernel a page table each step.
func ExamplePageTable() {
	pool, _ := tiling.NewPool(1024)
	l := tiling.Layout{TileShift: 4}
	a, b := tiling.NewTable(l), tiling.NewTable(l)
	_ = pool.Grow(a, 40)     // a prompt of 40 tokens
	_ = pool.Share(b, a, 32) // b starts with a's first two tiles
	_ = pool.Grow(b, 3)

	var pt tiling.PageTable
	if err := pt.Build([]*tiling.Table{a, b}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(pt.Indptr, pt.Indices, pt.LastPageLen)
	slots, _ := b.AppendSlots(nil, 32, 35)
	fmt.Println(slots)
	// Output:
	// [0 3 6] [1 2 3 1 2 4] [8 3]
	// [64 65 66]
}

// Geometry turns (layer, K/V, head, tile, token, dim) into a byte offset,
// so a flat buffer of tiles can be sliced without arithmetic of one's own.
func ExampleGeometry() {
	g := tiling.Geometry{Layers: 32, KVHeads: 8, HeadDim: 128, DType: tiling.BF16, TileShift: 4, Order: tiling.NHD}
	if err := g.Check(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.TileBytes(), g.Offset(1, tiling.V, 2, 3, 4, 5))
	// Output: 2097152 6398474
}

// Full tiles get a chained hash: equal hashes mean equal prefixes.
func ExampleAppendTileHashes() {
	l := tiling.Layout{TileShift: 2}
	root := tiling.Root(nil)
	a := tiling.AppendTileHashes(nil, l, root, []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9})
	b := tiling.AppendTileHashes(nil, l, root, []uint32{1, 2, 3, 4, 5, 6, 7, 0})
	fmt.Println(len(a), a[0] == b[0], a[1] == b[1])
	// Output: 2 true false
}
