package kvdelta

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"sync"

	"github.com/layer0/anth/tiling"
)

// Options configure an Encoder.
type Options struct {
	// Mode chooses Fast (default) or Max.
	Mode Mode
	// Concurrency is how many goroutines compress chunks; 0 or 1 means the
	// calling goroutine alone. The output does not depend on it.
	Concurrency int
}

// Encoder encodes deltas. It keeps scratch space between calls; it is not
// safe for concurrent use (Options.Concurrency parallelizes one call).
type Encoder struct {
	opts   Options
	coders []*coder
	planes [][]byte
	xor    []byte
	buf    []byte
}

// NewEncoder returns an Encoder with opts.
func NewEncoder(opts Options) *Encoder {
	return &Encoder{opts: opts, coders: []*coder{newCoder(opts.Mode)}}
}

// Encode appends the delta that turns base into next to dst and returns the
// extended slice. base may be nil: the delta then carries all of next. base
// and next must have the same Geometry. Neither is changed.
func (e *Encoder) Encode(dst []byte, base, next *Snapshot) ([]byte, error) {
	start := len(dst)
	out, err := e.encode(dst, nil, base, next)
	if err != nil {
		return dst[:start], err
	}
	crc := crc32.Checksum(out[start:], castagnoli)
	return binary.BigEndian.AppendUint32(out, crc), nil
}

// EncodeTo writes the delta that turns base into next to w, a record at a
// time, so that a large snapshot is never encoded whole in memory.
func (e *Encoder) EncodeTo(w io.Writer, base, next *Snapshot) error {
	out, err := e.encode(e.buf[:0], w, base, next)
	if err != nil {
		return err
	}
	e.buf = out[:0]
	return nil
}

// sink collects the delta's bytes: into a slice, or flushed to a writer
// after each record with the running CRC32C.
type sink struct {
	b   []byte
	w   io.Writer
	crc uint32
}

func (s *sink) flush() error {
	if s.w == nil {
		return nil
	}
	s.crc = crc32.Update(s.crc, castagnoli, s.b)
	_, err := s.w.Write(s.b)
	s.b = s.b[:0]
	return err
}

func (e *Encoder) encode(dst []byte, w io.Writer, base, next *Snapshot) ([]byte, error) {
	if err := next.Check(); err != nil {
		return dst, err
	}
	if base != nil {
		if err := base.Check(); err != nil {
			return dst, err
		}
		if base.Geometry != next.Geometry {
			return dst, inputErr("base and next differ in geometry")
		}
	}
	g := next.Geometry
	hashed := next.Hashes != nil && (base == nil || base.Hashes != nil)
	chunkLog := fastChunkLog
	if e.opts.Mode == Max {
		chunkLog = maxChunkLog
	}

	h := header{flags: byte(chunkLog-chunkLogBase) << 4, g: g, tokens: next.Tokens}
	if base != nil {
		h.flags |= flagBase
		h.baseTokens = base.Tokens
		id := identity(base)
		copy(h.baseID[:], id[:])
	}
	if hashed {
		h.flags |= flagHashes
	}
	s := &sink{b: appendHeader(dst, &h), w: w}
	if err := s.flush(); err != nil {
		return s.b, err
	}

	for _, r := range plan(base, next, hashed) {
		switch r.kind {
		case recKeep:
			s.b = append(s.b, recKeep)
			s.b = binary.AppendUvarint(s.b, uint64(r.base))
			s.b = binary.AppendUvarint(s.b, uint64(r.count))
		case recNew, recXor:
			s.b = e.appendTiles(s.b, base, next, r, hashed, chunkLog)
		case recRows:
			s.b = e.appendRows(s.b, next, r, hashed, chunkLog)
		}
		if err := s.flush(); err != nil {
			return s.b, err
		}
	}
	s.b = append(s.b, recEnd)
	if w != nil {
		if err := s.flush(); err != nil {
			return s.b, err
		}
		var t [4]byte
		binary.BigEndian.PutUint32(t[:], s.crc)
		_, err := w.Write(t[:])
		return s.b, err
	}
	return s.b, nil
}

// record is one planned record: count tiles of next from tile at, kept
// from or XORed with base tiles from base.
type record struct {
	kind            byte
	at, base, count int
	from, to        int // ROWS: the token rows sent
}

// planner decides, tile by tile, how next is sent, and merges neighbours
// of one kind into runs.
type planner struct {
	base, next *Snapshot
	hashed     bool
	maxRun     int // tiles a NEW or XOR record may carry
	recs       []record
	index      map[tiling.Hash]int // base tile of each hash, made when needed
}

func plan(base, next *Snapshot, hashed bool) []record {
	g := next.Geometry
	p := &planner{base: base, next: next, hashed: hashed, maxRun: max(1, maxRunBytes/g.TileBytes())}
	keep := 0 // tiles 0..keep-1 are kept whole, by hash
	baseTiles, partial := 0, -1
	if base != nil {
		baseTiles = base.Tiles()
		if base.Tokens&g.Layout().Mask() != 0 {
			partial = baseTiles - 1
		}
		if hashed {
			// Hashes chain, so if the last common index matches, every
			// earlier one does: the shared prefix costs one comparison.
			m := min(len(base.Hashes), len(next.Hashes))
			for m > 0 && base.Hashes[m-1] != next.Hashes[m-1] {
				m-- // a rewritten region: look for the prefix before it
			}
			keep = m
		}
	}
	for i := range next.Tiles() {
		switch {
		case base == nil:
			p.add(recNew, i, 0)
		case i < keep:
			p.add(recKeep, i, i)
		case i == partial:
			p.grown(i)
		case hashed && i < len(next.Hashes):
			p.byHash(i)
		case !hashed && i < baseTiles && bytes.Equal(base.Tile(i), next.Tile(i)):
			p.add(recKeep, i, i)
		default:
			p.add(recNew, i, 0)
		}
	}
	return p.recs
}

// add plans tile at as kind, from base tile from, joining the run before
// it when it continues it.
func (p *planner) add(kind byte, at, from int) {
	if n := len(p.recs); n > 0 {
		r := &p.recs[n-1]
		if r.kind == kind && r.at+r.count == at && (kind == recNew || r.base+r.count == from) &&
			(kind == recKeep || r.count < p.maxRun) {
			r.count++
			return
		}
	}
	p.recs = append(p.recs, record{kind: kind, at: at, base: from, count: 1})
}

// grown plans the base's partial last tile as it is now: only its new rows
// when nothing else in it changed (the append step of decoding), else its
// XOR with the base tile, which is mostly zeros.
func (p *planner) grown(i int) {
	base, next, g := p.base, p.next, p.next.Geometry
	// Unchanged bytes are kept, unless the tile is now full and has a hash
	// to send, which the base's partial tile cannot lend it.
	if bytes.Equal(base.Tile(i), next.Tile(i)) && !(p.hashed && i < len(next.Hashes)) {
		p.add(recKeep, i, i)
		return
	}
	size := g.Layout().Size()
	from := base.Tokens & g.Layout().Mask()
	to := min(size, next.Tokens-i*size)
	if to > from && sameRows(g, base.Tile(i), next.Tile(i), from, to) {
		p.recs = append(p.recs, record{kind: recRows, at: i, base: i, count: 1, from: from, to: to})
		return
	}
	p.add(recXor, i, i)
}

// byHash plans a full tile past the shared prefix: kept if the base has it
// elsewhere (a prefix shared from another position), else sent.
func (p *planner) byHash(i int) {
	if p.index == nil {
		p.index = make(map[tiling.Hash]int, len(p.base.Hashes))
		for j, h := range p.base.Hashes {
			if _, dup := p.index[h]; !dup {
				p.index[h] = j
			}
		}
	}
	if j, ok := p.index[p.next.Hashes[i]]; ok {
		p.add(recKeep, i, j)
	} else {
		p.add(recNew, i, 0)
	}
}

// sameRows reports whether tiles a and b agree outside token rows
// [from, to) of every block.
func sameRows(g tiling.Geometry, a, b []byte, from, to int) bool {
	size := g.Layout().Size()
	for blk := range g.Layers * 2 {
		x := a[blk*g.BlockBytes() : (blk+1)*g.BlockBytes()]
		y := b[blk*g.BlockBytes() : (blk+1)*g.BlockBytes()]
		for i := range g.RowRuns() {
			lo, n := g.RowRun(size, 0, from, i)
			hi, m := g.RowRun(size, to, size, i)
			if !bytes.Equal(x[lo:lo+n], y[lo:lo+n]) || !bytes.Equal(x[hi:hi+m], y[hi:hi+m]) {
				return false
			}
		}
	}
	return true
}

// appendRows appends a ROWS record: tile r.at is base tile r.base with
// token rows r.from..r.to-1 replaced.
func (e *Encoder) appendRows(b []byte, next *Snapshot, r record, hashed bool, chunkLog int) []byte {
	g := next.Geometry
	b = append(b, recRows)
	b = binary.AppendUvarint(b, uint64(r.base))
	b = binary.AppendUvarint(b, uint64(r.from))
	b = binary.AppendUvarint(b, uint64(r.to))
	tile := next.Tile(r.at)
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(tile, castagnoli))
	if hashed && r.at < len(next.Hashes) {
		b = append(b, next.Hashes[r.at][:]...)
	}
	n := r.to - r.from
	e.xor = grow(e.xor, n*g.TokenBytes()*g.Layers*2)
	moveRows(g, tile, e.xor, r.from, r.to, true)
	w := g.DType.Size()
	e.setPlanes(w, len(e.xor)/2/w)
	split(w, n*g.TokenBytes(), e.xor, e.planes)
	code := func(plane int) bool { return plane%w == 0 || e.opts.Mode == Max }
	return e.appendPlanes(b, code, 1<<chunkLog)
}

func (e *Encoder) setPlanes(w, size int) {
	if len(e.planes) != 2*w {
		e.planes = make([][]byte, 2*w)
	}
	for i := range e.planes {
		e.planes[i] = grow(e.planes[i], size)
	}
}

// appendTiles appends a NEW or XOR record.
func (e *Encoder) appendTiles(b []byte, base, next *Snapshot, r record, hashed bool, chunkLog int) []byte {
	g := next.Geometry
	tb := g.TileBytes()
	b = append(b, r.kind)
	if r.kind == recXor {
		b = binary.AppendUvarint(b, uint64(r.base))
	}
	b = binary.AppendUvarint(b, uint64(r.count))
	for i := r.at; i < r.at+r.count; i++ {
		b = binary.BigEndian.AppendUint32(b, crc32.Checksum(next.Tile(i), castagnoli))
		if hashed && i < len(next.Hashes) {
			b = append(b, next.Hashes[i][:]...)
		}
	}
	data := next.Data[r.at*tb : (r.at+r.count)*tb]
	if r.kind == recXor {
		e.xor = grow(e.xor, len(data))
		src := base.Data[r.base*tb : (r.base+r.count)*tb]
		for i := range data {
			e.xor[i] = data[i] ^ src[i]
		}
		data = e.xor
	}
	w := g.DType.Size()
	e.setPlanes(w, len(data)/2/w)
	split(w, g.BlockBytes(), data, e.planes)
	// The top plane of K and of V holds the exponents: always coded. The
	// others are near-random mantissa bits: coded in Max mode, and in XOR
	// records, where they are mostly zeros.
	code := func(plane int) bool {
		return plane%w == 0 || e.opts.Mode == Max || r.kind == recXor
	}
	return e.appendPlanes(b, code, 1<<chunkLog)
}

// appendPlanes appends every plane's chunks in order.
func (e *Encoder) appendPlanes(b []byte, code func(int) bool, chunk int) []byte {
	type job struct {
		plane int
		q     []byte
	}
	var jobs []job
	for i, p := range e.planes {
		for off := 0; off < len(p); off += chunk {
			jobs = append(jobs, job{i, p[off:min(off+chunk, len(p))]})
		}
	}
	workers := min(e.opts.Concurrency, len(jobs))
	if workers <= 1 {
		for _, j := range jobs {
			b = e.coders[0].appendChunk(b, j.q, code(j.plane))
		}
		return b
	}
	for len(e.coders) < workers {
		e.coders = append(e.coders, newCoder(e.opts.Mode))
	}
	outs := make([][]byte, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int, len(jobs))
	for i := range jobs {
		next <- i
	}
	close(next)
	for wk := range workers {
		wg.Add(1)
		go func(c *coder) {
			defer wg.Done()
			for i := range next {
				outs[i] = c.appendChunk(nil, jobs[i].q, code(jobs[i].plane))
			}
		}(e.coders[wk])
	}
	wg.Wait()
	for _, o := range outs {
		b = append(b, o...)
	}
	return b
}

// grow returns b resized to n bytes, reusing its array when it can.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}
