package kvdelta

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/layer0/anth/tiling"
	"pgregory.net/rapid"
)

func TestRawRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genGeometry().Draw(t, "geometry")
		per := g.Layers * 2 * g.TokenBytes()
		raw := make([]byte, per*rapid.IntRange(0, 40).Draw(t, "tokens"))
		for i := range raw {
			raw[i] = byte(i*7 + i/3)
		}
		s, err := FromRaw(g, raw)
		if err != nil {
			t.Fatal(err)
		}
		if back := s.AppendRaw(nil); !bytes.Equal(back, raw) {
			t.Fatal("AppendRaw(FromRaw(raw)) != raw")
		}
		// Every element lands where Offset says, by the dump's own layout.
		esz := g.DType.Size()
		for blk := range g.Layers * 2 {
			for p := range s.Tokens {
				for h := range g.KVHeads {
					for d := range g.HeadDim {
						e := ((blk*s.Tokens+p)*g.KVHeads+h)*g.HeadDim + d
						if g.Order == tiling.HND {
							e = ((blk*g.KVHeads+h)*s.Tokens+p)*g.HeadDim + d
						}
						tile, off := g.Layout().Tile(p)
						at := g.Offset(blk/2, blk%2, h, tile, off, d)
						if !bytes.Equal(raw[e*esz:(e+1)*esz], s.Data[at:at+esz]) {
							t.Fatalf("element (%d,%d,%d,%d) of the dump is not at its offset %d", blk, p, h, d, at)
						}
					}
				}
			}
		}
	})
}

// TestConversions checks the roundings against float32 arithmetic: the
// result is the nearest representable value, ties to even.
func TestConversions(t *testing.T) {
	bf := func(h uint16) float64 { return float64(math.Float32frombits(uint32(h) << 16)) }
	rapid.Check(t, func(t *rapid.T) {
		f := math.Float32frombits(rapid.Uint32().Draw(t, "bits"))
		if f != f || math.IsInf(float64(f), 0) {
			return
		}
		h := BF16(f)
		if math.IsInf(bf(h), 0) {
			return
		}
		for _, n := range []uint16{h - 1, h + 1} {
			if d, dn := math.Abs(bf(h)-float64(f)), math.Abs(bf(n)-float64(f)); dn < d || dn == d && h&1 == 1 && math.Signbit(bf(n)) == math.Signbit(bf(h)) {
				t.Fatalf("BF16(%g) = %#04x, but %#04x is nearer (or even)", f, h, n)
			}
		}
	})
	for _, c := range []struct {
		f    float32
		want uint16
	}{
		{1, 0x3C00}, {-2, 0xC000}, {65504, 0x7BFF}, {65520, 0x7C00}, {6.1035156e-05, 0x0400},
		{5.9604645e-08, 0x0001}, {2.9802322e-08, 0x0000}, {0.33325195, 0x3555}, {float32(math.NaN()), 0x7E00},
	} {
		if got := FP16(c.f); got != c.want {
			t.Errorf("FP16(%g) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
}

// realKV reads the real KV cache in testdata (see testdata/README.md) as
// snapshots, one per sequence, converted to dtype, in 16-token tiles. A
// missing or altered file fails the test.
func realKV(t testing.TB, dtype tiling.DType) []*Snapshot {
	raw, err := os.ReadFile(filepath.Join("testdata", "kv_aidreams_8x128_fp32.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != realKVSum {
		t.Fatalf("testdata/kv_aidreams_8x128_fp32.bin has SHA-256 %x, want %s", sum, realKVSum)
	}
	g := tiling.Geometry{Layers: 4, KVHeads: 4, HeadDim: 16, DType: dtype, TileShift: 4, Order: tiling.NHD}
	per := len(raw) / 8
	var snaps []*Snapshot
	for s := range 8 {
		seq := raw[s*per : (s+1)*per]
		if dtype != tiling.FP32 {
			if seq, err = ConvertFP32(seq, dtype); err != nil {
				t.Fatal(err)
			}
		}
		snap, err := FromRaw(g, seq)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Tokens != 128 {
			t.Fatalf("sequence %d: %d tokens, want 128", s, snap.Tokens)
		}
		snaps = append(snaps, snap)
	}
	return snaps
}

// TestRealKV encodes the real cache, checks exact round trips, and pins
// the compression ratios measured on it (the data is fixed, so the ratio
// is too).
func TestRealKV(t *testing.T) {
	for _, c := range []struct {
		dtype tiling.DType
		mode  Mode
		min   float64
	}{
		{tiling.BF16, Fast, 1.45}, {tiling.BF16, Max, 1.45}, {tiling.FP16, Fast, 1.15}, {tiling.FP16, Max, 1.2}, {tiling.FP32, Fast, 1.1}, {tiling.FP32, Max, 1.1},
	} {
		snaps := realKV(t, c.dtype)
		raw, enc := 0, 0
		e := NewEncoder(Options{Mode: c.mode})
		for _, s := range snaps {
			d, err := e.Encode(nil, nil, s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Apply(nil, d)
			if err != nil || !Equal(got, s) {
				t.Fatalf("%v: round trip failed: %v", c.dtype, err)
			}
			raw += len(s.Data)
			enc += len(d)
		}
		ratio := float64(raw) / float64(enc)
		t.Logf("%v mode %d: %d -> %d bytes, %.3fx", c.dtype, c.mode, raw, enc, ratio)
		if ratio < c.min {
			t.Errorf("%v mode %d: ratio %.3f, want at least %.2f", c.dtype, c.mode, ratio, c.min)
		}
	}
}

// realKVSum is the data's SHA-256, as shared/data/SHA256SUMS lists it.
const realKVSum = "0c1b558754c6a6c060cf7ed7e643c497be1ef9b23d62c8eb219220fe0f48d85e"
