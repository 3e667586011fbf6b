package kvdelta

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"strconv"
)

// input reads a delta a byte or a run at a time, keeping the offset and the
// running CRC32C of what it has read.
type input struct {
	r   io.Reader
	br  io.ByteReader
	off int64
	crc uint32
	one [1]byte
	buf [hashSize]byte // for short reads, which would escape from the stack
}

func (in *input) fail(kind error, detail string) error {
	return &Error{Offset: in.off, Err: kind, Detail: detail}
}

// readErr reports an error of the reader: ErrTruncated for an early end,
// else the reader's own error, which stays matchable with errors.Is.
func (in *input) readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return in.fail(ErrTruncated, "delta ends early")
	}
	return in.fail(err, "reading the delta")
}

func (in *input) byte() (byte, error) {
	b, err := in.br.ReadByte()
	if err != nil {
		return 0, in.readErr(err)
	}
	in.one[0] = b
	in.crc = crc32.Update(in.crc, castagnoli, in.one[:])
	in.off++
	return b, nil
}

func (in *input) full(p []byte) error {
	n, err := io.ReadFull(in.r, p)
	in.crc = crc32.Update(in.crc, castagnoli, p[:n])
	in.off += int64(n)
	if err != nil {
		return in.readErr(err)
	}
	return nil
}

// uvarint reads a minimal uvarint no larger than max (SPEC.md §10: a
// non-minimal varint is malformed).
func (in *input) uvarint(what string, max uint64) (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := in.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7F) << shift
		if b < 0x80 {
			if b == 0 && shift > 0 {
				return 0, in.fail(ErrMalformed, what+": non-minimal uvarint")
			}
			if v > max {
				return 0, in.fail(ErrMalformed, what+" "+strconv.FormatUint(v, 10)+", want at most "+strconv.FormatUint(max, 10))
			}
			return v, nil
		}
	}
	return 0, in.fail(ErrMalformed, what+": uvarint overflows")
}

// count reads a uvarint from 1 to max.
func (in *input) count(what string, max int) (int, error) {
	v, err := in.uvarint(what, uint64(max))
	if err == nil && v == 0 {
		err = in.fail(ErrMalformed, what+" 0")
	}
	return int(v), err
}

// short reads n ≤ hashSize bytes into in.buf; they stay valid until the
// next read.
func (in *input) short(n int) ([]byte, error) {
	b := in.buf[:n]
	return b, in.full(b)
}

func (in *input) u32() (uint32, error) {
	b, err := in.short(4)
	return binary.BigEndian.Uint32(b), err
}
