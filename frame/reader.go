package frame

import (
	"errors"
	"io"
	"iter"
	"strconv"

	"github.com/layer0/anth/internal/iox"
)

// initialBufSize is where a Reader's buffer starts: room for hundreds of
// token frames a read, small enough for many idle streams. It grows, once,
// only when a frame declares more (never past MaxFrameSize).
const initialBufSize = 8 << 10

// ErrNeedMore is what Next returns when a Reader fed by Write needs more
// input than it has been given. It is normal flow, not a fault: Write more
// and call Next again. It is never sticky.
var ErrNeedMore = errors.New("frame: more input needed")

// Reader reads the frames of an ANTH response, from an io.Reader
// (NewReader) or from bytes pushed to it (NewPushReader, Write). It buffers
// its input, so it may read past the last frame it returns.
//
// The first call to Next checks Magic. Frames of unknown ignorable types are
// skipped (handed to ReaderOptions.OnSkip first, if set); frames of known types, PAD
// included, are returned. Errors are sticky: once Next fails it returns the
// same error until Reset. A Reader is not safe for concurrent use.
//
// A Reader holds the stream to the response grammar of SPEC.md §3.11 unless
// made with ReaderOptions.RawFrames: the response ends with DONE or ERROR, so an input that
// ends before one — on a frame boundary or not — is ErrTruncated, and a
// must-understand frame after it is ErrMalformed. A DONE or ERROR whose value
// continues in further frames (SPEC.md §4) is returned once, joined, and
// is bounded by ReaderOptions.MaxValueSize.
//
// Bounds: Next holds at most MaxFrameSize bytes of input at a time (a push
// Reader: what it was given and has not parsed yet), plus, while it joins a
// value, that value's bytes: at most 2 bytes held per byte received and
// never more than the value limit (DefaultMaxValueSize, 1 MiB). It produces
// no byte that was not received.
type Reader struct {
	onSkip     func(Frame)
	r          io.Reader // nil when fed by Write
	buf        []byte
	start, end int   // buf[start:end] holds read, unparsed bytes
	off        int64 // stream offset of buf[start]
	magic      bool  // whether Magic has been checked
	err        error // sticky error returned by Next
	rerr       error // error from r (io.EOF after CloseWrite), held until the bytes before it are used
	raw        bool  // ReaderOptions.RawFrames
	maxValue   int   // ReaderOptions.MaxValueSize; ≤ 0 means DefaultMaxValueSize
	body       bool  // Magic read, no DONE or ERROR yet, no error: Next's fast path applies

	ended   bool   // a DONE or ERROR has been read
	recent  int    // IDs in the stream's recent-ID list (SPEC.md §3.1.1)
	joining bool   // joined holds a DONE or ERROR whose value may continue
	joinTyp Type   // the type being joined
	joined  []byte // payload of the value being joined
}

// ReaderOptions configure a Reader. The zero value reads a response, held
// to its grammar, with the default limit.
type ReaderOptions struct {
	// RawFrames makes a Reader return every frame as it is on the wire, for
	// tools that inspect streams (anth dump) rather than read a response:
	// DONE and ERROR continuation frames are returned one by one, frames
	// may follow the end of the response, and input that ends on a frame
	// boundary is io.EOF wherever that boundary falls.
	RawFrames bool
	// MaxValueSize is the largest DONE or ERROR value a Reader joins from
	// continuation frames, counted as the joined payload (reason or code
	// included). A value that would pass it fails with an *Error wrapping
	// ErrTooLarge at the offset of the frame that crossed the limit, before
	// its bytes are kept. 0 or less means DefaultMaxValueSize; a value of
	// one frame (at most MaxPayload bytes) is checked against it only if it
	// continues.
	MaxValueSize int
	// OnSkip, if not nil, is called with each frame of an unknown ignorable
	// type before Next skips it, so a proxy can forward it. The frame's
	// payload is valid only during the call.
	OnSkip func(Frame)
}

// DefaultMaxValueSize is the largest DONE or ERROR value, reason or code
// included, that a Reader joins from continuation frames (SPEC.md §4) unless
// ReaderOptions.MaxValueSize says otherwise: 1 MiB. Real values are far
// smaller (an API error message or a stop sequence is rarely over a
// kilobyte), but a gateway may relay an upstream's error body in one, and a
// limit of 16 full frames keeps that working while a peer can make a Reader
// hold no more than 1 MiB for it — without a limit a stream of full ERROR
// frames, cheap to send and cheaper still through anth-deflate, grows one
// value without end.
const DefaultMaxValueSize = 1 << 20

// NewReader returns a Reader that reads an ANTH response from r. It does not
// read from r until the first call to Next.
func NewReader(r io.Reader, opts ReaderOptions) *Reader {
	return &Reader{r: r, raw: opts.RawFrames, maxValue: opts.MaxValueSize, onSkip: opts.OnSkip}
}

// NewPushReader returns a Reader that reads the bytes given to its Write
// method, for callers that receive a stream in callbacks (a net/http
// handler's writes, a WebSocket message) rather than from an io.Reader.
// Next returns ErrNeedMore when it has not been given enough; CloseWrite
// marks the end of the input.
func NewPushReader(opts ReaderOptions) *Reader { return NewReader(nil, opts) }

// Reset discards the Reader's state and makes it read a new stream from r
// (nil for a push Reader), keeping its buffers and options.
func (r *Reader) Reset(rd io.Reader) {
	*r = Reader{onSkip: r.onSkip, r: rd, buf: r.buf, raw: r.raw, maxValue: r.maxValue, joined: r.joined[:0]}
}

// Write appends p to the input of a Reader made by NewPushReader. It
// invalidates frames returned before it. It never fails; the error is for
// io.Writer.
func (r *Reader) Write(p []byte) (int, error) {
	if r.r != nil {
		return 0, errors.New("frame: Write on a Reader that reads an io.Reader")
	}
	if r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	r.buf = append(r.buf[:r.end], p...)
	r.end = len(r.buf)
	r.buf = r.buf[:cap(r.buf)]
	return len(p), nil
}

// CloseWrite marks the end of a push Reader's input: Next then reports a
// stream that ends early as it would for an io.Reader at io.EOF.
func (r *Reader) CloseWrite() {
	if r.r == nil && r.rerr == nil {
		r.rerr = io.EOF
	}
}

// Offset returns the stream offset of the next byte Next will parse: after
// a frame is returned, the offset just past it.
func (r *Reader) Offset() int64 { return r.off }

// Next returns the next frame. The frame's payload aliases the Reader's
// buffer and is valid until the next call to Next, Write or Reset.
//
// At the end of the response Next returns io.EOF. Input that ends inside a
// frame or before Magic was complete, or (unless RawFrames) before the
// DONE or ERROR that ends a response, gives an *Error wrapping ErrTruncated.
// Bad input gives an *Error with the stream offset (ErrTooLarge, at the
// frame that crossed it, for a joined DONE or ERROR value over the limit of
// ReaderOptions.MaxValueSize); an error from the underlying reader is returned as is,
// matchable with errors.Is.
func (r *Reader) Next() (Frame, error) {
	// The per-token path: one call, parseFast inlined, one test of the
	// grammar's state. Within the body of a response (after Magic, before
	// its DONE or ERROR, no error yet) the grammar of SPEC.md §3.11 returns
	// every known frame but DONE and ERROR as it is, so a complete frame
	// that parseFast takes (TOKEN, TOKEN32, TEXT, PAD, ERROR: no DONE, no
	// unknown type) needs no more than that ERROR is not among them. The
	// state is set by next, where it changes, not tested frame by frame.
	if r.body {
		b := r.buf[r.start:r.end]
		if f, n, ok := parseShort(b); ok {
			r.start += n
			r.off += int64(n)
			return f, nil
		}
		if f, n, ok := parseFast(b); ok && f.Type != TypeError {
			r.start += n
			r.off += int64(n)
			return f, nil
		}
	}
	return r.slowNext()
}

// slowNext is Next for everything but a complete fast frame in the body of
// a response: Magic, grammar, joins, skips, reads and errors.
func (r *Reader) slowNext() (Frame, error) {
	if r.err != nil {
		return Frame{}, r.err
	}
	f, err := r.next()
	if err != nil {
		if err != ErrNeedMore {
			r.err = err
			r.body = false
		}
		return Frame{}, err
	}
	r.body = r.magic && !r.ended
	return f, nil
}

func (r *Reader) next() (Frame, error) {
	if !r.magic {
		if err := r.readMagic(); err != nil {
			return Frame{}, err
		}
	}
	for {
		if r.joining {
			return r.join()
		}
		f, err := r.frame()
		if err == io.EOF && !r.raw && !r.ended {
			// SPEC.md §3.11: a response ends with DONE or ERROR.
			return Frame{}, errAt(r.off, ErrTruncated, "response ends before its DONE or ERROR")
		}
		if err != nil {
			return Frame{}, err
		}
		if !f.Type.Known() {
			if r.onSkip != nil {
				r.onSkip(f)
			}
			continue
		}
		if f.Type == TypePackedToken {
			if err := r.packed(f); err != nil {
				return Frame{}, err
			}
		}
		if r.raw {
			return f, nil
		}
		if r.ended && !f.Type.Ignorable() {
			return Frame{}, frameErr(r.off-int64(f.Size()), f.Type, ErrMalformed, "frame after the DONE or ERROR that ended the response")
		}
		if f.Type == TypeDone || f.Type == TypeError {
			r.ended = true
			if len(f.Payload) == MaxPayload {
				// SPEC.md §4: a full DONE or ERROR frame may continue.
				r.joining, r.joinTyp = true, f.Type
				r.joined = r.joined[:0]
				if err := r.keep(f, f.Payload); err != nil {
					return Frame{}, err
				}
				continue
			}
		}
		return f, nil
	}
}

// packed checks a PACKED_TOKEN frame's codes, its places against the IDs
// the stream's recent-ID list holds (SPEC.md §3.1.1): Parse has checked
// its padding alone.
func (r *Reader) packed(f Frame) error {
	_, after, at, detail, ok := scanPacked(f.Payload, r.recent)
	if !ok {
		return frameErr(r.off-int64(len(f.Payload))+int64(at), f.Type, ErrMalformed, detail)
	}
	r.recent = after
	return nil
}

// join reads the continuation frames of the DONE or ERROR in r.joined:
// after a full frame comes the next part of the value, a frame of the same
// type with the same reason or code, until one that is not full (SPEC.md §4).
func (r *Reader) join() (Frame, error) {
	key := 1 // DONE's reason
	if r.joinTyp == TypeError {
		key = 2 // ERROR's code
	}
	for {
		f, err := r.frame()
		if err == io.EOF {
			return Frame{}, errAt(r.off, ErrTruncated, "input ends where a "+r.joinTyp.String()+" value continues")
		}
		if err != nil {
			return Frame{}, err
		}
		if f.Type != r.joinTyp || len(f.Payload) < key || string(f.Payload[:key]) != string(r.joined[:key]) {
			return Frame{}, frameErr(r.off-int64(f.Size()), f.Type, ErrMalformed, "frame where the value of a full "+r.joinTyp.String()+" frame continues")
		}
		if err := r.keep(f, f.Payload[key:]); err != nil {
			return Frame{}, err
		}
		if len(f.Payload) < MaxPayload {
			r.joining = false
			return Frame{Type: r.joinTyp, Payload: r.joined}, nil
		}
	}
}

// keep appends p, a part of frame f (just read), to the value being joined,
// or fails with ErrTooLarge, keeping nothing, if that would take the value
// past the limit. It grows r.joined itself, to at most the limit, so that
// the capacity held never passes the limit either (append alone could
// double it past).
func (r *Reader) keep(f Frame, p []byte) error {
	limit := r.maxValue
	if limit <= 0 {
		limit = DefaultMaxValueSize
	}
	need := len(r.joined) + len(p)
	if need > limit {
		return frameErr(r.off-int64(f.Size()), f.Type, ErrTooLarge, "joined "+f.Type.String()+" value of "+strconv.Itoa(need)+" bytes or more, want at most "+strconv.Itoa(limit))
	}
	if need > cap(r.joined) {
		nb := make([]byte, len(r.joined), min(max(need, 2*cap(r.joined)), limit))
		copy(nb, r.joined)
		r.joined = nb
	}
	r.joined = append(r.joined, p...)
	return nil
}

// frame parses one frame of any type, reading as much as it needs.
func (r *Reader) frame() (Frame, error) {
	avail := r.end - r.start
	if avail < HeaderSize {
		// Every frame is 3 bytes or more (a SHORT_TOKEN is 3, with no
		// length field), so this reads no further than the frame.
		if err := r.fill(HeaderSize); err != nil {
			return Frame{}, err
		}
		avail = r.end - r.start
	}
	b := r.buf[r.start:r.end]
	if t, n, _ := ParseHeader(b); avail < n {
		// Decide what the header alone can before making room for the
		// payload: an unknown type or impossible length costs no read.
		if e := checkHeader(t, n-types[t].hdr, r.off); e != nil {
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
		// Report a wrong byte as soon as it is seen, before the missing ones.
		if _, merr := ParseMagic(r.buf[r.start:r.end]); errors.Is(merr, ErrBadMagic) {
			return merr
		}
		if err == io.EOF {
			return errAt(0, ErrTruncated, "empty stream, want \"ANTH\"")
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
// the input ends with nothing buffered (a frame boundary), an *Error
// wrapping ErrTruncated when it ends with a part of a frame, and
// ErrNeedMore when a push Reader has been given too little so far.
func (r *Reader) fill(need int) error {
	if r.end-r.start >= need {
		return nil
	}
	if r.r == nil {
		if r.rerr != nil {
			return r.readErr()
		}
		return ErrNeedMore
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
	for r.end-r.start < need {
		if r.rerr != nil {
			return r.readErr()
		}
		n, err := iox.Reader{R: r.r}.Read(r.buf[r.end:])
		if errors.Is(err, iox.ErrInvalidCount) {
			return errAt(r.off, io.ErrShortBuffer, err.Error())
		}
		if err == io.ErrNoProgress {
			return err
		}
		r.end += n
		r.rerr = err
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
// last frame at the end of the response, or after yielding the first error
// (with a zero Frame). Each frame is valid only until the next iteration.
// On a push Reader it stops, yielding nothing, when it needs more input.
func (r *Reader) All() iter.Seq2[Frame, error] {
	return func(yield func(Frame, error) bool) {
		for {
			f, err := r.Next()
			if err == io.EOF || err == ErrNeedMore {
				return
			}
			if !yield(f, err) || err != nil {
				return
			}
		}
	}
}
