package kvdelta

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/tiling"
)

// TestPlan: the records an Encoder plans (SPEC.md §10.3): KEEP for what the
// base has, found by hash when both snapshots have them, else by bytes;
// ROWS for a partial tile that only gained rows, XOR for one that changed
// otherwise; NEW for the rest, in runs of at most 16 MiB (or one tile);
// neighbours of one kind merged into one record.
func TestPlan(t *testing.T) {
	// SPEC.md §10.6's snapshots: 2-token tiles of 16 bytes.
	v := vectorSnapshot
	keep := func(at, base, count int) record { return record{kind: recKeep, at: at, base: base, count: count} }
	fresh := func(at, count int) record { return record{kind: recNew, at: at, count: count} }
	rows := func(at, from, to int) record {
		return record{kind: recRows, at: at, base: at, count: 1, from: from, to: to}
	}
	xor := func(at int) record { return record{kind: recXor, at: at, base: at, count: 1} }
	// changed returns s with token p's first byte in K changed.
	changed := func(s *Snapshot, p int) *Snapshot {
		c := *s
		c.Data = append([]byte(nil), s.Data...)
		c.Data[s.Geometry.Offset(0, 0, 0, p>>1, p&1, 0)] ^= 1
		return &c
	}
	// withHashes returns s with the hashes given.
	withHashes := func(s *Snapshot, hs ...byte) *Snapshot {
		c := *s
		c.Hashes = make([]tiling.Hash, len(hs))
		for i, h := range hs {
			c.Hashes[i][0] = h
		}
		return &c
	}
	// big is a snapshot of n tiles of tb bytes, its data left out: the
	// plan of a snapshot without a base reads none of it.
	big := func(tb, n int) *Snapshot {
		g := tiling.Geometry{Layers: 1, KVHeads: tb / 1024, HeadDim: 512, DType: tiling.FP8E4M3}
		return &Snapshot{Geometry: g, Tokens: n}
	}
	for _, c := range []struct {
		name       string
		base, next *Snapshot
		want       []record
	}{
		{"no base", nil, v(6), []record{fresh(0, 3)}},
		{"grew", v(3), v(6), []record{keep(0, 0, 1), rows(1, 1, 2), fresh(2, 1)}},
		{"grew, hashed", hashed(v(3)), hashed(v(6)), []record{keep(0, 0, 1), rows(1, 1, 2), fresh(2, 1)}},
		{"grew by a row", v(5), v(6), []record{keep(0, 0, 2), rows(2, 1, 2)}},
		{"the same", v(6), v(6), []record{keep(0, 0, 3)}},
		{"the same, partial", v(5), v(5), []record{keep(0, 0, 3)}},
		{"the same, partial, hashed", hashed(v(5)), hashed(v(5)), []record{keep(0, 0, 3)}},
		{"cut to a full tile", v(5), v(4), []record{keep(0, 0, 2)}},
		{"cut to a partial tile", v(6), v(5), []record{keep(0, 0, 2), fresh(2, 1)}},
		{"cut to a partial tile, hashed", hashed(v(6)), hashed(v(5)), []record{keep(0, 0, 2), fresh(2, 1)}},
		{"a partial tile's old row changed", v(5), changed(v(6), 4), []record{keep(0, 0, 2), xor(2)}},
		{"a partial tile's old row changed, no row added", v(5), changed(v(5), 4), []record{keep(0, 0, 2), xor(2)}},
		{"a tile rewritten", v(6), changed(v(6), 2), []record{keep(0, 0, 1), fresh(1, 1), keep(2, 2, 1)}},
		{"tiles rewritten, by hash", withHashes(v(6), 1, 2, 3), withHashes(v(6), 1, 4, 5), []record{keep(0, 0, 1), fresh(1, 2)}},
		{"a prefix from elsewhere", withHashes(v(6), 1, 2, 3), withHashes(v(6), 9, 1, 2), []record{fresh(0, 1), keep(1, 0, 2)}},
		{"the first of equal hashes", withHashes(v(6), 5, 5, 6), withHashes(v(6), 7, 8, 5), []record{fresh(0, 2), keep(2, 0, 1)}},
		{"4 MiB tiles", nil, big(4<<20, 9), []record{fresh(0, 4), fresh(4, 4), fresh(8, 1)}},
		{"16 MiB tiles", nil, big(16<<20, 2), []record{fresh(0, 1), fresh(1, 1)}},
		{"17 MiB tiles", nil, big(17<<20, 2), []record{fresh(0, 1), fresh(1, 1)}},
		{"1 KiB tiles", nil, big(1<<10, 1<<14+1), []record{fresh(0, 1<<14), fresh(1<<14, 1)}},
		{"4 MiB tiles kept", withHashes(big(4<<20, 9), 1, 2, 3, 4, 5, 6, 7, 8, 9), withHashes(big(4<<20, 9), 1, 2, 3, 4, 5, 6, 7, 8, 9), []record{keep(0, 0, 9)}},
	} {
		hashed := c.next.Hashes != nil && (c.base == nil || c.base.Hashes != nil)
		if d := cmp.Diff(c.want, plan(c.base, c.next, hashed), cmp.AllowUnexported(record{})); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// TestChunkBounds: planes of every size about a chunk's (SPEC.md §10.4) and
// of every kind of content round-trip in both modes: a constant (RLE), a
// byte then zeros (which zstd codes in exactly 18 bytes at 18: then it must
// go raw), skewed bytes (huff0 or zstd), and random bytes (raw).
func TestChunkBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	contents := map[string]func(i int) byte{
		"constant": func(int) byte { return 7 },
		"spike": func(i int) byte {
			if i == 0 {
				return 0x5A
			}
			return 0
		},
		"skewed": func(int) byte { return byte(rng.IntN(4)) },
		"random": func(int) byte { return byte(rng.Uint32()) },
	}
	const chunk = 1 << fastChunkLog
	encs := encoders{}
	for _, mode := range []Mode{Fast, Max} {
		sizes := []int{1, 2, 17, 18, 19, 100}
		if mode == Fast {
			sizes = append(sizes, chunk-1, chunk, chunk+1, 2*chunk)
		}
		for name, f := range contents {
			for _, n := range sizes {
				s := fp8Token(n, 0)
				for i := range s.Data {
					s.Data[i] = f(i % n)
				}
				delta, err := encs.get(Options{Mode: mode}).Encode(nil, nil, s)
				if err != nil {
					t.Fatal(err)
				}
				if got, err := Apply(nil, delta); err != nil || !Equal(got, s) {
					t.Errorf("mode %d, %s planes of %d bytes: %v", mode, name, n, err)
				}
			}
		}
	}
}

// TestEncoderScratch: an Encoder keeps its scratch between calls, so that a
// second Encode of a 100 KiB snapshot allocates nothing for its data, only
// a few hundred bytes of plan; Concurrency 1 is the calling goroutine alone,
// as 0 is; and an Encoder keeps a coder for each worker, and no more.
func TestEncoderScratch(t *testing.T) {
	g := tiling.Geometry{Layers: 2, KVHeads: 2, HeadDim: 64, DType: tiling.BF16, TileShift: 4}
	gen := newSeqGen(g, 6)
	next := gen.snapshot(201, true)
	var allocs [2]float64
	for _, conc := range []int{0, 1, 2, 3} {
		e := NewEncoder(Options{Concurrency: conc})
		dst, err := e.Encode(nil, nil, next)
		if err != nil {
			t.Fatal(err)
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		dst, _ = e.Encode(dst[:0], nil, next)
		runtime.ReadMemStats(&m1)
		if n := m1.TotalAlloc - m0.TotalAlloc; conc <= 1 && n > 4<<10 {
			t.Errorf("Concurrency %d: a second Encode of %d bytes allocated %d bytes", conc, len(next.Data), n)
		}
		if conc <= 1 {
			allocs[conc] = testing.AllocsPerRun(5, func() { dst, _ = e.Encode(dst[:0], nil, next) })
		}
		if want := max(1, conc); len(e.coders) != want {
			t.Errorf("Concurrency %d: %d coders, want %d", conc, len(e.coders), want)
		}
	}
	if allocs[0] != allocs[1] {
		t.Errorf("Concurrency 0: %.1f allocations a call; 1: %.1f", allocs[0], allocs[1])
	}
}

// TestPlaneMethods: which planes an Encoder codes (SPEC.md §10.4): in Fast
// mode the exponents' (planes 0 and 2 of bf16), and every plane of an XOR
// record; in Max mode every plane. On snapshots of one byte repeated, a
// coded plane is an RLE chunk and any other is raw, so the whole delta is
// known.
func TestPlaneMethods(t *testing.T) {
	g := vectorSnapshot(0).Geometry // 2-token tiles of 16 bytes, bf16
	filled := func(tokens int, b byte) *Snapshot {
		s := &Snapshot{Geometry: g, Tokens: tokens, Data: make([]byte, g.Layout().Tiles(tokens)*g.TileBytes())}
		for i := range s.Data {
			s.Data[i] = b
		}
		return s
	}
	const fast, max = (fastChunkLog - chunkLogBase) << 4, (maxChunkLog - chunkLogBase) << 4
	rle := func(b byte) []byte { return []byte{methodRLE, b} }
	raw := func(n int, b byte) []byte { return append([]byte{methodRaw}, bytes.Repeat([]byte{b}, n)...) }
	// grown is a 3-token snapshot of 0x11 whose last token became 0x22.
	grown := filled(4, 0x11)
	copy(grown.Data[16+4:24], []byte{0x22, 0x22, 0x22, 0x22})
	copy(grown.Data[16+12:32], []byte{0x22, 0x22, 0x22, 0x22})
	changed := filled(3, 0x11)
	for i := 16; i < 32; i++ {
		changed.Data[i] = 0x22
	}
	for _, c := range []struct {
		name       string
		mode       Mode
		base, next *Snapshot
		want       *crafted
	}{
		{"NEW, Fast", Fast, nil, filled(4, 0x11), craft(g, fast, 4, nil).raw(recNew).uv(2).crc(filled(4, 0x11).Tile(0)).crc(filled(4, 0x11).Tile(1)).
			raw(rle(0x11)...).raw(raw(8, 0x11)...).raw(rle(0x11)...).raw(raw(8, 0x11)...)},
		{"NEW, Max", Max, nil, filled(4, 0x11), craft(g, max, 4, nil).raw(recNew).uv(2).crc(filled(4, 0x11).Tile(0)).crc(filled(4, 0x11).Tile(1)).
			raw(rle(0x11)...).raw(rle(0x11)...).raw(rle(0x11)...).raw(rle(0x11)...)},
		{"ROWS, Fast", Fast, filled(3, 0x11), grown, craft(g, fast, 4, filled(3, 0x11)).raw(recKeep).uv(0, 1).raw(recRows).uv(1, 1, 2).crc(grown.Tile(1)).
			raw(rle(0x22)...).raw(raw(2, 0x22)...).raw(rle(0x22)...).raw(raw(2, 0x22)...)},
		{"ROWS, Max", Max, filled(3, 0x11), grown, craft(g, max, 4, filled(3, 0x11)).raw(recKeep).uv(0, 1).raw(recRows).uv(1, 1, 2).crc(grown.Tile(1)).
			raw(rle(0x22)...).raw(rle(0x22)...).raw(rle(0x22)...).raw(rle(0x22)...)},
		{"XOR, Fast", Fast, filled(3, 0x11), changed, craft(g, fast, 3, filled(3, 0x11)).raw(recKeep).uv(0, 1).raw(recXor).uv(1, 1).crc(changed.Tile(1)).
			raw(rle(0x33)...).raw(rle(0x33)...).raw(rle(0x33)...).raw(rle(0x33)...)},
	} {
		got, err := NewEncoder(Options{Mode: c.mode}).Encode(nil, c.base, c.next)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(c.want.end().b, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}
