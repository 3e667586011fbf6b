package kvdelta

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strconv"

	"github.com/klauspost/compress/huff0"
	"github.com/klauspost/compress/zstd"

	"github.com/layer0/anth/tiling"
)

// Limits bound what a Decoder accepts, checked before anything is
// allocated for it. A zero field takes the default.
type Limits struct {
	// MaxBytes bounds the decoded snapshot: its tiles and its hashes.
	// Default 4 GiB.
	MaxBytes int64
}

const defaultMaxBytes = 4 << 30

func (l Limits) maxBytes() int64 {
	if l.MaxBytes > 0 {
		return l.MaxBytes
	}
	return defaultMaxBytes
}

// Decoder applies deltas. It keeps scratch space between calls; it is not
// safe for concurrent use.
type Decoder struct {
	Limits Limits

	huff   huff0.Scratch
	zstd   *zstd.Decoder
	planes [][]byte
	in     []byte
	crcs   []uint32
	reuse  *Snapshot // ApplyTo's destination, whose buffers apply may reuse
}

// NewDecoder returns a Decoder with limits l.
func NewDecoder(l Limits) *Decoder { return &Decoder{Limits: l} }

// Apply returns the snapshot that delta turns base into, with default
// Limits. See Decoder.Apply.
func Apply(base *Snapshot, delta []byte) (*Snapshot, error) {
	return NewDecoder(Limits{}).Apply(base, delta)
}

// Apply returns the snapshot that delta turns base into. base is only read:
// on any error it is untouched and no partial snapshot is returned. delta
// must be one whole delta, with nothing after it. Every error is an *Error
// with the offset in delta; errors.Is tells ErrChecksum, ErrBase, ErrTooLarge,
// ErrMalformed and ErrTruncated apart.
func (d *Decoder) Apply(base *Snapshot, delta []byte) (*Snapshot, error) {
	br := bytes.NewReader(delta)
	s, err := d.ApplyFrom(base, br)
	if err == nil && br.Len() > 0 {
		return nil, &Error{Offset: int64(len(delta) - br.Len()), Err: ErrMalformed, Detail: strconv.Itoa(br.Len()) + " bytes after the delta"}
	}
	return s, err
}

// ApplyTo is Apply into dst, reusing dst's buffers when they are large
// enough: the form for a receiver that applies deltas in a loop. dst must not
// share memory with base. On error dst is emptied (Tokens 0, no data), never
// left half-written.
func (d *Decoder) ApplyTo(dst, base *Snapshot, delta []byte) error {
	br := bytes.NewReader(delta)
	d.reuse = dst
	s, err := d.ApplyFrom(base, br)
	d.reuse = nil
	if err == nil && br.Len() > 0 {
		err = &Error{Offset: int64(len(delta) - br.Len()), Err: ErrMalformed, Detail: strconv.Itoa(br.Len()) + " bytes after the delta"}
	}
	if err != nil {
		*dst = Snapshot{Data: dst.Data[:0], Hashes: dst.Hashes[:0]}
		return err
	}
	*dst = *s
	return nil
}

// ApplyFrom is Apply for a delta read from r, a record at a time. If r is
// not an io.ByteReader it is buffered, and may be read past the delta's end.
func (d *Decoder) ApplyFrom(base *Snapshot, r io.Reader) (*Snapshot, error) {
	in := &reader{r: r}
	if br, ok := r.(io.ByteReader); ok {
		in.br = br
	} else {
		b := bufio.NewReader(r)
		in.r, in.br = b, b
	}
	s, err := d.apply(base, in)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			err = &Error{Offset: in.off, Err: ErrMalformed, Detail: err.Error()}
		}
		return nil, err
	}
	return s, nil
}

// ReadGeometry returns the geometry a delta's header declares, so that a
// caller can lay out the base it needs (from a raw dump, say) before
// applying it. It checks no more than the header's geometry.
func ReadGeometry(delta []byte) (tiling.Geometry, error) {
	in := &reader{r: bytes.NewReader(delta)}
	in.br = in.r.(io.ByteReader)
	var head [6]byte
	if err := in.full(head[:]); err != nil {
		return tiling.Geometry{}, err
	}
	if string(head[:4]) != magic || head[4] != version {
		return tiling.Geometry{}, &Error{Offset: 0, Err: ErrMalformed, Detail: "not a version 1 KV delta"}
	}
	var g tiling.Geometry
	for _, f := range []*int{&g.Layers, &g.KVHeads, &g.HeadDim} {
		v, err := in.uvarint("geometry", 1<<20)
		if err != nil {
			return tiling.Geometry{}, err
		}
		*f = int(v)
	}
	var gb [3]byte
	if err := in.full(gb[:]); err != nil {
		return tiling.Geometry{}, err
	}
	g.DType, g.TileShift, g.Order = tiling.DType(gb[0]), gb[1], tiling.Order(gb[2])
	if err := g.Check(); err != nil {
		return tiling.Geometry{}, in.fail(ErrMalformed, "geometry: "+err.Error())
	}
	return g, nil
}

// reader reads a delta, keeping its offset and running CRC32C.
type reader struct {
	r   io.Reader
	br  io.ByteReader
	off int64
	crc uint32
}

func (r *reader) fail(kind error, detail string) error {
	return &Error{Offset: r.off, Err: kind, Detail: detail}
}

func (r *reader) eof(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return r.fail(ErrTruncated, "delta ends early")
	}
	return err
}

func (r *reader) byte() (byte, error) {
	b, err := r.br.ReadByte()
	if err != nil {
		return 0, r.eof(err)
	}
	r.crc = crc32.Update(r.crc, castagnoli, []byte{b})
	r.off++
	return b, nil
}

func (r *reader) full(p []byte) error {
	n, err := io.ReadFull(r.r, p)
	r.crc = crc32.Update(r.crc, castagnoli, p[:n])
	r.off += int64(n)
	if err != nil {
		return r.eof(err)
	}
	return nil
}

// uvarint reads a uvarint no larger than max.
func (r *reader) uvarint(what string, max uint64) (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7F) << shift
		if b < 0x80 {
			if b == 0 && shift > 0 {
				return 0, r.fail(ErrMalformed, what+": non-minimal uvarint")
			}
			if v > max {
				return 0, r.fail(ErrMalformed, what+" "+strconv.FormatUint(v, 10)+", want at most "+strconv.FormatUint(max, 10))
			}
			return v, nil
		}
	}
	return 0, r.fail(ErrMalformed, what+": uvarint overflows")
}

func (r *reader) u32() (uint32, error) {
	var b [4]byte
	err := r.full(b[:])
	return binary.BigEndian.Uint32(b[:]), err
}

func (d *Decoder) apply(base *Snapshot, in *reader) (*Snapshot, error) {
	var head [6]byte
	if err := in.full(head[:]); err != nil {
		return nil, err
	}
	if string(head[:4]) != magic {
		return nil, &Error{Offset: 0, Err: ErrMalformed, Detail: "magic, want \"ANKV\""}
	}
	if head[4] != version {
		return nil, &Error{Offset: 4, Err: ErrMalformed, Detail: "version " + strconv.Itoa(int(head[4])) + ", want 1"}
	}
	flags := head[5]
	chunkLog := int(flags>>4) + 10
	if flags&0x0C != 0 || chunkLog > maxChunkLog {
		return nil, &Error{Offset: 5, Err: ErrMalformed, Detail: "flags " + strconv.Itoa(int(flags))}
	}
	var g tiling.Geometry
	var err error
	var v uint64
	for _, f := range []*int{&g.Layers, &g.KVHeads, &g.HeadDim} {
		if v, err = in.uvarint("geometry", 1<<20); err != nil {
			return nil, err
		}
		*f = int(v)
	}
	var gb [3]byte
	if err := in.full(gb[:]); err != nil {
		return nil, err
	}
	g.DType, g.TileShift, g.Order = tiling.DType(gb[0]), gb[1], tiling.Order(gb[2])
	if err := g.Check(); err != nil {
		return nil, in.fail(ErrMalformed, "geometry: "+err.Error())
	}
	tokens, err := in.uvarint("token count", maxTokens)
	if err != nil {
		return nil, err
	}
	next := &Snapshot{Geometry: g, Tokens: int(tokens)}
	nt := next.Tiles()
	tb := g.TileBytes()
	// Check before allocating: the header alone must fit the limits.
	if int64(nt) > d.Limits.maxBytes()/int64(tb) {
		return nil, in.fail(ErrTooLarge, strconv.Itoa(nt)+" tiles of "+strconv.Itoa(tb)+" bytes, limit "+strconv.FormatInt(d.Limits.maxBytes(), 10)+" bytes")
	}

	if flags&flagHashes != 0 {
		// The hashes count against the limit too.
		if int64(nt)*int64(tb)+int64(next.Tokens>>g.TileShift)*32 > d.Limits.maxBytes() {
			return nil, in.fail(ErrTooLarge, strconv.Itoa(next.Tokens>>g.TileShift)+" tile hashes past the limit")
		}
	}
	baseTiles := 0
	if flags&flagBase != 0 {
		bt, err := in.uvarint("base token count", maxTokens)
		if err != nil {
			return nil, err
		}
		var id [idSize]byte
		if err := in.full(id[:]); err != nil {
			return nil, err
		}
		switch {
		case base == nil:
			return nil, in.fail(ErrBase, "the delta needs a base snapshot")
		case base.Check() != nil:
			return nil, in.fail(ErrBase, "base: "+base.Check().Error())
		case base.Geometry != g:
			return nil, in.fail(ErrBase, "base geometry differs")
		case uint64(base.Tokens) != bt:
			return nil, in.fail(ErrBase, "base has "+strconv.Itoa(base.Tokens)+" tokens, delta expects "+strconv.FormatUint(bt, 10))
		}
		if want := identity(base); !bytes.Equal(want[:idSize], id[:]) {
			return nil, in.fail(ErrBase, "base identity differs")
		}
		baseTiles = base.Tiles()
	}
	hashed := flags&flagHashes != 0
	if hashed && baseTiles > 0 && base.Hashes == nil {
		return nil, in.fail(ErrBase, "the delta keeps hashes but the base has none")
	}
	if d.reuse != nil && cap(d.reuse.Data) >= nt*tb {
		next.Data = d.reuse.Data[:nt*tb]
	} else {
		next.Data = make([]byte, nt*tb)
	}
	if hashed {
		if d.reuse != nil && cap(d.reuse.Hashes) >= next.Tokens>>g.TileShift {
			next.Hashes = d.reuse.Hashes[:next.Tokens>>g.TileShift]
		} else {
			next.Hashes = make([]tiling.Hash, next.Tokens>>g.TileShift)
		}
	}
	full := len(next.Hashes)
	if !hashed {
		full = 0
	}

	for at := 0; ; {
		kind, err := in.byte()
		if err != nil {
			return nil, err
		}
		if kind == recEnd {
			if at != nt {
				return nil, in.fail(ErrMalformed, "records cover "+strconv.Itoa(at)+" of "+strconv.Itoa(nt)+" tiles")
			}
			break
		}
		if kind == recRows {
			if at >= nt {
				return nil, in.fail(ErrMalformed, "ROWS record past the last tile")
			}
			if err := d.rowsRecord(in, base, next, at, baseTiles, full, chunkLog); err != nil {
				return nil, err
			}
			at++
			continue
		}
		from := 0
		if kind == recKeep || kind == recXor {
			v, err := in.uvarint("base tile", uint64(max(baseTiles-1, 0)))
			if err != nil {
				return nil, err
			}
			if baseTiles == 0 {
				return nil, in.fail(ErrBase, "record refers to a base tile, and there is no base")
			}
			from = int(v)
		} else if kind != recNew {
			return nil, in.fail(ErrMalformed, "record type "+strconv.Itoa(int(kind)))
		}
		c, err := in.uvarint("tile count", uint64(nt-at))
		if err != nil {
			return nil, err
		}
		count := int(c)
		if count == 0 || (kind != recNew && from+count > baseTiles) {
			return nil, in.fail(ErrMalformed, "tile count "+strconv.Itoa(count))
		}
		switch kind {
		case recKeep:
			copy(next.Data[at*tb:(at+count)*tb], base.Data[from*tb:(from+count)*tb])
			for i := at; i < at+count && i < full; i++ {
				if from+i-at >= len(base.Hashes) {
					return nil, in.fail(ErrMalformed, "kept tile "+strconv.Itoa(i)+" is full but its base tile is not")
				}
				next.Hashes[i] = base.Hashes[from+i-at]
			}
		default:
			if count > 1 && count*tb > maxRunBytes {
				return nil, in.fail(ErrTooLarge, "run of "+strconv.Itoa(count)+" tiles")
			}
			if err := d.tiles(in, base, next, kind, at, from, count, full, chunkLog); err != nil {
				return nil, err
			}
		}
		at += count
	}
	crc := in.crc
	got, err := in.u32()
	if err != nil {
		return nil, err
	}
	if got != crc {
		return nil, &Error{Offset: in.off - 4, Err: ErrChecksum, Detail: "delta CRC32C"}
	}
	return next, nil
}

// tiles decodes a NEW or XOR record into next's tiles at..at+count-1.
func (d *Decoder) tiles(in *reader, base, next *Snapshot, kind byte, at, from, count, full, chunkLog int) error {
	g := next.Geometry
	tb := g.TileBytes()
	if cap(d.crcs) < count {
		d.crcs = make([]uint32, count)
	}
	crcs := d.crcs[:count]
	for i := range count {
		var err error
		if crcs[i], err = in.u32(); err != nil {
			return err
		}
		if at+i < full {
			if err := in.full(next.Hashes[at+i][:]); err != nil {
				return err
			}
		}
	}
	w := g.DType.Size()
	if err := d.readPlanes(in, w, count*tb/2/w, chunkLog); err != nil {
		return err
	}
	out := next.Data[at*tb : (at+count)*tb]
	merge(w, g.BlockBytes(), d.planes, out)
	if kind == recXor {
		src := base.Data[from*tb : (from+count)*tb]
		for i := range out {
			out[i] ^= src[i]
		}
	}
	for i := range count {
		if crc32.Checksum(out[i*tb:(i+1)*tb], castagnoli) != crcs[i] {
			return in.fail(ErrChecksum, "tile "+strconv.Itoa(at+i)+" CRC32C")
		}
	}
	return nil
}

// readPlanes decodes 2*w planes of size bytes each into d.planes.
func (d *Decoder) readPlanes(in *reader, w, size, chunkLog int) error {
	if len(d.planes) != 2*w {
		d.planes = make([][]byte, 2*w)
	}
	for i := range d.planes {
		d.planes[i] = grow(d.planes[i], size)
		if err := d.plane(in, d.planes[i], 1<<chunkLog); err != nil {
			return err
		}
	}
	return nil
}

// rowsRecord decodes a ROWS record into next's tile at: base tile with new
// token rows.
func (d *Decoder) rowsRecord(in *reader, base, next *Snapshot, at, baseTiles, full, chunkLog int) error {
	g := next.Geometry
	size := g.Layout().Size()
	if baseTiles == 0 {
		return in.fail(ErrBase, "ROWS record, and there is no base")
	}
	from, err := in.uvarint("base tile", uint64(baseTiles-1))
	if err != nil {
		return err
	}
	lo, err := in.uvarint("first row", uint64(size-1))
	if err != nil {
		return err
	}
	hi, err := in.uvarint("end row", uint64(size))
	if err != nil {
		return err
	}
	if hi <= lo {
		return in.fail(ErrMalformed, "empty row range")
	}
	crc, err := in.u32()
	if err != nil {
		return err
	}
	if at < full {
		if err := in.full(next.Hashes[at][:]); err != nil {
			return err
		}
	}
	w := g.DType.Size()
	n := int(hi - lo)
	dense := n * g.TokenBytes() * g.Layers * 2
	if err := d.readPlanes(in, w, dense/2/w, chunkLog); err != nil {
		return err
	}
	d.in = grow(d.in, dense)
	merge(w, n*g.TokenBytes(), d.planes, d.in)
	tile := next.Tile(at)
	copy(tile, base.Tile(int(from)))
	rows(g, tile, d.in, int(lo), int(hi), false)
	if crc32.Checksum(tile, castagnoli) != crc {
		return in.fail(ErrChecksum, "tile "+strconv.Itoa(at)+" CRC32C")
	}
	return nil
}

// plane decodes the chunks of one plane into p.
func (d *Decoder) plane(in *reader, p []byte, chunk int) error {
	for off := 0; off < len(p); off += chunk {
		q := p[off:min(off+chunk, len(p))]
		method, err := in.byte()
		if err != nil {
			return err
		}
		switch method {
		case methodRaw:
			if err := in.full(q); err != nil {
				return err
			}
			continue
		case methodRLE:
			b, err := in.byte()
			if err != nil {
				return err
			}
			for i := range q {
				q[i] = b
			}
			continue
		case methodHuff, methodZstd:
		default:
			return in.fail(ErrMalformed, "chunk method "+strconv.Itoa(int(method)))
		}
		// A coded chunk smaller than its raw form is the only kind an
		// encoder writes; anything longer is not a delta.
		n, err := in.uvarint("chunk length", uint64(len(q)-1))
		if err != nil {
			return err
		}
		at := in.off
		d.in = grow(d.in, int(n))
		if err := in.full(d.in); err != nil {
			return err
		}
		if err := d.decodeChunk(method, q, d.in); err != nil {
			return &Error{Offset: at, Err: ErrMalformed, Detail: err.Error()}
		}
	}
	return nil
}

func (d *Decoder) decodeChunk(method byte, q, src []byte) error {
	if method == methodHuff {
		s, rest, err := huff0.ReadTable(src, &d.huff)
		if err != nil {
			return err
		}
		s.MaxDecodedSize = len(q)
		out, err := s.Decoder().Decompress4X(q[:0:len(q)], rest)
		if err != nil {
			return err
		}
		if len(out) != len(q) {
			return errors.New("huff0 chunk decodes to " + strconv.Itoa(len(out)) + " bytes, want " + strconv.Itoa(len(q)))
		}
		return nil
	}
	if d.zstd == nil {
		var err error
		d.zstd, err = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(1<<maxChunkLog),
			zstd.WithDecoderMaxWindow(1<<maxChunkLog))
		if err != nil {
			return err
		}
	}
	out, err := d.zstd.DecodeAll(src, q[:0:len(q)])
	if err != nil {
		return err
	}
	if len(out) != len(q) {
		return errors.New("zstd chunk decodes to " + strconv.Itoa(len(out)) + " bytes, want " + strconv.Itoa(len(q)))
	}
	if &out[0] != &q[0] {
		copy(q, out)
	}
	return nil
}
