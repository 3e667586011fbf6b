package deflate

import (
	"bufio"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
)

// MaxRecord is the longest record a Reader accepts. A Writer's are at most
// about 16 KiB; the bound only keeps the length's arithmetic in an int32.
const MaxRecord = 1<<31 - 1

// syncMarker is what every sync flush ends with and what a record leaves
// out: the LEN and NLEN of an empty stored block.
var syncMarker = [4]byte{0x00, 0x00, 0xFF, 0xFF}

// maxZeros is how many zero bytes a record may leave out of its sync flush
// besides syncMarker (SPEC.md §11.2): the end-of-block code, the empty
// stored block's header and the padding to the byte are at most 17 zero
// bits after a record's last code, so at most its last two bytes are zero
// whatever the code before them.
const maxZeros = 2

// Reader inflates anth-deflate. It hands the DEFLATE stream, each record
// followed by the bytes its writer left out (up to two zero bytes of codes
// and the four of syncMarker), to compress/flate, which
// gives out what a record holds once the record has arrived: a Read never
// waits for the next record to return the frames of this one.
//
// The coding has no end marker: at the end of its input between two
// records, Read returns io.EOF, and the ANTH stream inside says whether the
// response was whole. Input that ends inside the DICTID or a record is
// ErrTruncated; a DICTID that is not the dictionary's (SPEC.md §11.2), a
// record length of zero, over MaxRecord or not in its shortest form, and
// bytes that are not DEFLATE are ErrMalformed, each as an *Error with the
// offset in the coded input.
// A record that does not end on a sync flush (§11.2) — that asks for a
// third zero byte, or reads syncMarker as anything but the LEN and NLEN of
// an empty stored block — is ErrMalformed at its end. Errors of the
// underlying reader are returned as they are.
//
// Bounds: memory is fixed, whatever the input (DEFLATE's 32 KiB window and
// a 4 KiB buffer, made by NewReader and kept by Reset; no allocation per
// record); and each input byte gives at most 1,032 output bytes, counted
// over the body so far: DEFLATE's limit (a 258-byte match in 2 bits) for a
// record's own bits, and the bytes put back after a record give no more
// than bytes of the record that give none pay for (SPEC.md §11.2):
// syncMarker none; the zero bytes, in a record that ends on a sync flush,
// only the end of a symbol the record began, at most 258 bytes, for its
// length byte; in one that then asks for a third, at most 2,064, for its
// dynamic block's code tables.
// TestOutputBound reads the input closest to it: 1,031.7 a byte.
type Reader struct {
	in  feeder
	fr  io.ReadCloser
	err error
}

// NewReader returns a Reader of anth-deflate from r, starting from the
// preset dictionary the writer started from (nil for none).
func NewReader(r io.Reader, dict *Dictionary) *Reader {
	z := &Reader{}
	if dict != nil {
		z.in.dict = dict.b
	}
	z.in.id = dict.ID()
	z.Reset(r)
	return z
}

// Reset makes z read a new stream from r, with the same dictionary,
// keeping its window and buffer: reuse is the caller's, explicit, as a
// client that reads many responses keeps one Reader.
func (z *Reader) Reset(r io.Reader) {
	z.in.reset(r)
	if z.fr == nil {
		z.fr = flate.NewReaderDict(&z.in, z.in.dict)
	} else {
		z.fr.(flate.Resetter).Reset(&z.in, z.in.dict)
	}
	z.err = nil
}

// Read reads inflated bytes.
func (z *Reader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n, err := z.fr.Read(p)
	if err != nil {
		z.err = z.fault(err)
		if n > 0 {
			return n, nil
		}
		return 0, z.err
	}
	return n, nil
}

// fault gives compress/flate's error the meaning it has for the coding.
// Its conditions are ifs, not a switch, so that coverage (and mutation
// testing) sees them.
func (z *Reader) fault(err error) error {
	in := &z.in
	if in.err != nil {
		return in.err
	}
	if err == io.EOF {
		// A final block: it must be the last thing in the input.
		if in.left > 0 {
			return &Error{Offset: in.off, Err: ErrMalformed, Detail: "bytes after the final block"}
		}
		if _, perr := in.br.Peek(1); perr == nil {
			return &Error{Offset: in.off, Err: ErrMalformed, Detail: "a record after the final block"}
		}
		return io.EOF
	}
	if err == io.ErrUnexpectedEOF {
		if in.clean {
			return io.EOF
		}
		return &Error{Offset: in.off, Err: ErrTruncated, Detail: "input ends inside a record"}
	}
	if _, ok := err.(flate.CorruptInputError); ok {
		return &Error{Offset: in.off, Err: ErrMalformed, Detail: "not DEFLATE (" + err.Error() + ")"}
	}
	return err
}

// feeder gives compress/flate the DEFLATE stream: the bytes of each record,
// the zero bytes it left out, and then syncMarker.
//
// compress/flate reads codes and block headers with ReadByte, a byte only
// when the bits it holds are needed (huffSym and moreBits ask while they
// have fewer bits than the code needs), and a stored block's LEN and NLEN
// and its data with Read, in that order, exactly as long as they are.
// So the zero bytes a record leaves out of its sync flush (SPEC.md §11.2)
// are asked for, by ReadByte, exactly when the record's bits run out before
// the flush's end: the feeder gives 0x00 each time, at most maxZeros
// times. It follows the stored blocks in what it gives by Read, and can
// tell what syncMarker is read as: §11.2 wants a record to end on a sync
// flush, so syncMarker must be read, by Read, as the whole LEN and NLEN of
// a stored block. Anything else — a record that ends inside a block, whose
// codes would ask for a third zero byte or read the marker's 32 bits as
// output, or inside a stored block's header or data — is ErrMalformed at
// the record's end, and the marker never gives output.
type feeder struct {
	br     *bufio.Reader
	dict   []byte
	id     uint32 // the dictionary's DICTID
	idRead bool   // the body's DICTID is read and matches
	off    int64  // coded bytes consumed
	left   int    // bytes of the current record not yet given
	marker int    // bytes of syncMarker given after it; len(syncMarker) when none are due
	zeros  int    // zero bytes put back after the current record, at most maxZeros
	clean  bool   // the input ended between records
	err    error  // a fault of the coding itself, sticky

	head   int     // bytes given of a stored block's LEN and NLEN
	len    [2]byte // its LEN
	stored int     // bytes of the stored block's data not yet given
}

func (f *feeder) reset(r io.Reader) {
	if f.br == nil {
		f.br = bufio.NewReaderSize(r, 4096)
	} else {
		f.br.Reset(r)
	}
	f.off, f.left, f.marker, f.clean, f.err, f.idRead = 0, 0, len(syncMarker), false, nil, false
	f.zeros = 0
	f.head, f.stored = 0, 0
}

// notFlushed is the fault of a record that does not end on a sync flush.
func (f *feeder) notFlushed() error {
	f.err = &Error{Offset: f.off, Err: ErrMalformed, Detail: "record does not end on a sync flush"}
	return f.err
}

// ReadByte gives the next byte of the DEFLATE stream.
func (f *feeder) ReadByte() (byte, error) {
	if err := f.ready(); err != nil {
		return 0, err
	}
	if f.left == 0 {
		// Past the record's bytes, codes or a block header are the zero
		// bytes its sender left out of the sync flush (§11.2), at most
		// two; never the marker.
		if f.zeros == maxZeros || f.marker > 0 {
			return 0, f.notFlushed()
		}
		f.zeros++
		return 0, nil
	}
	b, err := f.br.ReadByte()
	if err != nil {
		return 0, noEOF(err)
	}
	f.left--
	f.off++
	return b, nil
}

// Read gives DEFLATE bytes; compress/flate reads stored blocks with it.
func (f *feeder) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if err := f.ready(); err != nil {
		return 0, err
	}
	if f.left == 0 {
		// The marker must be the whole LEN and NLEN of a stored block
		// (§11.2): it starts one, and is not its data.
		if f.stored > 0 || f.head != f.marker {
			return 0, f.notFlushed()
		}
		n := copy(p, syncMarker[f.marker:])
		f.marker += n
		if f.head += n; f.head == len(syncMarker) {
			f.head = 0 // LEN 0: no data
		}
		return n, nil
	}
	if f.stored > 0 {
		p = p[:min(len(p), f.stored)]
	} else {
		p = p[:min(len(p), len(syncMarker)-f.head)]
	}
	n, err := f.br.Read(p[:min(len(p), f.left)])
	f.left -= n
	f.off += int64(n)
	if f.stored > 0 {
		f.stored -= n
	} else {
		for _, b := range p[:n] {
			if f.head < len(f.len) {
				f.len[f.head] = b
			}
			f.head++
		}
		if f.head == len(syncMarker) {
			f.head, f.stored = 0, int(f.len[0])|int(f.len[1])<<8
		}
	}
	if n > 0 {
		return n, nil
	}
	return 0, noEOF(err)
}

// ready reads the next record's length when the current record and its
// marker are all given.
func (f *feeder) ready() error {
	if f.err != nil {
		return f.err
	}
	if f.left > 0 || f.marker < len(syncMarker) {
		return nil
	}
	if !f.idRead {
		return f.readID()
	}
	start := f.off
	var n uint64
	for shift := uint(0); ; shift += 7 {
		b, err := f.br.ReadByte()
		if err == io.EOF && shift == 0 {
			f.clean = true
			return io.EOF
		}
		if err != nil {
			return noEOF(err)
		}
		f.clean = false
		f.off++
		n |= uint64(b&0x7F) << shift
		if n > MaxRecord || shift > 28 {
			break
		}
		if b < 0x80 {
			if b == 0 && shift > 0 {
				f.err = &Error{Offset: start, Err: ErrMalformed, Detail: "record length not in its shortest form"}
				return f.err
			}
			if n > 0 {
				f.left, f.marker, f.zeros = int(n), 0, 0
				return nil
			}
			break
		}
	}
	f.err = &Error{Offset: start, Err: ErrMalformed, Detail: "record length " + strconv.FormatUint(n, 10) + ", want 1 to " + strconv.Itoa(MaxRecord)}
	return f.err
}

// readID reads the DICTID that starts the body and then the first record's
// length. A body written from another dictionary than the reader's would
// inflate to other bytes without a fault: SPEC.md §11.2 has it refused.
func (f *feeder) readID() error {
	b, err := f.br.Peek(idSize)
	f.off += int64(len(b))
	f.br.Discard(len(b))
	if len(b) == 0 && err == io.EOF {
		f.clean = true // no records at all: the frame layer says what is missing
		return io.EOF
	}
	if err == io.EOF {
		f.err = &Error{Offset: f.off, Err: ErrTruncated, Detail: "input ends inside the DICTID"}
		return f.err
	}
	if err != nil {
		return err
	}
	if id := binary.BigEndian.Uint32(b); id != f.id {
		f.err = &Error{Offset: 0, Err: ErrMalformed, Detail: fmt.Sprintf("DICTID %08x, want %08x: the body was coded from another preset dictionary", id, f.id)}
		return f.err
	}
	f.idRead = true
	return f.ready()
}

// noEOF: the input may end only between records.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
