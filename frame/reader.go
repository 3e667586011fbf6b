package frame

import (
	"encoding/binary"
	"io"
	"iter"
	"strconv"
)

// initialBufSize is where a Reader's buffer starts: room for hundreds of
// token frames a read, small enough for many idle streams. It grows, once,
// only when a frame declares more (never past MaxFrameSize).
const initialBufSize = 8 << 10

// maxEmptyReads bounds how often an io.Reader may return 0, nil in a row
// before the Reader gives up with io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

// Reader reads the frames of an ANTH stream from an io.Reader. It buffers its
// input, so it may read past the last frame it returns.
//
// The first call to Next checks Magic. Frames of unknown ignorable types are
// skipped (handed to OnSkip first, if set); frames of known types, PAD
// included, are returned. Errors are sticky: once Next fails it returns the
// same error until Reset. A Reader is not safe for concurrent use.
type Reader struct {
	// OnSkip, if not nil, is called with each frame of an unknown ignorable
	// type before Next skips it, so a proxy can forward it. The frame's
	// payload is valid only during the call.
	OnSkip func(Frame)

	r          io.Reader
	buf        []byte
	start, end int   // buf[start:end] holds read, unparsed bytes
	off        int64 // stream offset of buf[start]
	magic      bool  // whether Magic has been checked
	err        error // sticky error returned by Next
	rerr       error // error from r, held until the bytes before it are used
}

// NewReader returns a Reader that reads an ANTH stream from r. It does not
// read from r until the first call to Next.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

// Reset discards the Reader's state and makes it read a new stream from r,
// keeping its buffer (and OnSkip) for reuse.
func (r *Reader) Reset(rd io.Reader) {
	*r = Reader{OnSkip: r.OnSkip, r: rd, buf: r.buf}
}

// Offset returns the stream offset of the next byte Next will parse: after
// a frame is returned, the offset just past it.
func (r *Reader) Offset() int64 { return r.off }

// Next returns the next frame. The frame's payload aliases the Reader's
// buffer and is valid until the next call to Next or Reset.
//
// At the end of the stream Next returns io.EOF, but only if the stream ended
// on a frame boundary; inside a frame, or before Magic was complete, it
// returns an *Error wrapping ErrTruncated. Bad input gives an *Error with the
// stream offset; an error from the underlying reader is returned as is.
func (r *Reader) Next() (Frame, error) {
	if r.err != nil {
		return Frame{}, r.err
	}
	if !r.magic {
		if err := r.readMagic(); err != nil {
			r.err = err
			return Frame{}, err
		}
	}
	for {
		f, err := r.next()
		if err != nil {
			r.err = err
			return Frame{}, err
		}
		if f.Type.Known() {
			return f, nil
		}
		if r.OnSkip != nil {
			r.OnSkip(f)
		}
	}
}

// next parses one frame of any type, reading as much as it needs.
func (r *Reader) next() (Frame, error) {
	avail := r.end - r.start
	if avail < HeaderSize {
		if err := r.fill(HeaderSize); err != nil {
			return Frame{}, err
		}
		avail = r.end - r.start
	}
	b := r.buf[r.start:r.end]
	if n := HeaderSize + int(binary.BigEndian.Uint16(b[1:])); avail < n {
		// Decide what the header alone can before making room for the
		// payload: an unknown type or impossible length costs no read.
		if e := checkHeader(Type(b[0]), n-HeaderSize, r.off); e != nil {
			return Frame{}, e
		}
		if err := r.fill(n); err != nil {
			return Frame{}, err
		}
		b = r.buf[r.start:r.end]
	}
	f, n, ok := parseFast(b)
	if !ok {
		var e *Error
		if f, n, e = parse(b, r.off); e != nil {
			return Frame{}, e
		}
	}
	r.start += n
	r.off += int64(n)
	return f, nil
}

func (r *Reader) readMagic() error {
	if err := r.fill(len(Magic)); err != nil {
		if err == io.EOF {
			return errAt(0, ErrTruncated, "empty stream, want \"ANTH\"")
		}
		if e, ok := err.(*Error); ok && e.Err == ErrTruncated {
			// Report a wrong byte before the missing ones.
			if _, merr := ParseMagic(r.buf[r.start:r.end]); merr != nil {
				return merr
			}
		}
		return err
	}
	n, err := ParseMagic(r.buf[r.start:r.end])
	if err != nil {
		return err
	}
	r.start += n
	r.off += int64(n)
	r.magic = true
	return nil
}

// fill reads until at least need bytes are buffered. It returns io.EOF when
// the input ends with nothing buffered (a frame boundary), and an *Error
// wrapping ErrTruncated when it ends with a part of a frame.
func (r *Reader) fill(need int) error {
	if r.end-r.start >= need {
		return nil
	}
	if len(r.buf)-r.start < need {
		if len(r.buf) < need {
			// need ≤ MaxFrameSize: the declared length bounds the buffer.
			nb := make([]byte, max(need, initialBufSize, min(2*len(r.buf), MaxFrameSize)))
			r.end = copy(nb, r.buf[r.start:r.end])
			r.buf = nb
		} else {
			r.end = copy(r.buf, r.buf[r.start:r.end])
		}
		r.start = 0
	}
	for empty := 0; r.end-r.start < need; {
		if r.rerr != nil {
			return r.readErr()
		}
		n, err := r.r.Read(r.buf[r.end:])
		if n < 0 || n > len(r.buf)-r.end {
			return errAt(r.off, io.ErrShortBuffer, "underlying reader returned an invalid count "+strconv.Itoa(n))
		}
		r.end += n
		r.rerr = err
		if n == 0 && err == nil {
			if empty++; empty >= maxEmptyReads {
				return io.ErrNoProgress
			}
		}
	}
	return nil
}

// readErr turns the underlying reader's error into Next's.
func (r *Reader) readErr() error {
	if r.rerr != io.EOF {
		return r.rerr
	}
	have := r.end - r.start
	if have == 0 {
		return io.EOF
	}
	e := errAt(r.off+int64(have), ErrTruncated, "stream ends inside a frame")
	if have >= 1 && r.magic {
		e.Type, e.hasType = Type(r.buf[r.start]), true
	}
	return e
}

// All returns an iterator over the remaining frames. It stops after the
// last frame at a clean end of stream, or after yielding the first error
// (with a zero Frame). Each frame is valid only until the next iteration.
func (r *Reader) All() iter.Seq2[Frame, error] {
	return func(yield func(Frame, error) bool) {
		for {
			f, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(f, err) || err != nil {
				return
			}
		}
	}
}
