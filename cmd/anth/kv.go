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
  anth kv apply [--base FILE] [--convert bf16|fp16] [DELTA|-]
  anth kv stats GEOMETRY [--base FILE] [--mode fast|max] [--convert bf16|fp16] [RAW|-]
GEOMETRY: --layers L --kv-heads H --head-dim D --dtype bf16|fp16|fp32|fp8e4m3|fp8e5m2
          --tile-shift K [--order nhd|hnd]
A raw dump is little-endian [layer][K,V][token][kv_head][head_dim] (order nhd) or
[layer][K,V][kv_head][token][head_dim] (order hnd); --base names the base's raw dump.
--convert reads fp32 dumps (--dtype fp32) and sends them as bf16 or fp16; kv apply
takes the same --convert for an fp32 base, and writes the delta's dtype.
`

// kv runs the anth kv subcommands.
func kv(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return kvUsageErr("a subcommand: encode, apply or stats")
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		return flag.ErrHelp
	}
	switch args[0] {
	case "encode", "stats":
		return kvEncode(args[0], args[1:], stdin, stdout)
	case "apply":
		return kvApply(args[1:], stdin, stdout)
	}
	return kvUsageErr("unknown subcommand %q", args[0])
}

// kvUsageErr is a usage error of anth kv that names the bad flag or value.
func kvUsageErr(format string, a ...any) error { return usageErr("kv", format, a...) }

// kvFlags are the flags of anth kv encode and stats.
type kvFlags struct {
	g        tiling.Geometry
	to       tiling.DType // --convert's dtype, or 0
	basePath string
	mode     kvdelta.Mode
}

func parseKVFlags(cmd string, args []string) (kvFlags, string, error) {
	var f kvFlags
	fs := flag.NewFlagSet("anth kv "+cmd, flag.ContinueOnError)
	fs.IntVar(&f.g.Layers, "layers", 0, "")
	fs.IntVar(&f.g.KVHeads, "kv-heads", 0, "")
	fs.IntVar(&f.g.HeadDim, "head-dim", 0, "")
	dtype := fs.String("dtype", "", "")
	shift := fs.Int("tile-shift", -1, "")
	order := fs.String("order", "nhd", "")
	fs.StringVar(&f.basePath, "base", "", "")
	mode := fs.String("mode", "fast", "")
	convert := fs.String("convert", "", "")
	if err := parseFlags("kv", fs, args); err != nil {
		return f, "", err
	}
	if fs.NArg() > 1 {
		return f, "", kvUsageErr("unexpected argument %q", fs.Arg(1))
	}
	for _, d := range []struct {
		name string
		v    int
	}{{"--layers", f.g.Layers}, {"--kv-heads", f.g.KVHeads}, {"--head-dim", f.g.HeadDim}} {
		if d.v <= 0 || d.v > 1<<20 {
			return f, "", kvUsageErr("%s %d: want 1 to %d", d.name, d.v, 1<<20)
		}
	}
	var ok bool
	if f.g.DType, ok = tiling.ParseDType(*dtype); !ok {
		return f, "", kvUsageErr("--dtype %q: want bf16, fp16, fp32, fp8e4m3 or fp8e5m2", *dtype)
	}
	if *shift < 0 || *shift > tiling.MaxTileShift {
		return f, "", kvUsageErr("--tile-shift %d: want 0 to %d", *shift, tiling.MaxTileShift)
	}
	f.g.TileShift = uint8(*shift)
	switch *order {
	case "nhd":
	case "hnd":
		f.g.Order = tiling.HND
	default:
		return f, "", kvUsageErr("--order %q: want nhd or hnd", *order)
	}
	if err := f.g.Check(); err != nil {
		return f, "", kvUsageErr("geometry: %v", err)
	}
	switch *mode {
	case "fast":
	case "max":
		f.mode = kvdelta.Max
	default:
		return f, "", kvUsageErr("--mode %q: want fast or max", *mode)
	}
	if *convert != "" {
		var err error
		if f.to, err = parseConvert(*convert, f.g.DType); err != nil {
			return f, "", err
		}
	}
	return f, fs.Arg(0), nil
}

// parseConvert parses --convert, which turns fp32 dumps into bf16 or fp16.
func parseConvert(name string, from tiling.DType) (tiling.DType, error) {
	to, ok := tiling.ParseDType(name)
	if !ok || (to != tiling.BF16 && to != tiling.FP16) {
		return 0, kvUsageErr("--convert %q: want bf16 or fp16", name)
	}
	if from != tiling.FP32 {
		return 0, kvUsageErr("--convert %s: the dump must be fp32, and --dtype is %v", name, from)
	}
	return to, nil
}

// load reads a raw dump of geometry g, converted to dtype to if it is not 0.
func load(r io.Reader, g tiling.Geometry, to tiling.DType) (*kvdelta.Snapshot, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if to != 0 {
		if raw, err = kvdelta.ConvertFP32(raw, to); err != nil {
			return nil, err
		}
		g.DType = to
	}
	return kvdelta.FromRaw(g, raw)
}

func kvEncode(cmd string, args []string, stdin io.Reader, stdout io.Writer) error {
	f, arg, err := parseKVFlags(cmd, args)
	if err != nil {
		return err
	}
	in, name, closeIn, err := openArg(arg, stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	next, err := load(in, f.g, f.to)
	if err != nil {
		return inFile(name, err)
	}
	var base *kvdelta.Snapshot
	if f.basePath != "" {
		b, err := os.Open(f.basePath)
		if err != nil {
			return err
		}
		defer b.Close()
		if base, err = load(b, f.g, f.to); err != nil {
			return fmt.Errorf("base: %w", err)
		}
	}
	start := time.Now()
	delta, err := kvdelta.NewEncoder(kvdelta.Options{Mode: f.mode}).Encode(nil, base, next)
	if err != nil {
		return err
	}
	if cmd == "encode" {
		_, err = stdout.Write(delta)
		return err
	}
	return kvStats(stdout, base, next, delta, time.Since(start))
}

// kvStats applies delta back and prints what it cost.
func kvStats(stdout io.Writer, base, next *kvdelta.Snapshot, delta []byte, took time.Duration) error {
	start := time.Now()
	back, err := kvdelta.Apply(base, delta)
	if err != nil {
		return fmt.Errorf("applying the delta back: %w", err)
	}
	applied := time.Since(start)
	if !kvdelta.Equal(back, next) {
		return errors.New("the delta does not restore the snapshot")
	}
	g := next.Geometry
	// A small dump takes microseconds: whole MB/s would print 0.
	rate := func(d time.Duration) string {
		r := float64(len(next.Data)) / max(d.Seconds(), 1e-9) / 1e6
		switch {
		case r >= 100:
			return fmt.Sprintf("%.0f MB/s", r)
		case r >= 1:
			return fmt.Sprintf("%.1f MB/s", r)
		}
		return fmt.Sprintf("%.3g MB/s", r)
	}
	fmt.Fprintf(stdout, "tokens %d, tiles %d of %d bytes (%v)\n", next.Tokens, next.Tiles(), g.TileBytes(), g.DType)
	fmt.Fprintf(stdout, "raw %d bytes, delta %d bytes, ratio %.3fx\n", len(next.Data), len(delta), float64(len(next.Data))/float64(len(delta)))
	fmt.Fprintf(stdout, "encode %s in %v, apply %s in %v (1 MB = 10^6 bytes of raw dump; one run, wall clock; use the benchmarks for numbers)\n",
		rate(took), took.Round(time.Microsecond), rate(applied), applied.Round(time.Microsecond))
	return nil
}

func kvApply(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("anth kv apply", flag.ContinueOnError)
	basePath := fs.String("base", "", "")
	convert := fs.String("convert", "", "")
	if err := parseFlags("kv", fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return kvUsageErr("unexpected argument %q", fs.Arg(1))
	}
	if *convert != "" && *basePath == "" {
		return kvUsageErr("--convert %s converts the base: it needs --base", *convert)
	}
	in, name, closeIn, err := openArg(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	delta, err := io.ReadAll(in)
	if err != nil {
		return inFile(name, err)
	}
	var base *kvdelta.Snapshot
	if *basePath != "" {
		if base, err = loadBase(*basePath, *convert, delta); err != nil {
			return err
		}
	}
	s, err := kvdelta.Apply(base, delta)
	if errors.Is(err, kvdelta.ErrBase) && *convert == "" && base != nil && base.Geometry.DType != tiling.FP32 {
		return inFile(name, fmt.Errorf("%w (if the base dump is fp32 and the delta was made with --convert, give kv apply the same --convert)", err))
	}
	if err != nil {
		return inFile(name, err)
	}
	_, err = stdout.Write(s.AppendRaw(nil))
	return err
}

// loadBase reads the base dump a delta needs, in the delta's geometry;
// with convert, the dump is fp32 and is converted to the delta's dtype.
func loadBase(path, convert string, delta []byte) (*kvdelta.Snapshot, error) {
	g, err := kvdelta.ReadGeometry(delta)
	if err != nil {
		return nil, err
	}
	var to tiling.DType
	if convert != "" {
		if to, err = parseConvert(convert, tiling.FP32); err != nil {
			return nil, err
		}
		if to != g.DType {
			return nil, kvUsageErr("--convert %s: the delta is %v", convert, g.DType)
		}
		g.DType = tiling.FP32
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	base, err := load(f, g, to)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	return base, nil
}
