package fuzz

import (
	"errors"
	"testing"
	"time"

	"github.com/layer0/anth/kvdelta"
	"github.com/layer0/anth/tiling"
)

// fuzzBase is the base snapshot deltas are applied to: small, with hashes.
func fuzzBase(tokens int) *kvdelta.Snapshot {
	g := tiling.Geometry{Layers: 2, KVHeads: 1, HeadDim: 4, DType: tiling.BF16, TileShift: 2}
	s := &kvdelta.Snapshot{Geometry: g, Tokens: tokens, Data: make([]byte, g.Layout().Tiles(tokens)*g.TileBytes())}
	for i := range s.Data {
		s.Data[i] = byte(i*37 + i>>3)
	}
	ids := make([]uint32, tokens)
	for i := range ids {
		ids[i] = uint32(i * 7)
	}
	s.Hashes = tiling.AppendTileHashes(nil, g.Layout(), tiling.Root(nil), ids)
	return s
}

const fuzzLimit = 1 << 20

// FuzzKVDelta applies arbitrary bytes as a delta: no panic, no hang, an
// *Error on failure, the base untouched, a result within the Decoder's
// limit, and a snapshot only when every check passed. (FuzzKVDeltaBudget
// holds it to its memory budget.)
func FuzzKVDelta(f *testing.F) {
	base, next := fuzzBase(6), fuzzBase(11)
	for _, m := range []kvdelta.Mode{kvdelta.Fast, kvdelta.Max} {
		e := kvdelta.NewEncoder(kvdelta.Options{Mode: m})
		d, _ := e.Encode(nil, base, next)
		f.Add(d)
		d, _ = e.Encode(nil, nil, next)
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, delta []byte) {
		before := append([]byte(nil), base.Data...)
		var s *kvdelta.Snapshot
		var err error
		done := make(chan struct{})
		go func() {
			s, err = kvdelta.NewDecoder(kvdelta.Limits{MaxBytes: fuzzLimit}).Apply(base, delta)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("Apply takes over 3 s on a %d-byte delta", len(delta))
		}
		if string(base.Data) != string(before) {
			t.Fatal("Apply changed the base")
		}
		if err != nil {
			var e *kvdelta.Error
			if !errors.As(err, &e) || s != nil {
				t.Fatalf("error %v (%T) with snapshot %v", err, err, s != nil)
			}
			return
		}
		if err := s.Check(); err != nil {
			t.Fatalf("Apply returned an inconsistent snapshot: %v", err)
		}
		if len(s.Data)+32*len(s.Hashes) > fuzzLimit {
			t.Fatalf("a snapshot of %d bytes and %d hashes under a %d-byte limit", len(s.Data), len(s.Hashes), fuzzLimit)
		}
		// A delta that applies re-applies to the same result.
		again, err := kvdelta.Apply(base, delta)
		if err != nil || !kvdelta.Equal(again, s) {
			t.Fatal("Apply is not deterministic")
		}
	})
}

// FuzzKVDeltaBitFlip flips one bit of a valid delta: always an error.
func FuzzKVDeltaBitFlip(f *testing.F) {
	base, next := fuzzBase(6), fuzzBase(11)
	delta, _ := kvdelta.NewEncoder(kvdelta.Options{}).Encode(nil, base, next)
	f.Add(uint32(0))
	f.Add(uint32(len(delta)*8 - 1))
	f.Fuzz(func(t *testing.T, bit uint32) {
		bad := append([]byte(nil), delta...)
		i := int(bit % uint32(len(bad)*8))
		bad[i/8] ^= 1 << (i % 8)
		if s, err := kvdelta.Apply(base, bad); err == nil || s != nil {
			t.Fatalf("flip of bit %d went unnoticed", i)
		}
	})
}

// FuzzKVDeltaBudget applies arbitrary bytes under an arbitrary limit and
// holds the Decoder to the memory budget of kvdelta's package doc, from its
// own count of what it allocated (exact and deterministic, where the
// runtime's statistics are neither, and too slow to read per input):
//
//	Allocated ≤ 3·Justified + 2·chunk size + 64 KiB + 256 KiB (zstd)
//
// where Justified is the bytes in hand (read, decoded from checked chunks,
// named in the base, 32 a record); never past the limit; the bytes read no
// more than the input; and no scratch kept from a failed call.
func FuzzKVDeltaBudget(f *testing.F) {
	base, next := fuzzBase(6), fuzzBase(11)
	for _, m := range []kvdelta.Mode{kvdelta.Fast, kvdelta.Max} {
		e := kvdelta.NewEncoder(kvdelta.Options{Mode: m})
		d, _ := e.Encode(nil, base, next)
		f.Add(uint32(1<<20), d)
		f.Add(uint32(len(d)), d)
		d, _ = e.Encode(nil, nil, fuzzBase(400))
		f.Add(uint32(1<<16), d)
	}
	// A header of a 4 GiB tile, and one of the largest snapshot there is.
	f.Add(uint32(1<<30), []byte("ANKV\x01\x00\x01\x80\x08\x80\x08\x01\x0a\x00\x80\x08"))
	f.Add(uint32(1<<31), []byte("ANKV\x01\x00\x01\x01\x01\x04\x00\x00\x80\x80\x80\x80\x80\x20"))
	f.Fuzz(func(t *testing.T, limit uint32, delta []byte) {
		max := int64(limit) + 1
		d := kvdelta.NewDecoder(kvdelta.Limits{MaxBytes: max})
		_, err := d.Apply(base, delta)
		s := d.Stats()
		chunk := int64(0)
		if len(delta) > 5 && delta[5]>>4 <= 12 {
			chunk = 1 << (10 + delta[5]>>4)
		}
		if bound := 3*s.Justified + 2*chunk + 64<<10 + 256<<10; s.Allocated > bound {
			t.Fatalf("allocated %d bytes, over the budget of %d (stats %+v): %v", s.Allocated, bound, s, err)
		}
		if s.Allocated > max || s.Read > int64(len(delta)) || s.Justified < s.Read {
			t.Fatalf("limit %d, %d-byte delta: stats %+v", max, len(delta), s)
		}
		if err != nil && s.Scratch != 0 {
			t.Fatalf("a new Decoder keeps %d bytes after a failed call: %v", s.Scratch, err)
		}
	})
}
