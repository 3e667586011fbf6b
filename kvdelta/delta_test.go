package kvdelta

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/layer0/anth/tiling"
	"pgregory.net/rapid"
)

// encoders keeps an Encoder for each Options a test uses, reused from case
// to case: a Max-mode Encoder's zstd tables cost more to set up than most
// cases cost to run.
type encoders map[Options]*Encoder

func (es encoders) get(o Options) *Encoder {
	e := es[o]
	if e == nil {
		e = NewEncoder(o)
		es[o] = e
	}
	return e
}

func genGeometry() *rapid.Generator[tiling.Geometry] {
	return rapid.Custom(func(t *rapid.T) tiling.Geometry {
		return tiling.Geometry{
			Layers:    rapid.IntRange(1, 3).Draw(t, "layers"),
			KVHeads:   rapid.IntRange(1, 3).Draw(t, "heads"),
			HeadDim:   rapid.SampledFrom([]int{1, 4, 16, 33}).Draw(t, "dim"),
			DType:     rapid.SampledFrom([]tiling.DType{tiling.BF16, tiling.FP16, tiling.FP32, tiling.FP8E4M3, tiling.FP8E5M2}).Draw(t, "dtype"),
			TileShift: uint8(rapid.IntRange(0, 4).Draw(t, "shift")),
			Order:     rapid.SampledFrom([]tiling.Order{tiling.NHD, tiling.HND}).Draw(t, "order"),
		}
	})
}

// TestRoundTrip: Apply(base, Encode(base, next)) == next for random
// geometries, dtypes, modes, fill levels and histories: growth, shared
// prefixes, truncation and rewrites; encoding is deterministic; the
// streaming forms agree with the slice forms.
func TestRoundTrip(t *testing.T) {
	encs, again := encoders{}, encoders{}
	rapid.Check(t, func(t *rapid.T) {
		g := genGeometry().Draw(t, "geometry")
		hashed := rapid.Bool().Draw(t, "hashed")
		mode := rapid.SampledFrom([]Mode{Fast, Max}).Draw(t, "mode")
		gen := newSeqGen(g, rapid.Uint64().Draw(t, "seed"))
		size := g.Layout().Size()
		baseLen := rapid.IntRange(0, 5*size).Draw(t, "base")
		var base *Snapshot
		if rapid.Bool().Draw(t, "has base") {
			base = gen.snapshot(baseLen, hashed)
		}
		var next *Snapshot
		switch rapid.IntRange(0, 3).Draw(t, "history") {
		case 0: // grew
			next = gen.snapshot(baseLen+rapid.IntRange(0, 3*size).Draw(t, "grow"), hashed)
		case 1: // truncated
			next = gen.snapshot(rapid.IntRange(0, baseLen).Draw(t, "cut"), hashed)
		case 2: // another sequence, sharing nothing
			next = newSeqGen(g, 12345).snapshot(rapid.IntRange(0, 4*size).Draw(t, "other"), hashed)
		case 3: // a rewritten region: different values and tokens from p on
			n := baseLen + rapid.IntRange(0, 2*size).Draw(t, "grow2")
			next = gen.snapshot(n, hashed)
			if n > 0 {
				p := rapid.IntRange(0, n-1).Draw(t, "rewrite")
				other := newSeqGen(g, 777).snapshot(n, hashed)
				tile, _ := g.Layout().Tile(p)
				copy(next.Data[tile*g.TileBytes():], other.Data[tile*g.TileBytes():])
				if hashed {
					copy(next.Hashes[tile:], other.Hashes[tile:])
				}
			}
		}
		enc := encs.get(Options{Mode: mode, Concurrency: rapid.IntRange(0, 3).Draw(t, "workers")})
		delta, err := enc.Encode(nil, base, next)
		if err != nil {
			t.Fatal(err)
		}
		// Another Encoder, with another history of calls behind it.
		if d, _ := again.get(Options{Mode: mode}).Encode(nil, base, next); !bytes.Equal(delta, d) {
			t.Fatal("encoding is not deterministic")
		}
		var streamed bytes.Buffer
		if err := enc.EncodeTo(&streamed, base, next); err != nil || !bytes.Equal(streamed.Bytes(), delta) {
			t.Fatalf("EncodeTo differs from Encode (%v)", err)
		}
		var baseCopy []byte
		if base != nil {
			baseCopy = append([]byte(nil), base.Data...)
		}
		got, err := Apply(base, delta)
		if err != nil {
			t.Fatalf("Apply: %v", err)
		}
		if !Equal(got, next) {
			t.Fatal("Apply(base, Encode(base, next)) != next")
		}
		if base != nil && !bytes.Equal(base.Data, baseCopy) {
			t.Fatal("Apply changed the base")
		}
		got2, err := NewDecoder(Limits{}).ApplyFrom(base, bytes.NewBuffer(delta))
		if err != nil || !Equal(got2, next) {
			t.Fatalf("ApplyFrom: %v", err)
		}
		// Built from parts, the snapshot's buffer allocated last.
		late := &Decoder{late: true}
		if got3, err := late.Apply(base, delta); err != nil || !Equal(got3, next) {
			t.Fatalf("Apply from parts: %v", err)
		}
	})
}

// TestCorruption: every single-bit flip of a delta is an error, and so is
// every truncation; the base is never touched.
func TestCorruption(t *testing.T) {
	g := tiling.Geometry{Layers: 2, KVHeads: 2, HeadDim: 8, DType: tiling.BF16, TileShift: 2}
	gen := newSeqGen(g, 5)
	for _, hashed := range []bool{false, true} {
		base, next := gen.snapshot(9, hashed), gen.snapshot(14, hashed)
		for _, mode := range []Mode{Fast, Max} {
			delta, err := NewEncoder(Options{Mode: mode}).Encode(nil, base, next)
			if err != nil {
				t.Fatal(err)
			}
			// One Decoder for every flip: each call starts from the scratch
			// the failures before it left, as a receiver's would.
			d := NewDecoder(Limits{})
			bad := append([]byte(nil), delta...)
			for bit := range len(delta) * 8 {
				bad[bit/8] ^= 1 << (bit % 8)
				if s, err := d.Apply(base, bad); err == nil || s != nil {
					t.Fatalf("hashed=%v mode=%d: flip of bit %d went unnoticed", hashed, mode, bit)
				}
				bad[bit/8] ^= 1 << (bit % 8)
			}
			for n := range len(delta) {
				if _, err := d.Apply(base, delta[:n]); !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
					t.Fatalf("cut at %d: %v", n, err)
				}
			}
			if _, err := Apply(base, append(delta, 0)); !errors.Is(err, ErrMalformed) {
				t.Fatalf("trailing byte: %v", err)
			}
		}
	}
}

func TestWrongBase(t *testing.T) {
	g := tiling.Geometry{Layers: 1, KVHeads: 1, HeadDim: 4, DType: tiling.FP16, TileShift: 1}
	gen := newSeqGen(g, 8)
	base, next := gen.snapshot(5, true), gen.snapshot(8, true)
	delta, _ := NewEncoder(Options{}).Encode(nil, base, next)
	other := newSeqGen(g, 9).snapshot(5, true)
	g2 := g
	g2.HeadDim = 8
	for name, b := range map[string]*Snapshot{
		"none":           nil,
		"other tokens":   gen.snapshot(6, true),
		"other prefix":   other,
		"no hashes":      gen.snapshot(5, false),
		"other geometry": newSeqGen(g2, 8).snapshot(5, true),
	} {
		if _, err := Apply(b, delta); !errors.Is(err, ErrBase) {
			t.Errorf("%s: %v, want ErrBase", name, err)
		}
	}
	// A base whose partial tile differs passes the identity check but not
	// the CRC of the tile decoded against it.
	stale := gen.snapshot(5, true)
	stale.Data[2*g.TileBytes()] ^= 0xFF // token 4, which the delta keeps
	if _, err := Apply(stale, delta); !errors.Is(err, ErrChecksum) {
		t.Errorf("stale partial tile: %v, want ErrChecksum", err)
	}
}

// TestLimits: MaxBytes bounds everything a call allocates, and what a call
// needs is exactly what it reports as allocated: a limit one byte less
// fails, before allocating past it.
func TestLimits(t *testing.T) {
	g := tiling.Geometry{Layers: 1, KVHeads: 1, HeadDim: 4, DType: tiling.FP32, TileShift: 2}
	gen := newSeqGen(g, 1)
	base := gen.snapshot(61, false)
	for _, c := range []struct {
		base, next *Snapshot
		mode       Mode
	}{
		{nil, gen.snapshot(64, false), Fast},
		{nil, gen.snapshot(5000, false), Max},
		{base, gen.snapshot(3000, false), Fast},
		{gen.snapshot(61, true), gen.snapshot(3000, true), Fast},
		{gen.snapshot(61, true), gen.snapshot(700, true), Max},
	} {
		delta, _ := NewEncoder(Options{Mode: c.mode}).Encode(nil, c.base, c.next)
		d := NewDecoder(Limits{MaxBytes: math.MaxInt64})
		if _, err := d.Apply(c.base, delta); err != nil {
			t.Fatal(err)
		}
		need := d.Stats().Allocated
		if _, err := NewDecoder(Limits{MaxBytes: need}).Apply(c.base, delta); err != nil {
			t.Fatalf("%d tokens at MaxBytes %d: %v", c.next.Tokens, need, err)
		}
		short := NewDecoder(Limits{MaxBytes: need - 1})
		if _, err := short.Apply(c.base, delta); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%d tokens, one byte under: %v", c.next.Tokens, err)
		}
		if s := short.Stats(); s.Allocated+s.Scratch > need-1 {
			t.Fatalf("%d tokens: allocated %d under a limit of %d", c.next.Tokens, s.Allocated, need-1)
		}

		// A Decoder's scratch counts against its limit: a second call needs
		// what the Decoder kept from the first and what it allocates. A
		// call that fails keeps the scratch it found.
		warm := func(max int64) *Decoder {
			d := NewDecoder(Limits{MaxBytes: math.MaxInt64})
			if _, err := d.Apply(c.base, delta); err != nil {
				t.Fatal(err)
			}
			d.Limits.MaxBytes = max
			return d
		}
		d = warm(math.MaxInt64)
		kept := d.Stats().Scratch
		if _, err := d.Apply(c.base, delta); err != nil {
			t.Fatal(err)
		}
		need = kept + d.Stats().Allocated
		if _, err := warm(need).Apply(c.base, delta); err != nil {
			t.Fatalf("%d tokens again at MaxBytes %d: %v", c.next.Tokens, need, err)
		}
		short = warm(need - 1)
		if _, err := short.Apply(c.base, delta); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%d tokens again, one byte under: %v", c.next.Tokens, err)
		}
		if s := short.Stats(); s.Scratch != kept {
			t.Fatalf("%d tokens: the Decoder kept %d bytes of scratch, and %d after a call that failed", c.next.Tokens, kept, s.Scratch)
		}
	}

	// The error says what the call would have had: a NEW record of 3
	// tiles of 16 bytes needs their planes (48 bytes) and CRC32Cs (12)
	// beside the snapshot's 48.
	next := vectorSnapshot(6)
	delta := craft(next.Geometry, 0, 6, nil).raw(recNew).uv(3).mark().
		crc(next.Tile(0)).crc(next.Tile(1)).crc(next.Tile(2)).planes(next.Data, 8).end()
	_, err := NewDecoder(Limits{MaxBytes: 48 + 60 - 1}).Apply(nil, delta.b)
	var e *Error
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || e.Offset != delta.at || e.Detail != "108 bytes, past the limit of 107" {
		t.Errorf("NEW of 48 bytes in 107: %v", err)
	}
}

func TestEncodeErrors(t *testing.T) {
	g := tiling.Geometry{Layers: 1, KVHeads: 1, HeadDim: 4, DType: tiling.BF16, TileShift: 2}
	good := newSeqGen(g, 1).snapshot(6, true)
	g2 := g
	g2.Layers = 2
	for name, c := range map[string][2]*Snapshot{
		"short data":   {nil, {Geometry: g, Tokens: 6, Data: make([]byte, 3)}},
		"bad geometry": {nil, {Geometry: tiling.Geometry{}, Tokens: 0}},
		"hash count":   {nil, {Geometry: g, Tokens: 6, Data: good.Data, Hashes: make([]tiling.Hash, 2)}},
		"geometries":   {newSeqGen(g2, 1).snapshot(4, false), good},
		"negative":     {nil, {Geometry: g, Tokens: -1}},
		"bad base":     {{Geometry: g, Tokens: 6, Data: good.Data[:8]}, good},
	} {
		prefix := []byte("before")
		if out, err := NewEncoder(Options{}).Encode(prefix, c[0], c[1]); !errors.Is(err, ErrSnapshot) || string(out) != "before" {
			t.Errorf("%s: %v, %q; want ErrSnapshot and dst as it was", name, err, out)
		}
		if err := NewEncoder(Options{}).EncodeTo(io.Discard, c[0], c[1]); !errors.Is(err, ErrSnapshot) {
			t.Errorf("%s, EncodeTo: %v, want ErrSnapshot", name, err)
		}
	}
	// EncodeTo writes the header, each record, END and the trailer, and
	// returns the first error of the writer's.
	base, next := newSeqGen(g, 1).snapshot(3, true), good
	for n := 0; ; n++ {
		w := &failingWriter{n: n}
		err := NewEncoder(Options{}).EncodeTo(w, base, next)
		if err == nil {
			if n != 5 {
				t.Fatalf("EncodeTo succeeded in %d writes, want 5: header, ROWS, NEW, END and trailer", n)
			}
			break
		}
		if !errors.Is(err, errWriter) || w.writes != n {
			t.Fatalf("writer failing at write %d: %v after %d writes", n, err, w.writes)
		}
	}
}

var errWriter = errors.New("broken pipe")

// failingWriter fails its writes from the nth on.
type failingWriter struct{ n, writes int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.writes == w.n {
		return 0, errWriter
	}
	w.writes++
	return len(p), nil
}

// TestAppendStep: a 4,096-token cache that grew by one token costs one
// compressed tile at most, plus little framing: the new token's rows.
func TestAppendStep(t *testing.T) {
	g := tiling.Geometry{Layers: 4, KVHeads: 4, HeadDim: 16, DType: tiling.BF16, TileShift: 4}
	gen := newSeqGen(g, 3)
	base, next := gen.snapshot(4095, true), gen.snapshot(4096, true)
	delta, err := NewEncoder(Options{}).Encode(nil, base, next)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := NewEncoder(Options{}).Encode(nil, nil, &Snapshot{Geometry: g, Tokens: 16, Data: next.Tile(255)})
	const hashBytes = 32 // the tile became full: its hash travels too
	if len(delta) > len(full)+64+hashBytes {
		t.Fatalf("append step: %d bytes; one compressed tile alone is %d", len(delta), len(full))
	}
	t.Logf("append step: delta %d bytes; the tile alone compresses to %d (raw %d)", len(delta), len(full), g.TileBytes())
	got, err := Apply(base, delta)
	if err != nil || !Equal(got, next) {
		t.Fatalf("Apply: %v", err)
	}
}

func TestApplyTo(t *testing.T) {
	g := tiling.Geometry{Layers: 2, KVHeads: 2, HeadDim: 8, DType: tiling.BF16, TileShift: 2}
	gen := newSeqGen(g, 4)
	var dst Snapshot
	for _, n := range []int{7, 12, 3, 12} {
		next := gen.snapshot(n, true)
		delta, _ := NewEncoder(Options{}).Encode(nil, nil, next)
		if err := NewDecoder(Limits{}).ApplyTo(&dst, nil, delta); err != nil || !Equal(&dst, next) {
			t.Fatalf("%d tokens: %v", n, err)
		}
		delta[len(delta)-1] ^= 1
		if err := NewDecoder(Limits{}).ApplyTo(&dst, nil, delta); !errors.Is(err, ErrChecksum) || dst.Tokens != 0 || len(dst.Data) != 0 {
			t.Fatalf("corrupt delta: %v, dst %d tokens", err, dst.Tokens)
		}
	}
}

// TestFilledTileKeepsItsHash: a partial base tile whose bytes already hold
// what the full tile holds (its unused rows were written ahead) is sent with
// its new hash, not kept: the base has no hash to lend it.
func TestFilledTileKeepsItsHash(t *testing.T) {
	g := tiling.Geometry{Layers: 2, KVHeads: 1, HeadDim: 4, DType: tiling.BF16, TileShift: 2}
	snap := func(n int) *Snapshot {
		s := &Snapshot{Geometry: g, Tokens: n, Data: make([]byte, g.Layout().Tiles(n)*g.TileBytes())}
		for i := range s.Data {
			s.Data[i] = byte(i * 37)
		}
		ids := make([]uint32, n)
		for i := range ids {
			ids[i] = uint32(i)
		}
		s.Hashes = tiling.AppendTileHashes(nil, g.Layout(), tiling.Root(nil), ids)
		return s
	}
	base, next := snap(6), snap(11)
	for _, mode := range []Mode{Fast, Max} {
		d, err := NewEncoder(Options{Mode: mode}).Encode(nil, base, next)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Apply(base, d)
		if err != nil || !Equal(got, next) {
			t.Fatalf("mode %d: %v", mode, err)
		}
	}
}

// TestApplyAllocationBound: headers that declare the most a limit allows,
// then stop, allocate nothing for it; one token more is refused.
func TestApplyAllocationBound(t *testing.T) {
	const limit = 1 << 20
	g := tiling.Geometry{Layers: 1, KVHeads: 1, HeadDim: 1, DType: tiling.FP8E4M3, TileShift: 0}
	for _, hashed := range []bool{false, true} {
		h := header{g: g, tokens: limit / (g.TileBytes() + map[bool]int{false: 0, true: hashSize}[hashed])}
		if hashed {
			h.flags |= flagHashes
		}
		head := appendHeader(nil, &h)
		var err error
		if n := allocated(func() { _, err = NewDecoder(Limits{MaxBytes: limit}).Apply(nil, head) }); !errors.Is(err, ErrTruncated) || n > 64<<10 {
			t.Fatalf("hashed=%v: %v, %d bytes allocated", hashed, err, n)
		}
		h.tokens++
		if _, err := NewDecoder(Limits{MaxBytes: limit}).Apply(nil, appendHeader(nil, &h)); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("hashed=%v, one token over: %v", hashed, err)
		}
	}
}
