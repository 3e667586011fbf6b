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
// limit, and a snapshot only when every check passed. (That Apply allocates
// nothing past its limit is TestApplyAllocationBound's, with MemStats, which
// stop the world and are too slow to read on every fuzz input.)
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
