package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/layer0/anth/kvdelta"
	"github.com/layer0/anth/tiling"
)

// kvDumps writes a raw fp32 dump of 40 tokens and of its first 37 tokens.
func kvDumps(t *testing.T) (full, prefix string) {
	g := tiling.Geometry{Layers: 2, KVHeads: 2, HeadDim: 4, DType: tiling.FP32, TileShift: 3}
	per := g.Layers * 2 * g.TokenBytes()
	raw := make([]byte, 40*per)
	for i := 0; i+3 < len(raw); i += 4 {
		copy(raw[i:], []byte{byte(i), byte(i >> 8), byte(i * 7), 0x3F})
	}
	s, err := kvdelta.FromRaw(g, raw)
	if err != nil {
		t.Fatal(err)
	}
	p := &kvdelta.Snapshot{Geometry: g, Tokens: 37, Data: append([]byte(nil), s.Data[:g.Layout().Tiles(37)*g.TileBytes()]...)}
	dir := t.TempDir()
	full, prefix = filepath.Join(dir, "full.raw"), filepath.Join(dir, "prefix.raw")
	os.WriteFile(full, raw, 0o644)
	os.WriteFile(prefix, p.AppendRaw(nil), 0o644)
	return full, prefix
}

func TestKV(t *testing.T) {
	full, prefix := kvDumps(t)
	geo := []string{"--layers", "2", "--kv-heads", "2", "--head-dim", "4", "--dtype", "fp32", "--tile-shift", "3"}
	want, _ := os.ReadFile(full)
	for _, extra := range [][]string{nil, {"--base", prefix}, {"--mode", "max"}} {
		var delta bytes.Buffer
		args := append(append([]string{"kv", "encode"}, geo...), extra...)
		if err := run(append(args, full), nil, &delta); err != nil {
			t.Fatalf("%v: %v", extra, err)
		}
		apply := []string{"kv", "apply"}
		if len(extra) > 0 && extra[0] == "--base" {
			apply = append(apply, extra...)
		}
		var out bytes.Buffer
		if err := run(apply, &delta, &out); err != nil {
			t.Fatalf("apply %v: %v", extra, err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("%v: apply does not restore the dump", extra)
		}
	}
	var stats bytes.Buffer
	if err := run(append(append([]string{"kv", "stats"}, geo...), "--convert", "bf16", full), nil, &stats); err != nil || !strings.Contains(stats.String(), "ratio") {
		t.Fatalf("stats: %v\n%s", err, stats.String())
	}
	for _, bad := range [][]string{{"kv"}, {"kv", "encode", "--dtype", "fp64"}, {"kv", "apply", "a", "b"}, {"kv", "encode", "--dtype", "bf16", "--tile-shift", "2", "--convert", "fp16"}} {
		if err := run(bad, nil, &bytes.Buffer{}); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
	// A wrong base is an error naming the offset, not bad output.
	var delta bytes.Buffer
	_ = run(append(append([]string{"kv", "encode"}, geo...), "--base", prefix, full), nil, &delta)
	if err := run([]string{"kv", "apply", "--base", full}, &delta, &bytes.Buffer{}); !errors.Is(err, kvdelta.ErrBase) {
		t.Fatalf("wrong base: %v", err)
	}
}
