package kvdelta

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/tiling"
)

// heapAllocs returns the bytes the process has allocated so far.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// allocated returns what f allocates, by the runtime's count.
func allocated(f func()) uint64 {
	before := heapAllocs()
	f()
	return heapAllocs() - before
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rleTile is a delta of one NEW tile of the geometry given, every chunk an
// RLE chunk (two bytes for 2^chunkLog of tile), its CRC32C wrong.
func rleTile(g tiling.Geometry, chunkLog int) []byte {
	h := header{flags: byte(chunkLog-chunkLogBase) << 4, g: g, tokens: g.Layout().Size()}
	b := appendHeader(nil, &h)
	b = append(b, recNew, 1, 0, 0, 0, 0)
	plane := g.TileBytes() / 2 / g.DType.Size()
	for range 2 * g.DType.Size() {
		for off := 0; off < plane; off += 1 << chunkLog {
			b = append(b, methodRLE, 0)
		}
	}
	b = append(b, recEnd)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// TestHeadersAllocateNothing: a header declares a snapshot; nothing is
// allocated for it until data arrives, whatever the limit, and a snapshot
// over the limit is refused at once.
func TestHeadersAllocateNothing(t *testing.T) {
	// A 4 GiB tile, then nothing; the largest snapshot the token count
	// allows (2^40 tiles of 2 bytes), then nothing.
	huge := unhex(t, "41 4E 4B 56 01 00 01 80 08 80 08 01 0A 00 80 08")
	most := unhex(t, "41 4E 4B 56 01 00 01 01 01 04 00 00 80 80 80 80 80 20")
	// 2^40 tiles of 8 MiB: 2^63 bytes, past what an int64 holds.
	wraps := unhex(t, "41 4E 4B 56 01 00 01 01 80 80 40 03 00 00 80 80 80 80 80 20")
	for _, c := range []struct {
		name  string
		delta []byte
		max   int64
		kind  error
	}{
		{"4 GiB tile, default limits", huge, 0, ErrTooLarge},
		{"4 GiB tile, no limit", huge, math.MaxInt64, ErrTruncated},
		{"2^40 tiles, no limit", most, math.MaxInt64, ErrTruncated},
		{"2^40 tiles, default limits", most, 0, ErrTooLarge},
		{"2^63 bytes, default limits", wraps, 0, ErrTooLarge},
		{"2^63 bytes, no limit", wraps, math.MaxInt64, ErrTooLarge},
	} {
		d := NewDecoder(Limits{MaxBytes: c.max})
		var err error
		n := allocated(func() { _, err = d.Apply(nil, c.delta) })
		var e *Error
		if !errors.Is(err, c.kind) || !errors.As(err, &e) || e.Offset != int64(len(c.delta)) {
			t.Errorf("%s: %v, want %v at offset %d", c.name, err, c.kind, len(c.delta))
		}
		if n > 64<<10 || d.Stats().Allocated != 0 {
			t.Errorf("%s: %d-byte header allocated %d bytes (Stats: %d)", c.name, len(c.delta), n, d.Stats().Allocated)
		}
	}
}

// TestRLEBomb: one 512 MiB NEW tile in 4 MiB RLE chunks, 283 bytes. Under
// the default limits it is refused before anything is allocated; under a
// 512 MiB limit too, since decoding it needs its planes and the tile (and
// nothing may be allocated past the limit); and a failed call leaves the
// Decoder holding nothing.
func TestRLEBomb(t *testing.T) {
	g := tiling.Geometry{Layers: 1, KVHeads: 1024, HeadDim: 1024, DType: tiling.BF16, TileShift: 7}
	delta := rleTile(g, maxChunkLog)
	if len(delta) != 283 || g.TileBytes() != 512<<20 {
		t.Fatalf("%d bytes for a tile of %d bytes", len(delta), g.TileBytes())
	}
	for _, max := range []int64{0, 512 << 20} {
		d := NewDecoder(Limits{MaxBytes: max})
		var err error
		n := allocated(func() { _, err = d.Apply(nil, delta) })
		if !errors.Is(err, ErrTooLarge) || n > 1<<20 {
			t.Errorf("MaxBytes %d: %v, %d bytes allocated", max, err, n)
		}
		if d.Stats().Scratch != 0 {
			t.Errorf("MaxBytes %d: the Decoder keeps %d bytes", max, d.Stats().Scratch)
		}
	}
}

// TestRLEFailureLeavesNoScratch: a tile that decodes in full and fails its
// CRC32C costs what its chunks decode to, within the limit, and the
// Decoder keeps none of it.
func TestRLEFailureLeavesNoScratch(t *testing.T) {
	g := tiling.Geometry{Layers: 1, KVHeads: 16, HeadDim: 64, DType: tiling.BF16, TileShift: 10}
	delta := rleTile(g, maxChunkLog) // a 4 MiB tile
	d := NewDecoder(Limits{MaxBytes: 64 << 20})
	var err error
	n := allocated(func() { _, err = d.Apply(nil, delta) })
	s := d.Stats()
	if !errors.Is(err, ErrChecksum) || n > 2*4<<20+1<<20 || uint64(s.Allocated) > n {
		t.Fatalf("%v: allocated %d bytes (Stats %+v)", err, n, s)
	}
	live := liveHeap()
	runtime.KeepAlive(d)
	if s.Scratch != 0 || live > 2<<20 {
		t.Fatalf("after the failure the Decoder keeps %d bytes, the heap holds %d", s.Scratch, live)
	}
}

// liveHeap returns the bytes live on the heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestStatsCountAllocations: what a call reports allocating is what the
// runtime saw it allocate, but for fixed small ones (the huff0 tables, about
// 16 KiB, and the Snapshot).
func TestStatsCountAllocations(t *testing.T) {
	g := tiling.Geometry{Layers: 2, KVHeads: 4, HeadDim: 32, DType: tiling.BF16, TileShift: 4}
	gen := newSeqGen(g, 2)
	base := gen.snapshot(300, true)
	for _, c := range []struct {
		base *Snapshot
		n    int
		late bool
	}{{nil, 700, false}, {nil, 700, true}, {base, 333, false}, {base, 333, true}} {
		delta, _ := NewEncoder(Options{}).Encode(nil, c.base, gen.snapshot(c.n, true))
		d := &Decoder{late: c.late}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0) // exact, where the metric lags for small objects
		if _, err := d.Apply(c.base, delta); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&m1)
		n := m1.TotalAlloc - m0.TotalAlloc
		if s := d.Stats(); int64(n) > s.Allocated+32<<10 || int64(n) < s.Allocated {
			t.Errorf("%d tokens (late %v): the runtime saw %d bytes allocated, Stats says %d", c.n, c.late, n, s.Allocated)
		}
	}
}

// TestSteadyStateAllocations: applying deltas in a loop into one Snapshot
// allocates nothing once the Decoder's scratch and the snapshot have grown.
// Under -race the count is not checked: both entropy coders pool scratch
// (huff0's 4X buffers, zstd's decoders) and the race detector drops pooled
// items at random. .ci/run runs this test again without -race (its name
// matches the allocation-bounds step).
func TestSteadyStateAllocations(t *testing.T) {
	g := tiling.Geometry{Layers: 2, KVHeads: 2, HeadDim: 64, DType: tiling.BF16, TileShift: 4}
	gen := newSeqGen(g, 6)
	base := gen.snapshot(200, true)
	for _, mode := range []Mode{Fast, Max} {
		for _, b := range []*Snapshot{nil, base} {
			delta, _ := NewEncoder(Options{Mode: mode}).Encode(nil, b, gen.snapshot(201, true))
			d := NewDecoder(Limits{})
			var dst Snapshot
			if n := testing.AllocsPerRun(20, func() {
				if err := d.ApplyTo(&dst, b, delta); err != nil {
					t.Fatal(err)
				}
			}); n != 0 && !raceEnabled {
				t.Errorf("mode %d, base %v: %.1f allocations a call", mode, b != nil, n)
			}
			if s := d.Stats(); s.Allocated != 0 {
				t.Errorf("mode %d, base %v: a call that allocates nothing reports %d bytes", mode, b != nil, s.Allocated)
			}
		}
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// slowReader returns nothing every other call, else one byte.
type slowReader struct {
	b     []byte
	empty bool
}

func (r *slowReader) Read(p []byte) (int, error) {
	if r.empty = !r.empty; r.empty || len(p) == 0 {
		return 0, nil
	}
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	p[0], r.b = r.b[0], r.b[1:]
	return 1, nil
}

var errReader = errors.New("connection reset")

type failingReader struct{ b []byte }

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, errReader
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// byteReader is an io.ByteReader, which ApplyFrom reads directly: ReadByte
// serves b, and so does Read, every other call (it returns nothing in
// between) or, if stuck, never.
type byteReader struct {
	b            []byte
	stuck, empty bool
}

func (r *byteReader) ReadByte() (byte, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c, nil
}

func (r *byteReader) Read(p []byte) (int, error) {
	if r.empty = !r.empty; r.empty || r.stuck || len(p) == 0 {
		return 0, nil
	}
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// TestApplyFromReaders: a reader that never makes progress fails the call
// promptly with io.ErrNoProgress; a slow one that does is never failed; a
// reader's own error is matchable, with the offset it struck at.
func TestApplyFromReaders(t *testing.T) {
	g := tiling.Geometry{Layers: 1, KVHeads: 2, HeadDim: 8, DType: tiling.BF16, TileShift: 2}
	next := newSeqGen(g, 3).snapshot(10, false)
	delta, _ := NewEncoder(Options{}).Encode(nil, nil, next)
	within := func(name string, f func()) {
		done := make(chan struct{})
		go func() { f(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: ApplyFrom still running after 10 s", name)
		}
	}
	var err error
	within("empty reads", func() { _, err = NewDecoder(Limits{}).ApplyFrom(nil, emptyReader{}) })
	var e *Error
	if !errors.Is(err, io.ErrNoProgress) || !errors.As(err, &e) || e.Offset != 0 {
		t.Errorf("a reader of empty reads: %v", err)
	}
	var s *Snapshot
	within("slow reader", func() { s, err = NewDecoder(Limits{}).ApplyFrom(nil, &slowReader{b: delta}) })
	if err != nil || !Equal(s, next) {
		t.Errorf("a slow reader: %v", err)
	}
	within("failing reader", func() { _, err = NewDecoder(Limits{}).ApplyFrom(nil, &failingReader{b: delta[:20]}) })
	if !errors.Is(err, errReader) || !errors.As(err, &e) || e.Offset != 20 {
		t.Errorf("a failing reader: %v", err)
	}
	// A ByteReader of the caller's, read directly.
	within("bytes.Reader", func() { s, err = NewDecoder(Limits{}).ApplyFrom(nil, bytes.NewReader(delta)) })
	if err != nil || !Equal(s, next) {
		t.Errorf("a bytes.Reader: %v", err)
	}
	within("slow ByteReader", func() { s, err = NewDecoder(Limits{}).ApplyFrom(nil, &byteReader{b: delta}) })
	if err != nil || !Equal(s, next) {
		t.Errorf("a slow ByteReader: %v", err)
	}
	within("stuck ByteReader", func() { _, err = NewDecoder(Limits{}).ApplyFrom(nil, &byteReader{b: delta, stuck: true}) })
	if !errors.Is(err, io.ErrNoProgress) || !errors.As(err, &e) || e.Offset != 0 {
		t.Errorf("a ByteReader of empty reads: %v", err)
	}
}

// TestBudget: on real deltas, whole, cut short or with a byte changed,
// under any limit, a call allocates within the package doc's budget and
// never past its limit.
func TestBudget(t *testing.T) {
	encs := encoders{}
	rapid.Check(t, func(t *rapid.T) {
		g := genGeometry().Draw(t, "geometry")
		gen := newSeqGen(g, rapid.Uint64().Draw(t, "seed"))
		size := g.Layout().Size()
		hashed := rapid.Bool().Draw(t, "hashed")
		var base *Snapshot
		if rapid.Bool().Draw(t, "has base") {
			base = gen.snapshot(rapid.IntRange(0, 40*size).Draw(t, "base"), hashed)
		}
		next := gen.snapshot(rapid.IntRange(0, 60*size).Draw(t, "next"), hashed)
		mode := rapid.SampledFrom([]Mode{Fast, Max}).Draw(t, "mode")
		delta, _ := encs.get(Options{Mode: mode}).Encode(nil, base, next)
		switch rapid.IntRange(0, 2).Draw(t, "damage") {
		case 1:
			delta = delta[:rapid.IntRange(0, len(delta)).Draw(t, "cut")]
		case 2:
			delta[rapid.IntRange(0, len(delta)-1).Draw(t, "at")] ^= byte(rapid.IntRange(1, 255).Draw(t, "xor"))
		}
		max := int64(rapid.IntRange(1, 1<<22).Draw(t, "limit"))
		d := &Decoder{Limits: Limits{MaxBytes: max}, late: rapid.Bool().Draw(t, "late")}
		_, err := d.Apply(base, delta)
		s := d.Stats()
		chunk := int64(0)
		if len(delta) > 5 && delta[5]>>4 <= 12 {
			chunk = 1 << (10 + delta[5]>>4)
		}
		if bound := 3*s.Justified + 2*chunk + 64<<10 + zstdCost; s.Allocated > bound || s.Allocated > max {
			t.Fatalf("allocated %d bytes: budget %d, limit %d (%+v): %v", s.Allocated, bound, max, s, err)
		}
	})
}

// TestStats: what a call reports, on deltas small enough to count by hand.
// Justified is as Stats defines it: the bytes read, those RLE, huff0 and
// zstd chunks decode to, the base tiles (16 bytes each) and hashes KEEP and
// ROWS name, and 32 for each record, END included. Allocated and Scratch
// are the buffers a call makes: see each case.
func TestStats(t *testing.T) {
	var vector []byte
	for _, v := range readSpecVectors(t) {
		if v.kind == "valid" {
			vector = v.bytes
		}
	}
	base, next := hashed(vectorSnapshot(3)), hashed(vectorSnapshot(6))
	withHashes, err := NewEncoder(Options{}).Encode(nil, base, next)
	if err != nil {
		t.Fatal(err)
	}
	s11 := fp8Token(11, 7)
	zstdChunk := chunkEnd(chunkDelta(s11, methodZstd).uv(10).raw(zstdRLE(7, 11, nil)...), s11).b
	// Planes of 1.5 KiB in 1 KiB chunks, raw.
	s1536 := fp8Token(1536, 7)
	pieces := craft(s1536.Geometry, 0, 1, nil).raw(recNew).uv(1).crc(s1536.Data).planes(s1536.Data, 1536).end().b
	// A snapshot of 8 KiB: the most the buffer is made ahead of.
	s4096 := fp8Token(4096, 7)
	ahead := craft(s4096.Geometry, 6<<4, 1, nil).raw(recNew).uv(1).crc(s4096.Data).planes(s4096.Data, 4096).end().b
	// 300 tiles of 16 bytes, and their hashes: 9,600 bytes of them.
	many := hashed(vectorSnapshot(600))
	c := craft(many.Geometry, 6<<4|flagHashes, 600, nil).raw(recNew).uv(300)
	for i := range 300 {
		c.crc(many.Tile(i)).raw(many.Hashes[i][:]...)
	}
	hashes := c.planes(many.Data, 8).end().b
	// Every other tile of 10 changed: KEEP, NEW, KEEP, ... 10 records.
	base10, next10 := vectorSnapshot(20), vectorSnapshot(20)
	c = craft(base10.Geometry, 6<<4, 20, base10)
	for i := range 10 {
		if i%2 == 0 {
			c.raw(recKeep).uv(uint64(i), 1)
			continue
		}
		next10.Data[16*i] ^= 1
		c.raw(recNew).uv(1).crc(next10.Tile(i)).planes(next10.Tile(i), 8)
	}
	parts := c.end().b
	for _, c := range []struct {
		name  string
		base  *Snapshot
		delta []byte
		late  bool
		want  Stats
	}{
		// KEEP, ROWS, NEW (§10.6): 76 bytes read, 12 of RLE chunks, 2
		// base tiles, 4 records. The snapshot's 48 bytes are allocated
		// at once; ROWS's 4 planes of 2 bytes and its 8 bytes of rows;
		// NEW's CRC32C, and its 4 planes of 4 bytes in place of ROWS's.
		{"§10.6", vectorSnapshot(3), vector, false, Stats{Read: 76, Justified: 76 + 12 + 2*16 + 4*32, Allocated: 48 + 8 + 8 + 4 + 16, Scratch: 28}},
		// The same, its buffer made last: the tiles apart (16 bytes for
		// ROWS's and NEW's each), the list of the parts (8 of 24 bytes),
		// kept as scratch.
		{"§10.6, late", vectorSnapshot(3), vector, true, Stats{Read: 76, Justified: 248, Allocated: 84 + 2*16 + 8*24, Scratch: 28 + 8*24}},
		// With hashes: KEEP names a base hash; ROWS's hash is read with
		// its head, NEW's into the Decoder's hashes (32 bytes); the
		// snapshot's 3 hashes (96 bytes) are allocated at once.
		{"hashed", base, withHashes, false, Stats{Read: 140, Justified: 140 + 12 + 2*16 + 32 + 4*32, Allocated: 48 + 96 + 8 + 8 + 4 + 32 + 16, Scratch: 60}},
		// Late, hashes apart too: 32 bytes for each of ROWS's and NEW's,
		// and a list of parts of their own.
		{"hashed, late", base, withHashes, true, Stats{Read: 140, Justified: 344, Allocated: 212 + 2*16 + 2*32 + 2*8*24, Scratch: 60 + 2*8*24}},
		// A zstd chunk: 10 bytes read into the Decoder's buffer, 11
		// decoded, and the zstd decoder.
		{"zstd", nil, zstdChunk, false, Stats{Read: int64(len(zstdChunk)), Justified: int64(len(zstdChunk)) + 11 + 2*32, Allocated: 22 + 2*11 + 4 + 10 + zstdCost, Scratch: 2*11 + 4 + 10 + zstdCost}},
		// Each plane in a piece of 1 KiB and one of 512 bytes.
		{"1 KiB chunks", nil, pieces, false, Stats{Read: 3101, Justified: 3101 + 2*32, Allocated: 3072 + 4 + 2*(1024+512), Scratch: 4 + 2*(1024+512)}},
		// The snapshot's buffer is made at once, not after the tile.
		{"8 KiB", nil, ahead, false, Stats{Read: 8219, Justified: 8219 + 2*32, Allocated: 8192 + 4 + 8192, Scratch: 4 + 8192}},
		// The data's buffer at once; the hashes' after NEW's (9,600 bytes
		// for the record's, as read, 9,600 apart, 9,600 in the buffer, and
		// a list of one part): 1,200 bytes of CRC32Cs, 4 planes of 1,200.
		{"300 hashes", nil, hashes, false, Stats{Read: 15626, Justified: 15626 + 2*32, Allocated: 4800 + 1200 + 3*9600 + 8*24 + 4*1200, Scratch: 1200 + 9600 + 8*24 + 4*1200}},
		// Ten parts, late: a list of 8 and then of 16; 5 tiles of 16
		// bytes apart; the CRC32C and planes of one NEW record, reused.
		{"10 parts, late", base10, parts, true, Stats{Read: 180, Justified: 180 + 5*16 + 11*32, Allocated: 8*24 + 16*24 + 5*16 + 4 + 4*4 + 160, Scratch: 16*24 + 4 + 4*4}},
	} {
		d := &Decoder{late: c.late}
		if _, err := d.Apply(c.base, c.delta); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := cmp.Diff(c.want, d.Stats()); d != "" {
			t.Errorf("%s: Stats (-want +got):\n%s", c.name, d)
		}
	}
}

// TestRefusedBeforeAllocating: a record that cannot be decoded within the
// limit is refused at its head, before anything is allocated for it
// (SPEC.md §10.5): its planes, CRC32Cs and hashes, its decoded tiles, and
// the snapshot's buffers it would complete.
func TestRefusedBeforeAllocating(t *testing.T) {
	// 300 tiles and hashes: the data's buffer (4,800 bytes) is made at
	// once; NEW needs its planes (4,800), CRC32Cs (1,200), hashes (9,600),
	// its hashes apart and then in a buffer (9,600 each), and a list of
	// parts (8 of 24 bytes).
	many := hashed(vectorSnapshot(600))
	c := craft(many.Geometry, 6<<4|flagHashes, 600, nil).raw(recNew).uv(300).mark()
	for i := range 300 {
		c.crc(many.Tile(i)).raw(many.Hashes[i][:]...)
	}
	hashes := c.planes(many.Data, 8).end()
	// A tile of 10,000 bytes: NEW needs its planes, its CRC32C, the tile
	// apart, a list of parts and the snapshot's buffer.
	s := fp8Token(5000, 7)
	tile := craft(s.Geometry, 6<<4, 1, nil).raw(recNew).uv(1).mark().crc(s.Data).planes(s.Data, 5000).end()
	for _, c := range []struct {
		name      string
		delta     *crafted
		max       int64
		allocated int64
	}{
		{"300 hashes", hashes, 4800 + 4800 + 1200 + 3*9600 + 8*24 - 1, 4800},
		{"a tile of 10,000 bytes", tile, 3*10000 + 4 + 8*24 - 1, 0},
	} {
		d := NewDecoder(Limits{MaxBytes: c.max})
		_, err := d.Apply(nil, c.delta.b)
		var e *Error
		if !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || e.Offset != c.delta.at || d.Stats().Allocated != c.allocated {
			t.Errorf("%s: %v, %d bytes allocated; want ErrTooLarge at offset %d, %d bytes", c.name, err, d.Stats().Allocated, c.delta.at, c.allocated)
		}
	}
}
