package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/layer0/anth/kvdelta"
	"github.com/layer0/anth/tiling"
)

const kvUsage = `usage:
  anth kv encode GEOMETRY [--base FILE] [--mode fast|max] [--convert bf16|fp16] [RAW|-]
  anth kv apply [--base FILE] [DELTA|-]
  anth kv stats GEOMETRY [--base FILE] [--mode fast|max] [--convert bf16|fp16] [RAW|-]
GEOMETRY: --layers L --kv-heads H --head-dim D --dtype bf16|fp16|fp32 --tile-shift K [--layout nhd|hnd]
A raw dump is little-endian [layer][K,V][token][kv_head][head_dim] (nhd) or
[layer][K,V][kv_head][token][head_dim] (hnd); --base names the base's raw dump.
`

// kv runs the anth kv subcommands.
func kv(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return usageErr(kvUsage)
	}
	switch args[0] {
	case "encode", "stats":
		return kvEncode(args[0], args[1:], stdin, stdout)
	case "apply":
		return kvApply(args[1:], stdin, stdout)
	}
	return usageErr(kvUsage)
}

// usageError is a command-line mistake; it carries the usage to print.
type usageError struct{ text string }

func (u *usageError) Error() string        { return "usage" }
func (u *usageError) Is(target error) bool { return target == errUsage }

func usageErr(text string) error { return &usageError{text} }

func kvEncode(cmd string, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("anth kv "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	layers := fs.Int("layers", 0, "")
	heads := fs.Int("kv-heads", 0, "")
	dim := fs.Int("head-dim", 0, "")
	dtype := fs.String("dtype", "", "")
	shift := fs.Int("tile-shift", -1, "")
	layout := fs.String("layout", "nhd", "")
	basePath := fs.String("base", "", "")
	mode := fs.String("mode", "fast", "")
	convert := fs.String("convert", "", "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 1 {
		return usageErr(kvUsage)
	}
	d, ok := tiling.ParseDType(*dtype)
	if !ok || *shift < 0 || *shift > tiling.MaxTileShift || (*layout != "nhd" && *layout != "hnd") || (*mode != "fast" && *mode != "max") {
		return usageErr(kvUsage)
	}
	g := tiling.Geometry{Layers: *layers, KVHeads: *heads, HeadDim: *dim, DType: d, TileShift: uint8(*shift)}
	if *layout == "hnd" {
		g.Order = tiling.HND
	}
	var to tiling.DType
	if *convert != "" {
		if to, ok = tiling.ParseDType(*convert); !ok || d != tiling.FP32 || (to != tiling.BF16 && to != tiling.FP16) {
			return usageErr(kvUsage)
		}
	}
	load := func(r io.Reader) (*kvdelta.Snapshot, error) {
		raw, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		gg := g
		if to != 0 {
			if raw, err = kvdelta.ConvertFP32(raw, to); err != nil {
				return nil, err
			}
			gg.DType = to
		}
		return kvdelta.FromRaw(gg, raw)
	}
	in, closeIn, err := openArg(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	next, err := load(in)
	if err != nil {
		return err
	}
	var base *kvdelta.Snapshot
	if *basePath != "" {
		f, err := os.Open(*basePath)
		if err != nil {
			return err
		}
		defer f.Close()
		if base, err = load(f); err != nil {
			return fmt.Errorf("base: %w", err)
		}
	}
	opts := kvdelta.Options{}
	if *mode == "max" {
		opts.Mode = kvdelta.Max
	}
	start := time.Now()
	delta, err := kvdelta.NewEncoder(opts).Encode(nil, base, next)
	if err != nil {
		return err
	}
	took := time.Since(start)
	if cmd == "encode" {
		_, err = stdout.Write(delta)
		return err
	}
	start = time.Now()
	back, err := kvdelta.Apply(base, delta)
	if err != nil {
		return fmt.Errorf("applying the delta back: %w", err)
	}
	applied := time.Since(start)
	if !kvdelta.Equal(back, next) {
		return errors.New("the delta does not restore the snapshot")
	}
	mb := func(d time.Duration) float64 { return float64(len(next.Data)) / d.Seconds() / 1e6 }
	fmt.Fprintf(stdout, "tokens %d, tiles %d of %d bytes (%v)\n", next.Tokens, next.Tiles(), g.TileBytes(), next.Geometry.DType)
	fmt.Fprintf(stdout, "raw %d bytes, delta %d bytes, ratio %.3fx\n", len(next.Data), len(delta), float64(len(next.Data))/float64(len(delta)))
	fmt.Fprintf(stdout, "encode %.0f MB/s, apply %.0f MB/s (one run, wall clock; use the benchmarks for numbers)\n", mb(took), mb(applied))
	return nil
}

func kvApply(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("anth kv apply", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	basePath := fs.String("base", "", "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 1 {
		return usageErr(kvUsage)
	}
	in, closeIn, err := openArg(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	delta, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	var base *kvdelta.Snapshot
	if *basePath != "" {
		g, err := kvdelta.ReadGeometry(delta)
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(*basePath)
		if err != nil {
			return err
		}
		if base, err = kvdelta.FromRaw(g, raw); err != nil {
			return fmt.Errorf("base: %w", err)
		}
	}
	s, err := kvdelta.Apply(base, delta)
	if err != nil {
		return err
	}
	_, err = stdout.Write(s.AppendRaw(nil))
	return err
}

// openArg opens a file argument, or stdin for "" and "-".
func openArg(name string, stdin io.Reader) (io.Reader, func(), error) {
	if name == "" || name == "-" {
		return stdin, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}
