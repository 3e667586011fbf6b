package kvdelta

import (
	"encoding/binary"
	"strconv"

	"github.com/layer0/anth/tiling"
)

// header is what a delta's header says (SPEC.md §10.2).
type header struct {
	flags      byte
	chunkLog   int
	g          tiling.Geometry
	tokens     int
	baseTokens int
	baseID     [idSize]byte
}

func (h *header) hasBase() bool { return h.flags&flagBase != 0 }
func (h *header) hashed() bool  { return h.flags&flagHashes != 0 }

// readHeader reads a header and checks every field against §10.2.
func readHeader(in *input) (header, error) {
	var h header
	fixed, err := in.short(6)
	if err != nil {
		return h, err
	}
	if string(fixed[:4]) != magic {
		return h, &Error{Offset: 0, Err: ErrMalformed, Detail: "magic, want \"ANKV\""}
	}
	if fixed[4] != version {
		return h, &Error{Offset: 4, Err: ErrMalformed, Detail: "version " + strconv.Itoa(int(fixed[4])) + ", want 1"}
	}
	h.flags = fixed[5]
	h.chunkLog = chunkLogBase + int(h.flags>>4)
	// §10.2: bits 2-3 are zero and c is at most 12.
	if h.flags&flagReserved != 0 || h.chunkLog > maxChunkLog {
		return h, &Error{Offset: 5, Err: ErrMalformed, Detail: "flags " + strconv.Itoa(int(h.flags))}
	}
	dims := [...]*int{&h.g.Layers, &h.g.KVHeads, &h.g.HeadDim}
	for _, f := range dims {
		if *f, err = in.count("geometry", maxDim); err != nil {
			return h, err
		}
	}
	gb, err := in.short(3)
	if err != nil {
		return h, err
	}
	h.g.DType, h.g.TileShift, h.g.Order = tiling.DType(gb[0]), gb[1], tiling.Order(gb[2])
	if err := h.g.Check(); err != nil {
		return h, in.fail(ErrMalformed, "geometry: "+err.Error())
	}
	v, err := in.uvarint("token count", maxTokens)
	if err != nil {
		return h, err
	}
	h.tokens = int(v)
	if h.hasBase() {
		if v, err = in.uvarint("base token count", maxTokens); err != nil {
			return h, err
		}
		h.baseTokens = int(v)
		id, err := in.short(idSize)
		if err != nil {
			return h, err
		}
		copy(h.baseID[:], id)
	}
	return h, nil
}

// appendHeader appends h as §10.2 lays it out.
func appendHeader(b []byte, h *header) []byte {
	b = append(b, magic...)
	b = append(b, version, h.flags)
	b = binary.AppendUvarint(b, uint64(h.g.Layers))
	b = binary.AppendUvarint(b, uint64(h.g.KVHeads))
	b = binary.AppendUvarint(b, uint64(h.g.HeadDim))
	b = append(b, byte(h.g.DType), h.g.TileShift, byte(h.g.Order))
	b = binary.AppendUvarint(b, uint64(h.tokens))
	if h.hasBase() {
		b = binary.AppendUvarint(b, uint64(h.baseTokens))
		b = append(b, h.baseID[:]...)
	}
	return b
}
