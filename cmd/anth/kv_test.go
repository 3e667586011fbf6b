package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
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

	// A wrong base is an error naming the offset, not bad output.
	var delta bytes.Buffer
	_ = run(append(append([]string{"kv", "encode"}, geo...), "--base", prefix, full), nil, &delta)
	if err := run([]string{"kv", "apply", "--base", full}, &delta, &bytes.Buffer{}); !errors.Is(err, kvdelta.ErrBase) {
		t.Fatalf("wrong base: %v", err)
	}
}

// geo is the geometry flags of kvDumps' dumps.
var geo = []string{"--layers", "2", "--kv-heads", "2", "--head-dim", "4", "--dtype", "fp32", "--tile-shift", "3"}

// TestKVConvert runs the built binary: a delta made with --convert applies
// to its own fp32 base with the same --convert, and gives the converted
// dump; stats speaks of the converted tiles.
func TestKVConvert(t *testing.T) {
	full, prefix := kvDumps(t)
	raw, _ := os.ReadFile(full)
	for _, to := range []tiling.DType{tiling.BF16, tiling.FP16} {
		conv := []string{"--convert", to.String()}
		delta, stderr, code := runAnth(t, nil, append(append(append([]string{"kv", "encode"}, geo...), conv...), "--base", prefix, full)...)
		if code != 0 {
			t.Fatalf("%v: encode exits %d: %s", to, code, stderr)
		}
		out, stderr, code := runAnth(t, delta, append([]string{"kv", "apply", "--base", prefix}, conv...)...)
		want, _ := kvdelta.ConvertFP32(raw, to)
		if code != 0 || !bytes.Equal(out, want) {
			t.Fatalf("%v: apply exits %d (%s), output %d bytes, want the converted dump's %d", to, code, stderr, len(out), len(want))
		}
		// Without --convert, the error says what to do.
		if _, stderr, code = runAnth(t, delta, "kv", "apply", "--base", prefix); code != 1 || !bytes.Contains(stderr, []byte("--convert")) {
			t.Errorf("%v: apply without --convert exits %d: %s", to, code, stderr)
		}
		stats, stderr, code := runAnth(t, nil, append(append(append([]string{"kv", "stats"}, geo...), conv...), full)...)
		g := tiling.Geometry{Layers: 2, KVHeads: 2, HeadDim: 4, DType: to, TileShift: 3}
		line := "tokens 40, tiles 5 of " + strconv.Itoa(g.TileBytes()) + " bytes (" + to.String() + ")"
		if code != 0 || !strings.Contains(string(stats), line) {
			t.Errorf("%v: stats exits %d (%s), prints\n%s\nwant %q", to, code, stderr, stats, line)
		}
	}
}

// TestKVOrder: --order sets the order of the dump and the tiles, and
// round-trips; --layout, its old name, is refused by name.
func TestKVOrder(t *testing.T) {
	full, _ := kvDumps(t)
	raw, _ := os.ReadFile(full)
	delta, stderr, code := runAnth(t, raw, append(append([]string{"kv", "encode"}, geo...), "--order", "hnd")...)
	if code != 0 {
		t.Fatalf("encode --order hnd exits %d: %s", code, stderr)
	}
	if g, err := kvdelta.ReadGeometry(delta); err != nil || g.Order != tiling.HND {
		t.Fatalf("the delta's order: %v, %v", g.Order, err)
	}
	if out, stderr, code := runAnth(t, delta, "kv", "apply"); code != 0 || !bytes.Equal(out, raw) {
		t.Fatalf("apply exits %d (%s): the dump does not come back", code, stderr)
	}
	if _, stderr, code := runAnth(t, raw, append(append([]string{"kv", "encode"}, geo...), "--layout", "hnd")...); code != 2 || !bytes.Contains(stderr, []byte("-layout")) {
		t.Errorf("--layout: exit %d, %s", code, stderr)
	}
}

// TestKVUsageErrors: every usage error exits 2 and names the bad flag or
// value, on its first line, above the usage.
func TestKVUsageErrors(t *testing.T) {
	with := func(extra ...string) []string { return append(append([]string{"kv", "encode"}, geo...), extra...) }
	for _, c := range []struct {
		args []string
		name string
	}{
		{[]string{"kv"}, "subcommand"},
		{[]string{"kv", "pack"}, "pack"},
		{[]string{"kv", "encode", "--dtype", "fp64"}, "--layers"},
		{with("--dtype", "fp64"), "fp64"},
		{with("--layers", "0"), "--layers 0"},
		{with("--kv-heads", "-2"), "--kv-heads"},
		{with("--head-dim", "x"), "-head-dim"},
		{with("--tile-shift", "25"), "--tile-shift 25"},
		{with("--order", "nth"), "nth"},
		{with("--mode", "slow"), "slow"},
		{with("--convert", "fp8e4m3"), "fp8e4m3"},
		{append([]string{"kv", "encode", "--layers", "1", "--kv-heads", "1", "--head-dim", "1", "--tile-shift", "1"}, "--dtype", "bf16", "--convert", "fp16"), "--convert fp16"},
		{with("--layers", "1048576", "--kv-heads", "1048576", "--tile-shift", "24"), "geometry"},
		{with("--bogus"), "-bogus"},
		{with("a", "b"), `"b"`},
		{[]string{"kv", "apply", "a", "b"}, `"b"`},
		{[]string{"kv", "apply", "--convert", "bf16"}, "--base"},
		{[]string{"kv", "apply", "--frobnicate"}, "-frobnicate"},
	} {
		_, stderr, code := runAnth(t, nil, c.args...)
		first, _, _ := strings.Cut(string(stderr), "\n")
		if code != 2 || !strings.Contains(first, c.name) || !strings.Contains(string(stderr), "usage:") {
			t.Errorf("anth %q: exit %d, first line %q, want 2 and %q", c.args, code, first, c.name)
		}
	}
}
