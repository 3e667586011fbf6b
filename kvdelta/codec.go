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
	// Max codes every plane with zstd at its best level and with huff0, and
	// keeps the smaller of the two for each chunk: never larger than Fast
	// on the same chunks, and much slower to encode; decoding stays fast.
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
		// ErrIncompressible and ErrUseRLE are huff0's normal answers for
		// random and constant input, and a chunk over huff0's 128 KiB is an
		// error: any error leaves the chunk to zstd or raw.
		out, _, err := huff0.Compress4X(q, &c.huff)
		if err != nil {
			out = nil
		}
		if c.mode == Max {
			// Max must never lose to Fast: zstd's frame header and its
			// sequences cost more than huff0's table on a small or
			// order-0 chunk (a ROWS record's), so the smaller of the two
			// is kept.
			c.out = c.zstd.EncodeAll(q, c.out[:0])
			if len(c.out) < len(q) && (out == nil || len(c.out) < len(out)) {
				dst = append(dst, methodZstd)
				dst = binary.AppendUvarint(dst, uint64(len(c.out)))
				return append(dst, c.out...)
			}
		}
		if out != nil && len(out) < len(q) {
			dst = append(dst, methodHuff)
			dst = binary.AppendUvarint(dst, uint64(len(out)))
			return append(dst, out...)
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
