package kvdelta

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
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

// fp16 returns the value of IEEE half h.
func fp16(h uint16) float64 {
	e, m := int(h>>10&0x1F), float64(h&0x3FF)
	v := m * 0x1p-24 // subnormal
	switch {
	case e == 31 && m == 0:
		v = math.Inf(1)
	case e == 31:
		v = math.NaN()
	case e > 0:
		v = (1 + m/1024) * math.Ldexp(1, e-15)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

// bf16 returns the value of bfloat16 h.
func bf16(h uint16) float64 { return float64(math.Float32frombits(uint32(h) << 16)) }

// TestConversions checks the roundings against float64 arithmetic: the
// result is the nearest representable value, ties to even, of f's sign;
// past the largest finite value (a tie with the next power of two included)
// it is infinity; NaN stays NaN. Ties are drawn apart, since random bits
// almost never hit one.
func TestConversions(t *testing.T) {
	for _, c := range []struct {
		name  string
		conv  func(float32) uint16
		value func(uint16) float64
		inf   uint16 // the magnitude of infinity
	}{
		{"BF16", BF16, bf16, 0x7F80},
		{"FP16", FP16, fp16, 0x7C00},
	} {
		t.Run(c.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				f := math.Float32frombits(rapid.Uint32().Draw(t, "bits"))
				h := c.conv(f)
				sign := uint16(0)
				if math.Signbit(float64(f)) {
					sign = 0x8000
				}
				if f != f {
					if v := c.value(h); v == v {
						t.Fatalf("%s(NaN %#08x) = %#04x, not NaN", c.name, math.Float32bits(f), h)
					}
					return
				}
				if h&0x8000 != sign {
					t.Fatalf("%s(%g) = %#04x, of the other sign", c.name, f, h)
				}
				// The representable values on either side: the nearest
				// is h, a tie goes to the even one, and infinity is the
				// value after the largest finite one.
				mag := h &^ 0x8000
				if mag > c.inf {
					t.Fatalf("%s(%g) = %#04x, NaN", c.name, f, h)
				}
				x := math.Abs(float64(f))
				at := func(m uint16) float64 {
					if m == c.inf {
						return 2*c.value(c.inf-1) - c.value(c.inf-2) // the next step
					}
					return c.value(m)
				}
				if mag == c.inf && x < c.value(c.inf-1) {
					t.Fatalf("%s(%g) = infinity, under the largest finite value", c.name, f)
				}
				for _, n := range []uint16{mag - 1, mag + 1} {
					if n > c.inf { // past infinity, or below zero
						continue
					}
					d, dn := math.Abs(at(mag)-x), math.Abs(at(n)-x)
					if mag == c.inf && math.IsInf(x, 0) {
						d = 0
					}
					if dn < d || dn == d && mag&1 == 1 {
						t.Fatalf("%s(%g) = %#04x, but %#04x is nearer (or even)", c.name, f, h, n|sign)
					}
				}
			})
			// Ties, and the values either side of them.
			rapid.Check(t, func(t *rapid.T) {
				m := rapid.Uint16Range(0, c.inf-1).Draw(t, "magnitude")
				sign := rapid.SampledFrom([]uint16{0, 0x8000}).Draw(t, "sign")
				lo, hi := c.value(m|sign), c.value((m+1)|sign)
				if m+1 == c.inf {
					hi = 2*lo - c.value((m-1)|sign)
				}
				mid := float32((lo + hi) / 2)
				even := m &^ 1
				if m&1 == 1 {
					even = m + 1
				}
				for _, k := range []struct {
					f    float32
					want uint16
				}{
					{mid, even | sign},
					{math.Nextafter32(mid, float32(lo)), m | sign},
					{math.Nextafter32(mid, float32(hi)), (m + 1) | sign},
				} {
					if got := c.conv(k.f); got != k.want {
						t.Fatalf("%s(%g) = %#04x, want %#04x", c.name, k.f, got, k.want)
					}
				}
			})
		})
	}
	for _, c := range []struct {
		f    float32
		want uint16
	}{
		{1, 0x3C00}, {-2, 0xC000}, {65504, 0x7BFF}, {65520, 0x7C00}, {6.1035156e-05, 0x0400},
		{5.9604645e-08, 0x0001}, {2.9802322e-08, 0x0000}, {0.33325195, 0x3555}, {float32(math.NaN()), 0x7E00},
		{65536, 0x7C00}, {-131071, 0xFC00}, {1e38, 0x7C00}, {float32(math.Inf(1)), 0x7C00}, {float32(math.Inf(-1)), 0xFC00},
	} {
		if got := FP16(c.f); got != c.want {
			t.Errorf("FP16(%g) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
	for _, c := range []struct {
		bits uint32
		want uint16
	}{
		{0x7F800001, 0x7FC0}, {0xFF800001, 0xFFC0}, {0x7FC00000, 0x7FC0}, {0x3F800000, 0x3F80}, {0x3F808000, 0x3F80}, {0x3F818000, 0x3F82},
	} {
		if got := BF16(math.Float32frombits(c.bits)); got != c.want {
			t.Errorf("BF16(%#08x) = %#04x, want %#04x", c.bits, got, c.want)
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

// TestRawErrors: FromRaw and ConvertFP32 take only what they can convert
// whole; ConvertFP32 converts each float32 in place.
func TestRawErrors(t *testing.T) {
	g := tiling.Geometry{Layers: 1, KVHeads: 1, HeadDim: 2, DType: tiling.BF16}
	if _, err := FromRaw(tiling.Geometry{}, nil); !errors.Is(err, ErrSnapshot) {
		t.Errorf("FromRaw of no geometry: %v", err)
	}
	if _, err := FromRaw(g, make([]byte, 2*2*2+2)); !errors.Is(err, ErrSnapshot) {
		t.Errorf("FromRaw of a token and a half: %v", err)
	}
	f32 := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, math.Float32bits(1)), math.Float32bits(-2.5))
	for _, c := range []struct {
		raw  []byte
		to   tiling.DType
		want []byte // nil: an error
	}{
		{f32, tiling.BF16, []byte{0x80, 0x3F, 0x20, 0xC0}},
		{f32, tiling.FP16, []byte{0x00, 0x3C, 0x00, 0xC1}},
		{f32[:6], tiling.BF16, nil},
		{f32, tiling.FP32, nil},
		{f32, tiling.FP8E4M3, nil},
	} {
		got, err := ConvertFP32(c.raw, c.to)
		if c.want == nil && !errors.Is(err, ErrSnapshot) || c.want != nil && (err != nil || !bytes.Equal(got, c.want)) {
			t.Errorf("ConvertFP32(% x, %v) = % x, %v; want % x", c.raw, c.to, got, err, c.want)
		}
	}
}
