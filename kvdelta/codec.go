package kvdelta

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/klauspost/compress/huff0"
	"github.com/klauspost/compress/zstd"
)

// Mode chooses between speed and size.
type Mode uint8

const (
	// Fast entropy-codes the exponent plane with huff0 and stores the rest
	// raw: near the order-0 bound at entropy-coder speed.
	Fast Mode = iota
	// Max codes every plane with zstd at its best level: smaller and much
	// slower to encode; decoding stays fast.
	Max
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// coder encodes chunks. It owns reusable scratch space; one per goroutine.
type coder struct {
	mode Mode
	huff huff0.Scratch
	zstd *zstd.Encoder
	out  []byte
}

func newCoder(mode Mode) *coder {
	c := &coder{mode: mode}
	// Every chunk carries its own table: a reused table would make a chunk
	// depend on the one before, which the decoder may not have read.
	c.huff.Reuse = huff0.ReusePolicyNone
	if mode == Max {
		c.zstd, _ = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedBestCompression),
			zstd.WithAllLitEntropyCompression(true),
			zstd.WithEncoderCRC(false),
			zstd.WithEncoderConcurrency(1),
			zstd.WithSingleSegment(true))
	}
	return c
}

// appendChunk appends chunk q: entropy-coded if code and it pays, else raw.
func (c *coder) appendChunk(dst, q []byte, code bool) []byte {
	if code && len(q) > 0 {
		if allSame(q) {
			return append(dst, methodRLE, q[0])
		}
		if c.mode == Max {
			c.out = c.zstd.EncodeAll(q, c.out[:0])
			if len(c.out) < len(q) {
				dst = append(dst, methodZstd)
				dst = binary.AppendUvarint(dst, uint64(len(c.out)))
				return append(dst, c.out...)
			}
		} else {
			// ErrIncompressible and ErrUseRLE are huff0's normal answers
			// for random and constant input; any error sends the chunk raw.
			out, _, err := huff0.Compress4X(q, &c.huff)
			if err == nil && len(out) < len(q) {
				dst = append(dst, methodHuff)
				dst = binary.AppendUvarint(dst, uint64(len(out)))
				return append(dst, out...)
			}
		}
	}
	dst = append(dst, methodRaw)
	return append(dst, q...)
}

func allSame(q []byte) bool {
	for _, b := range q[1:] {
		if b != q[0] {
			return false
		}
	}
	return true
}
