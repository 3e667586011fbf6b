package kvdelta

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strconv"

	"github.com/layer0/anth/tiling"
)

// state is one call's way through a delta: what the header said, where the
// records have got to, and the snapshot being assembled.
type state struct {
	d    *Decoder
	in   *input
	base *Snapshot
	b    budget

	h         header
	tb        int // bytes of a tile
	tiles     int // tiles of the new snapshot
	full      int // its tiles that carry a hash: the full ones, if hashed
	baseTiles int
	at        int // the next tile to decode

	data   assembly[byte]
	hashes assembly[tiling.Hash]
}

// records holds the function that decodes each record type after its type
// byte (SPEC.md §10.3). END is the loop's own.
var records = [...]func(*state) error{
	recKeep: (*state).keep,
	recNew:  (*state).newTiles,
	recXor:  (*state).xorTiles,
	recRows: (*state).rows,
}

// run decodes the delta into dst.
func (st *state) run(dst *Snapshot) error {
	in := st.in
	var err error
	if st.h, err = readHeader(in); err != nil {
		return err
	}
	if err := st.begin(dst); err != nil {
		return err
	}
	for {
		kind, err := in.byte()
		if err != nil {
			return err
		}
		st.b.justified += recordCost
		if kind == recEnd {
			break
		}
		if int(kind) >= len(records) || records[kind] == nil {
			return in.fail(ErrMalformed, "record type "+strconv.Itoa(int(kind)))
		}
		// §10.3: the records' counts add up to the snapshot's tiles.
		if st.at == st.tiles {
			return in.fail(ErrMalformed, "record past the last tile")
		}
		if err := records[kind](st); err != nil {
			return err
		}
		if err := st.settle(); err != nil {
			return err
		}
	}
	if st.at != st.tiles {
		return in.fail(ErrMalformed, "records cover "+strconv.Itoa(st.at)+" of "+strconv.Itoa(st.tiles)+" tiles")
	}
	crc := in.crc
	got, err := in.u32()
	if err != nil {
		return err
	}
	if got != crc { // §10.2: the trailer
		return &Error{Offset: in.off - crcSize, Err: ErrChecksum, Detail: "delta CRC32C"}
	}
	*dst = Snapshot{Geometry: st.h.g, Tokens: st.h.tokens, Data: st.data.buf}
	if st.h.hashed() {
		dst.Hashes = st.hashes.buf
	}
	return nil
}

// begin checks the base (§10.2: before anything is applied) and the limits,
// and starts the snapshot's assembly, in dst's buffers if they have room.
func (st *state) begin(dst *Snapshot) error {
	h, in, base := &st.h, st.in, st.base
	st.tb = h.g.TileBytes()
	st.tiles = h.g.Layout().Tiles(h.tokens)
	if h.hashed() {
		st.full = h.tokens >> h.g.TileShift
	}
	if h.hasBase() {
		switch {
		case base == nil:
			return in.fail(ErrBase, "the delta needs a base snapshot")
		case base.Check() != nil:
			return in.fail(ErrBase, "base: "+base.Check().Error())
		case base.Geometry != h.g:
			return in.fail(ErrBase, "base geometry differs")
		case base.Tokens != h.baseTokens:
			return in.fail(ErrBase, "base has "+strconv.Itoa(base.Tokens)+" tokens, the delta's has "+strconv.Itoa(h.baseTokens))
		}
		if id := identity(base); !bytes.Equal(id[:idSize], h.baseID[:]) {
			return in.fail(ErrBase, "base identity differs")
		}
		st.baseTiles = base.Tiles()
		if h.hashed() && st.baseTiles > 0 && base.Hashes == nil {
			return in.fail(ErrBase, "the delta keeps hashes but the base has none")
		}
	}
	// §10.5: the snapshot itself must fit, refused here, before anything
	// is allocated for it; nothing is allocated from the header's sizes.
	if int64(st.tiles) > st.b.max/int64(st.tb) || int64(st.tiles*st.tb)+int64(st.full)*hashSize > st.b.max {
		return in.fail(ErrTooLarge, strconv.Itoa(st.tiles)+" tiles of "+strconv.Itoa(st.tb)+" bytes and "+strconv.Itoa(st.full)+" hashes, past the limit of "+strconv.FormatInt(st.b.max, 10)+" bytes")
	}
	st.data.start(st.tiles*st.tb, dst.Data)
	st.hashes.start(st.full, dst.Hashes)
	return st.settle()
}

// settle makes the snapshot's buffers once little of them is still to come.
func (st *state) settle() error {
	ahead := finalAhead
	if st.d.late {
		ahead = 0
	}
	if err := st.data.settle(&st.b, st.in, ahead); err != nil {
		return err
	}
	return st.hashes.settle(&st.b, st.in, ahead)
}

// baseRun reads a run of base tiles (base tile, count) of KEEP and XOR.
func (st *state) baseRun() (from, count int, err error) {
	in := st.in
	if st.baseTiles == 0 {
		return 0, 0, in.fail(ErrBase, "record refers to a base tile, and there is no base")
	}
	v, err := in.uvarint("base tile", uint64(st.baseTiles-1))
	if err != nil {
		return 0, 0, err
	}
	if count, err = in.count("tile count", st.tiles-st.at); err != nil {
		return 0, 0, err
	}
	if from = int(v); from+count > st.baseTiles {
		return 0, 0, in.fail(ErrMalformed, "tile count "+strconv.Itoa(count)+" past the base's "+strconv.Itoa(st.baseTiles)+" tiles")
	}
	return from, count, nil
}

// keep decodes a KEEP record: base tiles, and their hashes, taken as they are.
func (st *state) keep() error {
	from, count, err := st.baseRun()
	if err != nil {
		return err
	}
	base, tb := st.base, st.tb
	if err := st.data.add(&st.b, st.in, base.Data[from*tb:(from+count)*tb]); err != nil {
		return err
	}
	// The kept tiles that are full in the new snapshot take their base
	// tiles' hashes, which those must have.
	if hashed := max(0, min(st.at+count, st.full)-st.at); hashed > 0 {
		if from+hashed > len(base.Hashes) {
			return st.in.fail(ErrMalformed, "kept tile "+strconv.Itoa(st.at+len(base.Hashes)-from)+" is full but its base tile is not")
		}
		if err := st.hashes.add(&st.b, st.in, base.Hashes[from:from+hashed]); err != nil {
			return err
		}
		st.b.justified += int64(hashed * hashSize)
	}
	st.b.justified += int64(count * tb)
	st.at += count
	return nil
}

// newTiles decodes a NEW record.
func (st *state) newTiles() error {
	count, err := st.in.count("tile count", st.tiles-st.at)
	if err != nil {
		return err
	}
	return st.tileRun(count, -1)
}

// xorTiles decodes an XOR record.
func (st *state) xorTiles() error {
	from, count, err := st.baseRun()
	if err != nil {
		return err
	}
	return st.tileRun(count, from)
}

// tileRun decodes the rest of a NEW (from < 0) or XOR record of count
// tiles: their CRC32Cs and hashes, then their planes.
func (st *state) tileRun(count, from int) error {
	in, d, tb := st.in, st.d, st.tb
	// §10.3: at most 16 MiB of tiles, or one tile.
	if count > 1 && count > maxRunBytes/tb {
		return in.fail(ErrMalformed, "run of "+strconv.Itoa(count)+" tiles of "+strconv.Itoa(tb)+" bytes")
	}
	hashed := max(0, min(st.at+count, st.full)-st.at)
	if err := st.need(count*tb, count*crcSize, hashed*hashSize, count*tb, hashed); err != nil {
		return err
	}
	d.crcs.reset(headPiece, count*crcSize)
	d.hashes.reset(headPiece, hashed*hashSize)
	for i := range count {
		if err := st.readInto(&d.crcs, crcSize); err != nil {
			return err
		}
		if i < hashed {
			if err := st.readInto(&d.hashes, hashSize); err != nil {
				return err
			}
		}
	}
	if err := st.readPlanes(count * tb); err != nil {
		return err
	}
	out, err := st.data.room(&st.b, in, count*tb)
	if err != nil {
		return err
	}
	w := st.h.g.DType.Size()
	merge(w, st.h.g.BlockBytes(), d.planes[:2*w], out)
	if from >= 0 {
		src := st.base.Data[from*tb : (from+count)*tb]
		for i := range out {
			out[i] ^= src[i]
		}
	}
	for i := range count { // §10.3: a receiver MUST verify each tile's CRC32C
		if crc32.Checksum(out[i*tb:(i+1)*tb], castagnoli) != binary.BigEndian.Uint32(d.crcs.at(i*crcSize, crcSize)) {
			return in.fail(ErrChecksum, "tile "+strconv.Itoa(st.at+i)+" CRC32C")
		}
	}
	if err := st.data.add(&st.b, in, out); err != nil {
		return err
	}
	if err := st.addHashes(hashed); err != nil {
		return err
	}
	st.at += count
	return nil
}

// readInto reads n bytes of a record into s.
func (st *state) readInto(s *spool, n int) error {
	p, err := s.next(&st.b, st.in, n)
	if err != nil {
		return err
	}
	return st.in.full(p)
}

// addHashes adds the n hashes d.hashes holds to the snapshot's.
func (st *state) addHashes(n int) error {
	if n == 0 {
		return nil
	}
	hs, err := st.hashes.room(&st.b, st.in, n)
	if err != nil {
		return err
	}
	for i := range hs {
		copy(hs[i][:], st.d.hashes.at(i*hashSize, hashSize))
	}
	return st.hashes.add(&st.b, st.in, hs)
}

// need refuses (§10.5) a record that cannot be decoded within the limit before
// anything is allocated for it: planes bytes of planes, crcs bytes of CRC32Cs
// and hashes bytes of hashes (each less what the Decoder keeps for them from
// before), and what the snapshot's data and hashes take for the record's
// tiles bytes and tileHashes hashes.
func (st *state) need(planes, crcs, hashes, tiles, tileHashes int) error {
	d := st.d
	for i := range d.planes {
		planes -= d.planes[i].bytes()
	}
	more := int64(max(0, planes) + max(0, crcs-d.crcs.bytes()) + max(0, hashes-d.hashes.bytes()))
	more += st.data.cost(tiles) + st.hashes.cost(tileHashes)
	return st.b.need(st.in, more)
}

// rows decodes a ROWS record: one tile, a base tile with token rows
// [first, end) replaced.
func (st *state) rows() error {
	in, d, g, tb := st.in, st.d, st.h.g, st.tb
	r, err := st.readRowsHead()
	if err != nil {
		return err
	}
	n := r.end - r.first
	dense := n * g.TokenBytes() * g.Layers * 2
	hashed := 0
	if r.hashed {
		hashed = 1
	}
	if err := st.need(dense, 0, 0, tb, hashed); err != nil {
		return err
	}
	if err := st.readPlanes(dense); err != nil {
		return err
	}
	if cap(d.dense) < dense {
		if err := st.b.take(in, dense); err != nil {
			return err
		}
		d.dense = make([]byte, dense)
	}
	d.dense = d.dense[:dense]
	merge(g.DType.Size(), n*g.TokenBytes(), d.planes[:2*g.DType.Size()], d.dense)
	tile, err := st.data.room(&st.b, in, tb)
	if err != nil {
		return err
	}
	copy(tile, st.base.Tile(r.from))
	moveRows(g, tile, d.dense, r.first, r.end, false)
	if crc32.Checksum(tile, castagnoli) != r.crc { // §10.3

		return in.fail(ErrChecksum, "tile "+strconv.Itoa(st.at)+" CRC32C")
	}
	if err := st.data.add(&st.b, in, tile); err != nil {
		return err
	}
	st.b.justified += int64(tb)
	if r.hashed {
		hs, err := st.hashes.room(&st.b, in, 1)
		if err != nil {
			return err
		}
		hs[0] = r.hash
		if err := st.hashes.add(&st.b, in, hs); err != nil {
			return err
		}
	}
	st.at++
	return nil
}

// rowsHead is a ROWS record's fields before its planes.
type rowsHead struct {
	from, first, end int
	crc              uint32
	hashed           bool
	hash             tiling.Hash
}

func (st *state) readRowsHead() (rowsHead, error) {
	in := st.in
	var r rowsHead
	if st.baseTiles == 0 {
		return r, in.fail(ErrBase, "ROWS record, and there is no base")
	}
	v, err := in.uvarint("base tile", uint64(st.baseTiles-1))
	if err != nil {
		return r, err
	}
	r.from = int(v)
	size := st.h.g.Layout().Size()
	if v, err = in.uvarint("first row", uint64(size-1)); err != nil {
		return r, err
	}
	r.first = int(v)
	if v, err = in.uvarint("end row", uint64(size)); err != nil {
		return r, err
	}
	if r.end = int(v); r.end <= r.first {
		return r, in.fail(ErrMalformed, "empty row range")
	}
	if r.crc, err = in.u32(); err != nil {
		return r, err
	}
	if r.hashed = st.at < st.full; r.hashed {
		b, err := in.short(hashSize)
		if err != nil {
			return r, err
		}
		copy(r.hash[:], b)
	}
	return r, nil
}
