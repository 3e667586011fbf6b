package kvdelta

import (
	"errors"
	"strconv"

	"github.com/klauspost/compress/huff0"
	"github.com/klauspost/compress/zstd"
)

// readPlanes reads the 2w byte planes of n bytes of tile data (SPEC.md
// §10.4) into d.planes, a chunk at a time: each chunk's piece is allocated
// as the chunk starts, so what the planes hold follows what has arrived.
func (st *state) readPlanes(n int) error {
	w := st.h.g.DType.Size()
	size := n / (2 * w)
	chunk := 1 << st.h.chunkLog
	for i := range 2 * w {
		s := &st.d.planes[i]
		s.reset(chunk, size)
		for off := 0; off < size; off += chunk {
			q, err := s.next(&st.b, st.in, min(chunk, size-off))
			if err != nil {
				return err
			}
			if err := st.readChunk(q); err != nil {
				return err
			}
		}
	}
	return nil
}

// readChunk decodes one chunk into q, which has the chunk's length.
func (st *state) readChunk(q []byte) error {
	in := st.in
	method, err := in.byte()
	if err != nil {
		return err
	}
	switch method {
	case methodRaw:
		return in.full(q)
	case methodRLE:
		b, err := in.byte()
		if err != nil {
			return err
		}
		for i := range q {
			q[i] = b
		}
		st.b.justified += int64(len(q))
		return nil
	case methodHuff, methodZstd:
	default:
		return in.fail(ErrMalformed, "chunk method "+strconv.Itoa(int(method)))
	}
	// §10.4: a coded chunk is shorter than the chunk's size, and decodes to
	// exactly it.
	n, err := in.uvarint("chunk length", uint64(len(q)-1))
	if err != nil {
		return err
	}
	d := st.d
	if cap(d.in) < int(n) {
		if err := st.b.take(in, int(n)); err != nil {
			return err
		}
		d.in = make([]byte, n)
	}
	src := d.in[:n]
	at := in.off
	if err := in.full(src); err != nil {
		return err
	}
	if method == methodZstd && d.zstd == nil {
		if err := st.b.take(in, zstdCost); err != nil {
			return err
		}
	}
	if err := d.decodeChunk(method, q, src); err != nil {
		return &Error{Offset: at, Err: ErrMalformed, Detail: err.Error()}
	}
	st.b.justified += int64(len(q))
	return nil
}

// decodeChunk decodes src, a huff0 block or a zstd frame, into q.
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
	// §10.4: the frame declares its size, so that no frame decodes past the
	// chunk into memory of the zstd decoder's own.
	var h zstd.Header
	if err := h.Decode(src); err != nil {
		return err
	}
	if !h.HasFCS || h.FrameContentSize != uint64(len(q)) {
		return errors.New("zstd frame does not declare the chunk's size, " + strconv.Itoa(len(q)) + " bytes")
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
	if len(out) != len(q) || &out[0] != &q[0] {
		return errors.New("zstd chunk decodes to " + strconv.Itoa(len(out)) + " bytes, want " + strconv.Itoa(len(q)))
	}
	return nil
}
