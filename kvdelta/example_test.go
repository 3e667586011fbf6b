package kvdelta_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/layer0/anth/kvdelta"
	"github.com/layer0/anth/tiling"
)

// cache returns the first n tokens of a made-up sequence's KV cache, with
// the chained hash of each full tile of its token IDs.
func cache(g tiling.Geometry, n int) *kvdelta.Snapshot {
	s := &kvdelta.Snapshot{Geometry: g, Tokens: n, Data: make([]byte, g.Layout().Tiles(n)*g.TileBytes())}
	ids := make([]uint32, n)
	for p := range n {
		ids[p] = uint32(p * 7)
		tile, off := g.Layout().Tile(p)
		for layer := range g.Layers {
			for kv := range 2 {
				for d := range g.HeadDim {
					v := kvdelta.BF16(float32(p%5) - float32(d)/4 + float32(layer+kv))
					o := g.Offset(layer, kv, 0, tile, off, d)
					s.Data[o], s.Data[o+1] = byte(v), byte(v>>8)
				}
			}
		}
	}
	s.Hashes = tiling.AppendTileHashes(nil, g.Layout(), tiling.Root(nil), ids)
	return s
}

// A sender encodes what changed since the snapshot the receiver holds; the
// receiver applies it to get the new snapshot bit for bit.
func ExampleEncoder_Encode() {
	g := tiling.Geometry{Layers: 2, KVHeads: 1, HeadDim: 64, DType: tiling.BF16, TileShift: 4}
	base, next := cache(g, 100), cache(g, 101) // one decoding step later

	delta, err := kvdelta.NewEncoder(kvdelta.Options{}).Encode(nil, base, next)
	if err != nil {
		log.Fatal(err)
	}
	got, err := kvdelta.Apply(base, delta)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(next.Data), "bytes of cache sent as a delta of", len(delta))
	fmt.Println("same snapshot:", kvdelta.Equal(got, next))
	// Output:
	// 57344 bytes of cache sent as a delta of 422
	// same snapshot: true
}

// A receiver applying deltas in a loop reuses one Decoder and one
// Snapshot: once they have grown, a call allocates nothing.
func ExampleDecoder_ApplyTo() {
	g := tiling.Geometry{Layers: 2, KVHeads: 1, HeadDim: 64, DType: tiling.BF16, TileShift: 4}
	e := kvdelta.NewEncoder(kvdelta.Options{})
	d := kvdelta.NewDecoder(kvdelta.Limits{MaxBytes: 64 << 20})
	var held, next kvdelta.Snapshot // what the receiver holds, and its next one
	var sent *kvdelta.Snapshot
	for n := 30; n <= 33; n++ {
		s := cache(g, n)
		delta, err := e.Encode(nil, sent, s)
		if err != nil {
			log.Fatal(err)
		}
		base := &held
		if sent == nil {
			base = nil
		}
		if err := d.ApplyTo(&next, base, delta); err != nil {
			log.Fatal(err)
		}
		held, next = next, held // next's buffers are reused for the step after
		sent = s
		fmt.Println(held.Tokens, "tokens from", len(delta), "bytes:", kvdelta.Equal(&held, s))
	}
	// Output:
	// 30 tokens from 10879 bytes: true
	// 31 tokens from 422 bytes: true
	// 32 tokens from 458 bytes: true
	// 33 tokens from 4776 bytes: true
}

// A delta that needs more memory than the limit is refused before the
// memory is allocated; Stats says what a call cost. Apply holds the tiles
// it decodes until the snapshot's buffer is made, and the planes of a
// record of up to 16 MiB of tiles, so this whole snapshot in one record
// costs three times its size (ApplyTo into a snapshot with room, twice).
func ExampleDecoder_Stats() {
	g := tiling.Geometry{Layers: 2, KVHeads: 1, HeadDim: 64, DType: tiling.BF16, TileShift: 4}
	delta, _ := kvdelta.NewEncoder(kvdelta.Options{}).Encode(nil, nil, cache(g, 1000))

	d := kvdelta.NewDecoder(kvdelta.Limits{MaxBytes: 256 << 10})
	_, err := d.Apply(nil, delta)
	fmt.Println(errors.Is(err, kvdelta.ErrTooLarge), d.Stats().Allocated)

	d = kvdelta.NewDecoder(kvdelta.Limits{MaxBytes: 2 << 20})
	s, err := d.Apply(nil, delta)
	fmt.Println(err, len(s.Data), d.Stats().Allocated)
	// Output:
	// true 0
	// <nil> 516096 1591649
}

// ReadGeometry tells a receiver how to lay out the base a delta needs,
// from a raw dump, before applying it.
func ExampleReadGeometry() {
	g := tiling.Geometry{Layers: 2, KVHeads: 1, HeadDim: 64, DType: tiling.BF16, TileShift: 4}
	base := cache(g, 20)
	delta, _ := kvdelta.NewEncoder(kvdelta.Options{}).Encode(nil, base, cache(g, 21))
	dump := base.AppendRaw(nil) // what the receiver kept

	geom, err := kvdelta.ReadGeometry(delta)
	if err != nil {
		log.Fatal(err)
	}
	held, err := kvdelta.FromRaw(geom, dump)
	if err != nil {
		log.Fatal(err)
	}
	held.Hashes = base.Hashes // a raw dump has no hashes: the receiver keeps them beside it
	next, err := kvdelta.Apply(held, delta)
	fmt.Println(geom.Layers, geom.HeadDim, geom.DType, next.Tokens, err)
	// Output: 2 64 bf16 21 <nil>
}
