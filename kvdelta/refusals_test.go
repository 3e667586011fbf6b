package kvdelta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"strings"
	"testing"

	"github.com/klauspost/compress/huff0"

	"github.com/layer0/anth/tiling"
)

// crafted builds a delta field by field: the deltas a receiver must refuse,
// or accept, that no Encoder writes. Its methods append a field and return
// it; mark notes where a case's error is expected, after the fields so far.
type crafted struct {
	b     []byte
	g     tiling.Geometry
	chunk int
	at    int64
}

// craft starts a delta of geometry g with flags and tokens, and a base's
// token count and identity if base is not nil.
func craft(g tiling.Geometry, flags byte, tokens int, base *Snapshot) *crafted {
	h := header{flags: flags, g: g, tokens: tokens}
	if base != nil {
		h.flags |= flagBase
		h.baseTokens = base.Tokens
		id := identity(base)
		copy(h.baseID[:], id[:])
	}
	return &crafted{b: appendHeader(nil, &h), g: g, chunk: 1 << (chunkLogBase + int(flags>>4)), at: -1}
}

func (c *crafted) raw(b ...byte) *crafted { c.b = append(c.b, b...); return c }

func (c *crafted) uv(vs ...uint64) *crafted {
	for _, v := range vs {
		c.b = binary.AppendUvarint(c.b, v)
	}
	return c
}

func (c *crafted) u32(v uint32) *crafted { c.b = binary.BigEndian.AppendUint32(c.b, v); return c }

// crc writes the CRC32C of a tile.
func (c *crafted) crc(tile []byte) *crafted { return c.u32(crc32.Checksum(tile, castagnoli)) }

func (c *crafted) mark() *crafted { c.at = int64(len(c.b)); return c }

// markAt notes that a case's error is expected at offset at.
func (c *crafted) markAt(at int64) *crafted { c.at = at; return c }

// planes writes the planes of data, blocks of block bytes alternating K and
// V, in raw chunks.
func (c *crafted) planes(data []byte, block int) *crafted {
	w := c.g.DType.Size()
	ps := make([][]byte, 2*w)
	for i := range ps {
		ps[i] = make([]byte, len(data)/2/w)
	}
	split(w, block, data, ps)
	for _, p := range ps {
		for off := 0; off < len(p); off += c.chunk {
			c.raw(methodRaw).raw(p[off:min(off+c.chunk, len(p))]...)
		}
	}
	return c
}

// rows writes the planes of token rows [first, end) of tile, as ROWS does.
func (c *crafted) rows(tile []byte, first, end int) *crafted {
	g := c.g
	dense := make([]byte, (end-first)*g.TokenBytes()*g.Layers*2)
	moveRows(g, tile, dense, first, end, true)
	return c.planes(dense, (end-first)*g.TokenBytes())
}

// end writes END and the trailer.
func (c *crafted) end() *crafted { return c.raw(recEnd).trailer() }

// trailer writes the CRC32C of what is written so far.
func (c *crafted) trailer() *crafted { return c.crc(c.b) }

// cut marks the end: the delta stops there.
func (c *crafted) cut() *crafted { return c.mark() }

// xorOf returns a XOR b.
func xorOf(a, b []byte) []byte {
	out := make([]byte, len(a))
	for i := range a {
		out[i] = a[i] ^ b[i]
	}
	return out
}

// hashed returns s with the chained hashes of made-up token IDs, the same
// for every length, so that snapshots of one length and another share
// their prefix's hashes.
func hashed(s *Snapshot) *Snapshot {
	ids := make([]uint32, s.Tokens)
	for p := range ids {
		ids[p] = uint32(3*p + 1)
	}
	h := *s
	h.Hashes = tiling.AppendTileHashes([]tiling.Hash{}, s.Geometry.Layout(), tiling.Root(nil), ids)
	return &h
}

// zstdRLE returns a zstd frame of one RLE block: n bytes of b, n < 256,
// with a content checksum (wrong unless sum is right) if sum is not nil.
func zstdRLE(b byte, n int, sum []byte) []byte {
	fhd := byte(0x20) // single segment, a 1-byte content size
	if sum != nil {
		fhd |= 0x04
	}
	blk := n<<3 | 1<<1 | 1 // the last block, RLE
	f := []byte{0x28, 0xB5, 0x2F, 0xFD, fhd, byte(n), byte(blk), byte(blk >> 8), byte(blk >> 16), b}
	return append(f, sum...)
}

// refusal is a crafted delta and what applying it to base gives: an error
// of kind at offset at, whose message holds detail, or, kind nil, want.
type refusal struct {
	name   string
	base   *Snapshot
	delta  []byte
	kind   error
	at     int64
	detail string
	want   *Snapshot
}

// refusals returns the cases of TestRefusals: each check a receiver makes
// (SPEC.md §10.2-§10.5), broken once, at its bounds and past them.
func refusals() []refusal {
	// SPEC.md §10.6's snapshots: 2-token tiles of 16 bytes, bf16.
	gv := vectorSnapshot(0).Geometry
	base, next := vectorSnapshot(3), vectorSnapshot(6)
	t0, t1, t2 := next.Tile(0), next.Tile(1), next.Tile(2)
	b1 := base.Tile(1)
	const fast = (fastChunkLog - chunkLogBase) << 4
	hnd := gv
	hnd.Order = tiling.HND
	big := tiling.Geometry{Layers: 1, KVHeads: 1, HeadDim: maxDim, DType: tiling.FP8E4M3, TileShift: 4} // 32 MiB tiles
	ok := func(name string, base *Snapshot, c *crafted, want *Snapshot) refusal {
		return refusal{name: name, base: base, delta: c.b, want: want}
	}
	bad := func(name string, base *Snapshot, c *crafted, kind error, detail string) refusal {
		if c.at < 0 {
			panic(name + ": no mark")
		}
		return refusal{name: name, base: base, delta: c.b, kind: kind, at: c.at, detail: detail}
	}
	v := func() *crafted { return craft(gv, fast, 6, base) }
	// rest writes tiles 1 and 2 of next in one NEW record, and END.
	rest := func(c *crafted) *crafted {
		return c.raw(recNew).uv(2).crc(t1).crc(t2).planes(next.Data[16:48], 8).end()
	}
	hdr := func(b ...byte) *crafted { return (&crafted{g: gv, at: -1}).raw(b...) }
	magic := []byte(magic)

	cs := []refusal{
		ok("KEEP, NEW", base, rest(v().raw(recKeep).uv(0, 1)), next),
		ok("NEW", nil, craft(gv, fast, 6, nil).raw(recNew).uv(3).crc(t0).crc(t1).crc(t2).planes(next.Data, 8).end(), next),
		ok("KEEP, XOR, NEW", base, v().raw(recKeep).uv(0, 1).raw(recXor).uv(1, 1).crc(t1).planes(xorOf(t1, b1), 8).
			raw(recNew).uv(1).crc(t2).planes(t2, 8).end(), next),
		ok("KEEP, ROWS, NEW", base, v().raw(recKeep).uv(0, 1).raw(recRows).uv(1, 1, 2).crc(t1).rows(t1, 1, 2).
			raw(recNew).uv(1).crc(t2).planes(t2, 8).end(), next),
		ok("ROWS of every row", base, v().raw(recKeep).uv(0, 1).raw(recRows).uv(1, 0, 2).crc(t1).rows(t1, 0, 2).
			raw(recNew).uv(1).crc(t2).planes(t2, 8).end(), next),
		ok("KEEP of the base's last tile", next, craft(gv, fast, 6, next).raw(recKeep).uv(2, 1).raw(recKeep).uv(0, 2).end(),
			&Snapshot{Geometry: gv, Tokens: 6, Data: append(append([]byte(nil), t2...), next.Data[:32]...)}),
		ok("1 KiB chunks", base, rest(craft(gv, 0, 6, base).raw(recKeep).uv(0, 1)), next),
		ok("4 MiB chunks", base, rest(craft(gv, 12<<4, 6, base).raw(recKeep).uv(0, 1)), next),

		// §10.2: the header.
		bad("magic", nil, hdr('A', 'N', 'K', 'X', 1, fast).markAt(0), ErrMalformed, "magic"),
		bad("version 0", nil, hdr(append(magic, 0, fast)...).markAt(4), ErrMalformed, "version 0"),
		bad("version 2", nil, hdr(append(magic, 2, fast)...).markAt(4), ErrMalformed, "version 2"),
		bad("flags bit 3", nil, hdr(append(magic, 1, fast|8)...).markAt(5), ErrMalformed, "flags"),
		bad("header cut", nil, hdr(append(magic, 1)...).cut(), ErrTruncated, ""),
		bad("layers 0", nil, hdr(append(magic, 1, fast)...).uv(0).mark(), ErrMalformed, "geometry 0"),
		bad("layers 2^20+1", nil, hdr(append(magic, 1, fast)...).uv(maxDim+1).mark(), ErrMalformed, "geometry 1048577"),
		bad("kv_heads 0", nil, hdr(append(magic, 1, fast)...).uv(1, 0).mark(), ErrMalformed, "geometry 0"),
		bad("head_dim 2^20+1", nil, hdr(append(magic, 1, fast)...).uv(1, 1, maxDim+1).mark(), ErrMalformed, "geometry"),
		bad("dtype 0", nil, hdr(append(magic, 1, fast)...).uv(1, 1, 2).raw(0, 1, 0).mark(), ErrMalformed, "geometry: "),
		bad("dtype 6", nil, hdr(append(magic, 1, fast)...).uv(1, 1, 2).raw(6, 1, 0).mark(), ErrMalformed, "geometry: "),
		bad("order 2", nil, hdr(append(magic, 1, fast)...).uv(1, 1, 2).raw(1, 1, 2).mark(), ErrMalformed, "geometry: "),
		bad("tile shift 25", nil, hdr(append(magic, 1, fast)...).uv(1, 1, 2).raw(1, tiling.MaxTileShift+1, 0).mark(), ErrMalformed, "geometry"),
		bad("tokens 2^40+1", nil, hdr(append(magic, 1, fast)...).uv(1, 1, 2).raw(1, 1, 0).uv(maxTokens+1).mark(), ErrMalformed, "token count"),
		bad("base tokens 2^40+1", nil, hdr(append(magic, 1, fast|flagBase)...).uv(1, 1, 2).raw(1, 1, 0).uv(6, maxTokens+1).mark(), ErrMalformed, "base token count"),
		bad("varint of 11 bytes", nil, hdr(append(magic, 1, fast)...).raw(bytes.Repeat([]byte{0x80}, 10)...).mark().raw(1), ErrMalformed, "overflows"),
		ok("2^20 layers, no tokens", nil, craft(tiling.Geometry{Layers: maxDim, KVHeads: 1, HeadDim: 1, DType: tiling.FP8E5M2}, fast, 0, nil).end(),
			&Snapshot{Geometry: tiling.Geometry{Layers: maxDim, KVHeads: 1, HeadDim: 1, DType: tiling.FP8E5M2}}),
		ok("head_dim 2^20, no tokens", nil, craft(tiling.Geometry{Layers: 1, KVHeads: 1, HeadDim: maxDim, DType: tiling.FP8E5M2}, fast, 0, nil).end(),
			&Snapshot{Geometry: tiling.Geometry{Layers: 1, KVHeads: 1, HeadDim: maxDim, DType: tiling.FP8E5M2}}),

		// §10.2: the base, checked before anything is applied.
		bad("no base", nil, v().mark(), ErrBase, "needs a base"),
		bad("base of 4 tokens", vectorSnapshot(4), v().mark(), ErrBase, "tokens"),
		bad("base of another geometry", &Snapshot{Geometry: hnd, Tokens: 3, Data: base.Data}, v().mark(), ErrBase, "geometry"),
		bad("base of other bytes", func() *Snapshot { s := vectorSnapshot(3); s.Data[0] ^= 1; return s }(), v().mark(), ErrBase, "identity"),
		bad("base of short data", &Snapshot{Geometry: gv, Tokens: 3, Data: base.Data[:16]}, v().mark(), ErrBase, "base: "),
		bad("hashed delta, base without hashes", base, craft(gv, fast|flagHashes, 6, base).mark(), ErrBase, "has none"),
		ok("hashed delta, empty base without hashes", &Snapshot{Geometry: gv}, craft(gv, fast|flagHashes, 6, &Snapshot{Geometry: gv}).
			raw(recNew).uv(3).crc(t0).raw(hashed(next).Hashes[0][:]...).crc(t1).raw(hashed(next).Hashes[1][:]...).crc(t2).raw(hashed(next).Hashes[2][:]...).
			planes(next.Data, 8).end(), hashed(next)),

		// §10.3: records, and their counts.
		bad("record past the last tile", base, v().raw(recKeep).uv(0, 1).raw(recNew).uv(2).crc(t1).crc(t2).planes(next.Data[16:48], 8).raw(recKeep).mark(), ErrMalformed, "past the last tile"),
		bad("END after 1 of 3 tiles", base, v().raw(recKeep).uv(0, 1).raw(recEnd).mark(), ErrMalformed, "cover 1 of 3"),
		bad("KEEP without a base", nil, craft(gv, fast, 6, nil).raw(recKeep).mark(), ErrBase, "no base"),
		bad("KEEP of an empty base", &Snapshot{Geometry: gv}, craft(gv, fast, 6, &Snapshot{Geometry: gv}).raw(recKeep).mark(), ErrBase, "no base"),
		bad("KEEP of base tile 2 of 2", base, v().raw(recKeep).uv(2).mark(), ErrMalformed, "base tile 2"),
		bad("KEEP of 0 tiles", base, v().raw(recKeep).uv(0, 0).mark(), ErrMalformed, "tile count 0"),
		bad("KEEP of 4 tiles of 3", next, craft(gv, fast, 6, next).raw(recKeep).uv(0, 4).mark(), ErrMalformed, "tile count 4"),
		bad("KEEP past the snapshot's end", next, craft(gv, fast, 4, next).raw(recKeep).uv(0, 1).raw(recKeep).uv(1, 2).mark(), ErrMalformed, "tile count 2"),
		bad("KEEP past the base's end", base, v().raw(recKeep).uv(1, 2).mark(), ErrMalformed, "past the base's 2 tiles"),
		bad("KEEP of a partial tile that is full", hashed(vectorSnapshot(5)), craft(gv, fast|flagHashes, 8, hashed(vectorSnapshot(5))).
			raw(recKeep).uv(0, 1).raw(recKeep).uv(1, 2).mark(), ErrMalformed, "kept tile 2 "),
		bad("NEW of 0 tiles", base, v().raw(recNew).uv(0).mark(), ErrMalformed, "tile count 0"),
		bad("NEW of 3 tiles of 2", base, v().raw(recKeep).uv(0, 1).raw(recNew).uv(3).mark(), ErrMalformed, "tile count 3"),
		bad("NEW of 16 MiB and a tile", nil, craft(gv, fast, 2<<20+2, nil).raw(recNew).uv(1<<20+1).mark(), ErrMalformed, "run of 1048577 tiles"),
		bad("NEW of 16 MiB", nil, craft(gv, fast, 2<<20+2, nil).raw(recNew).uv(1<<20).cut(), ErrTruncated, ""),
		bad("NEW of 2 tiles of 32 MiB", nil, craft(big, fast, 32, nil).raw(recNew).uv(2).mark(), ErrMalformed, "run of 2 tiles"),
		bad("NEW of a tile of 32 MiB", nil, craft(big, fast, 32, nil).raw(recNew).uv(1).cut(), ErrTruncated, ""),
		bad("NEW tile 2's CRC32C", base, v().raw(recKeep).uv(0, 1).raw(recNew).uv(2).crc(t1).crc(t1).planes(next.Data[16:48], 8).mark(), ErrChecksum, "tile 2 CRC32C"),
		bad("NEW cut in its planes", base, func() *crafted {
			c := v().raw(recKeep).uv(0, 1).raw(recNew).uv(2).crc(t1).crc(t2).planes(next.Data[16:48], 8)
			c.b = c.b[:len(c.b)-3]
			return c.cut()
		}(), ErrTruncated, ""),
		bad("XOR without a base", nil, craft(gv, fast, 6, nil).raw(recXor).mark(), ErrBase, "no base"),
		bad("XOR of base tile 2 of 2", base, v().raw(recXor).uv(2).mark(), ErrMalformed, "base tile 2"),
		bad("XOR past the base's end", base, v().raw(recXor).uv(1, 2).mark(), ErrMalformed, "past the base's 2 tiles"),
		bad("XOR tile 1's CRC32C", base, v().raw(recKeep).uv(0, 1).raw(recXor).uv(1, 1).crc(t2).planes(xorOf(t1, b1), 8).mark(), ErrChecksum, "tile 1 CRC32C"),
		bad("ROWS without a base", nil, craft(gv, fast, 6, nil).raw(recRows).mark(), ErrBase, "no base"),
		bad("ROWS of base tile 2 of 2", base, v().raw(recRows).uv(2).mark(), ErrMalformed, "base tile 2"),
		bad("ROWS from row 2 of 2", base, v().raw(recRows).uv(1, 2).mark(), ErrMalformed, "first row 2"),
		bad("ROWS to row 3 of 2", base, v().raw(recRows).uv(1, 0, 3).mark(), ErrMalformed, "end row 3"),
		bad("ROWS of no rows", base, v().raw(recRows).uv(1, 1, 1).mark(), ErrMalformed, "empty row range"),
		bad("ROWS of rows the wrong way", base, v().raw(recRows).uv(1, 1, 0).mark(), ErrMalformed, "empty row range"),
		bad("ROWS tile 1's CRC32C", base, v().raw(recKeep).uv(0, 1).raw(recRows).uv(1, 1, 2).crc(t2).rows(t1, 1, 2).mark(), ErrChecksum, "tile 1 CRC32C"),
		bad("ROWS cut in its hash", hashed(base), craft(gv, fast|flagHashes, 6, hashed(base)).raw(recKeep).uv(0, 1).raw(recRows).uv(1, 1, 2).crc(t1).raw(1, 2, 3).cut(), ErrTruncated, ""),
		ok("hashed KEEP, ROWS, NEW", hashed(base), craft(gv, fast|flagHashes, 6, hashed(base)).raw(recKeep).uv(0, 1).
			raw(recRows).uv(1, 1, 2).crc(t1).raw(hashed(next).Hashes[1][:]...).rows(t1, 1, 2).
			raw(recNew).uv(1).crc(t2).raw(hashed(next).Hashes[2][:]...).planes(t2, 8).end(), hashed(next)),
		ok("hashed XOR of a tile still partial", hashed(base), craft(gv, fast|flagHashes, 3, hashed(base)).raw(recKeep).uv(0, 1).
			raw(recXor).uv(1, 1).crc(b1).planes(make([]byte, 16), 8).end(), hashed(base)),

		// §10.2: the trailer, and nothing after it.
		bad("a byte after the trailer", base, rest(v().raw(recKeep).uv(0, 1)).mark().raw(0), ErrMalformed, "1 bytes after"),
		bad("trailer", base, func() *crafted {
			c := rest(v().raw(recKeep).uv(0, 1))
			c.b[len(c.b)-1] ^= 0x80
			return c.markAt(int64(len(c.b) - crcSize))
		}(), ErrChecksum, "delta CRC32C"),
	}
	return append(cs, chunkRefusals()...)
}

// fp8Token returns a snapshot of one token in fp8 tiles of one token: K
// n bytes of k, V the bytes 0 to n-1. Its planes are K's bytes and V's.
func fp8Token(n int, k byte) *Snapshot {
	g := tiling.Geometry{Layers: 1, KVHeads: 1, HeadDim: n, DType: tiling.FP8E4M3}
	s := &Snapshot{Geometry: g, Tokens: 1, Data: make([]byte, 2*n)}
	for i := range n {
		s.Data[i], s.Data[n+i] = k, byte(i)
	}
	return s
}

// chunkDelta starts a delta of s, an fp8Token, as one NEW record with K's
// plane as given: method, then body.
func chunkDelta(s *Snapshot, method byte, body ...byte) *crafted {
	return craft(s.Geometry, (fastChunkLog-chunkLogBase)<<4, 1, nil).raw(recNew).uv(1).crc(s.Data).raw(method).raw(body...)
}

// chunkEnd writes the rest of a chunkDelta: V's plane raw, END, the trailer.
func chunkEnd(c *crafted, s *Snapshot) *crafted {
	return c.raw(methodRaw).raw(s.Data[s.Geometry.HeadDim:]...).end()
}

// chunkRefusals are the cases of §10.4's chunks, in fp8Tokens.
func chunkRefusals() []refusal {
	snap, delta, finish := fp8Token, chunkDelta, chunkEnd
	ok := func(name string, s *Snapshot, c *crafted) refusal {
		return refusal{name: name, delta: finish(c, s).b, want: s}
	}
	bad := func(name string, c *crafted, kind error, detail string) refusal {
		return refusal{name: name, delta: c.b, kind: kind, at: c.at, detail: detail}
	}
	s10, s11, s20, s30 := snap(10, 7), snap(11, 7), snap(20, 7), snap(30, 7)
	wrong := []byte{1, 2, 3, 4}
	// A huff0 block whose table reads and whose streams do not: the
	// error is huff0's own.
	s200 := snap(200, 0)
	for i := range 200 {
		s200.Data[i] = byte(i * i % 7)
	}
	var sc huff0.Scratch
	block, _, err := huff0.Compress4X(s200.Data[:200], &sc)
	if err != nil {
		panic(err)
	}
	block = append([]byte(nil), block...)
	block[len(block)-1] ^= 0x81
	var huffErr error
	if table, rest, err := huff0.ReadTable(block, &sc); err == nil {
		table.MaxDecodedSize = 200
		_, huffErr = table.Decoder().Decompress4X(make([]byte, 0, 200), rest)
	}
	if huffErr == nil {
		panic("the corrupt huff0 block decodes")
	}
	return []refusal{
		bad("huff0 chunk of a corrupt stream", finish(delta(s200, methodHuff).uv(uint64(len(block))).mark().raw(block...), s200), ErrMalformed, huffErr.Error()),
		ok("RLE chunk", s10, delta(s10, methodRLE, 7)),
		ok("zstd chunk one byte short of its size", s11, delta(s11, methodZstd).uv(10).raw(zstdRLE(7, 11, nil)...)),
		bad("zstd chunk as long as its size", delta(s10, methodZstd).uv(10).mark(), ErrMalformed, "chunk length 10"),
		bad("huff0 chunk as long as its size", delta(s10, methodHuff).uv(10).mark(), ErrMalformed, "chunk length 10"),
		bad("chunk method 4", delta(s10, 4).mark(), ErrMalformed, "chunk method 4"),
		bad("zstd frame of another size", finish(delta(s11, methodZstd).uv(10).mark().raw(zstdRLE(7, 10, nil)...), s11), ErrMalformed, "declare"),
		bad("zstd frame with a wrong checksum", finish(delta(s20, methodZstd).uv(14).mark().raw(zstdRLE(7, 20, wrong)...), s20), ErrMalformed, ""),
		bad("zstd chunk of two frames", finish(delta(s30, methodZstd).uv(20).mark().raw(append(zstdRLE(7, 30, nil), zstdRLE(7, 1, nil)...)...), s30), ErrMalformed, ""),
		bad("huff0 chunk of garbage", finish(delta(s11, methodHuff).uv(4).mark().raw(wrong...), s11), ErrMalformed, ""),
		bad("RLE chunk cut", delta(s10, methodRLE).cut(), ErrTruncated, ""),
	}
}

// TestRefusals: every check of SPEC.md §10 on crafted deltas, each broken
// alone: the error's kind, offset and what its message names, or, for the
// deltas at the checks' bounds, the snapshot. ApplyFrom agrees with Apply.
func TestRefusals(t *testing.T) {
	for _, c := range refusals() {
		d := NewDecoder(Limits{MaxBytes: math.MaxInt64})
		got, err := d.Apply(c.base, c.delta)
		check := func(form string, got *Snapshot, err error) {
			if c.kind == nil {
				if err != nil || !Equal(got, c.want) {
					t.Errorf("%s, %s: %v", c.name, form, err)
				}
				return
			}
			var e *Error
			if !errors.Is(err, c.kind) || !errors.As(err, &e) || e.Offset != c.at || !strings.Contains(e.Detail, c.detail) {
				t.Errorf("%s, %s: %v; want %v at offset %d, naming %q", c.name, form, err, c.kind, c.at, c.detail)
			}
		}
		check("Apply", got, err)
		if !strings.Contains(c.detail, "after") {
			got, err = NewDecoder(Limits{MaxBytes: math.MaxInt64}).ApplyFrom(c.base, bytes.NewReader(c.delta))
			check("ApplyFrom", got, err)
		}
	}
}
