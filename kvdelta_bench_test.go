package anth_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"

	"github.com/layer0/anth/kvdelta"
	"github.com/layer0/anth/tiling"
)

// realKV is the real KV cache in kvdelta/testdata as one snapshot per
// sequence (4 layers, 4 KV heads, head_dim 16, 128 tokens, 16-token tiles),
// converted from fp32. A missing file fails the benchmark.
func realKV(b *testing.B, dtype tiling.DType) []*kvdelta.Snapshot {
	raw, err := os.ReadFile(filepath.Join("kvdelta", "testdata", "kv_aidreams_8x128_fp32.bin"))
	if err != nil {
		b.Fatal(err)
	}
	g := tiling.Geometry{Layers: 4, KVHeads: 4, HeadDim: 16, DType: dtype, TileShift: 4}
	per := len(raw) / 8
	var snaps []*kvdelta.Snapshot
	for s := range 8 {
		seq, err := kvdelta.ConvertFP32(raw[s*per:(s+1)*per], dtype)
		if err != nil {
			b.Fatal(err)
		}
		snap, err := kvdelta.FromRaw(g, seq)
		if err != nil {
			b.Fatal(err)
		}
		snaps = append(snaps, snap)
	}
	return snaps
}

// kvCodec compresses one snapshot's bytes and restores them.
type kvCodec struct {
	name string
	enc  func(s *kvdelta.Snapshot) []byte
	dec  func(s *kvdelta.Snapshot, b []byte) // must restore s exactly
}

func kvCodecs(b *testing.B) []kvCodec {
	fast := kvdelta.NewEncoder(kvdelta.Options{Mode: kvdelta.Fast})
	maxe := kvdelta.NewEncoder(kvdelta.Options{Mode: kvdelta.Max})
	dec := kvdelta.NewDecoder(kvdelta.Limits{})
	zf, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	zl, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithAllLitEntropyCompression(true), zstd.WithEncoderConcurrency(1))
	zd, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	var out []byte
	check := func(s *kvdelta.Snapshot, got []byte) {
		if string(got) != string(s.Data) {
			b.Fatal("codec did not restore the snapshot")
		}
	}
	var got kvdelta.Snapshot // reused, as a receiver applying deltas in a loop does
	applyKV := func(s *kvdelta.Snapshot, d []byte) {
		if err := dec.ApplyTo(&got, nil, d); err != nil {
			b.Fatal(err)
		}
		check(s, got.Data)
	}
	return []kvCodec{
		{"kvdelta-fast", func(s *kvdelta.Snapshot) []byte { out, _ = fast.Encode(out[:0], nil, s); return out }, applyKV},
		{"kvdelta-max", func(s *kvdelta.Snapshot) []byte { out, _ = maxe.Encode(out[:0], nil, s); return out }, applyKV},
		{"zstd-fastest", func(s *kvdelta.Snapshot) []byte { return zf.EncodeAll(s.Data, out[:0]) }, func(s *kvdelta.Snapshot, d []byte) {
			got, err := zd.DecodeAll(d, nil)
			if err != nil {
				b.Fatal(err)
			}
			check(s, got)
		}},
		{"zstd-fastest-alllit", func(s *kvdelta.Snapshot) []byte { return zl.EncodeAll(s.Data, out[:0]) }, func(s *kvdelta.Snapshot, d []byte) {
			got, err := zd.DecodeAll(d, nil)
			if err != nil {
				b.Fatal(err)
			}
			check(s, got)
		}},
		{"s2", func(s *kvdelta.Snapshot) []byte { return s2.Encode(out[:cap(out)], s.Data) }, func(s *kvdelta.Snapshot, d []byte) {
			got, err := s2.Decode(nil, d)
			if err != nil {
				b.Fatal(err)
			}
			check(s, got)
		}},
	}
}

// BenchmarkKV compresses the real KV cache, every sequence as a full
// snapshot, with kvdelta's two modes and the general-purpose codecs a user
// would reach for, on the same bytes in the same run. ratio is raw bytes
// over encoded bytes; MB/s counts raw bytes.
func BenchmarkKV(b *testing.B) {
	for _, dtype := range []tiling.DType{tiling.BF16, tiling.FP16} {
		b.Run(dtype.String(), func(b *testing.B) {
			snaps := realKV(b, dtype)
			raw := 0
			for _, s := range snaps {
				raw += len(s.Data)
			}
			for _, c := range kvCodecs(b) {
				encoded := make([][]byte, len(snaps))
				total := 0
				for i, s := range snaps {
					encoded[i] = append([]byte(nil), c.enc(s)...)
					total += len(encoded[i])
				}
				ratio := float64(raw) / float64(total)
				b.Run(c.name+"/encode", func(b *testing.B) {
					b.SetBytes(int64(raw))
					b.ReportAllocs()
					for b.Loop() {
						for _, s := range snaps {
							c.enc(s)
						}
					}
					b.ReportMetric(ratio, "ratio")
				})
				b.Run(c.name+"/decode", func(b *testing.B) {
					b.SetBytes(int64(raw))
					b.ReportAllocs()
					for b.Loop() {
						for i, s := range snaps {
							c.dec(s, encoded[i])
						}
					}
					b.ReportMetric(ratio, "ratio")
				})
			}
		})
	}
}

// BenchmarkKVAppendStep encodes the delta of a cache that grew by one
// token, at growing context lengths: its cost must stay flat, since only
// the grown tile is read and sent (the rest is named by hash).
func BenchmarkKVAppendStep(b *testing.B) {
	g := tiling.Geometry{Layers: 32, KVHeads: 8, HeadDim: 128, DType: tiling.BF16, TileShift: 4}
	for _, n := range []int{1024, 4096, 16384} {
		b.Run(strconv.Itoa(n)+"-tokens", func(b *testing.B) {
			base, next := growingKV(g, n)
			e := kvdelta.NewEncoder(kvdelta.Options{})
			var d []byte
			b.ReportAllocs()
			for b.Loop() {
				d, _ = e.Encode(d[:0], base, next)
			}
			b.ReportMetric(float64(len(d)), "delta-bytes")
		})
	}
}

// growingKV returns snapshots of n-1 and n tokens of one sequence, with
// hashes; values are random bf16 with a realistic exponent spread.
func growingKV(g tiling.Geometry, n int) (base, next *kvdelta.Snapshot) {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	l := g.Layout()
	data := make([]byte, l.Tiles(n)*g.TileBytes())
	for i := 0; i+1 < len(data); i += 2 {
		v := kvdelta.BF16(float32(rng.NormFloat64()))
		data[i], data[i+1] = byte(v), byte(v>>8)
	}
	ids := make([]uint32, n)
	for i := range ids {
		ids[i] = uint32(rng.IntN(128_000))
	}
	next = &kvdelta.Snapshot{Geometry: g, Tokens: n, Data: data,
		Hashes: tiling.AppendTileHashes(nil, l, tiling.Root(nil), ids)}
	baseData := append([]byte(nil), data...)
	// Token n-1 is not yet in the base: clear its slots.
	tile, off := l.Tile(n - 1)
	for layer := range g.Layers {
		for kv := range 2 {
			o := g.Offset(layer, kv, 0, tile, off, 0)
			clear(baseData[o : o+g.TokenBytes()])
		}
	}
	base = &kvdelta.Snapshot{Geometry: g, Tokens: n - 1, Data: baseData,
		Hashes: tiling.AppendTileHashes(nil, l, tiling.Root(nil), ids[:n-1])}
	return base, next
}
