package anthhttp

import (
	"context"
	"errors"
	"io"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/sse"
)

// relay reads an upstream's event stream and gives, event by event, what
// its client gets: ANTH frames (coded in anth-deflate when asked), or the
// API's events checked one by one. A stream that breaks, ends early or
// cannot be read ends with an ERROR frame or the API's error event saying
// so, and never has anything added after its end: the fault is kept for
// the caller (Proxy returns it, Gateway logs it), and the relay ends as a
// whole stream does. It is the one path both Proxy and Gateway serve
// streams through.
type relay struct {
	ctx     context.Context
	api     bridge.API
	d       bridge.Decoder // ANTH modes
	sc      *sse.Scanner   // the event-stream mode
	z       *coder         // anth-deflate, when coded
	padding int
	started bool // bytes have been given
	ended   bool // the event stream's response has ended (event-stream mode)
	done    bool
	fault   *Error
	held    error // an error met while gathering ready events, for the next call
	buf     []byte
	pending []byte // Read's output not yet read
}

// maxGather bounds what the relay gathers into one write from events the
// upstream has already sent (io.Copy's buffer size).
const maxGather = 32 << 10

// readier is a Decoder that says whether its next event is already read
// (bridge.Decoder's optional Ready method).
type readier interface{ Ready() bool }

func newRelay(ctx context.Context, upstream io.Reader, api bridge.API, w wire, padding int) *relay {
	r := &relay{ctx: ctx, api: api, padding: padding}
	switch w {
	case wireCoded, wireCodedType:
		// The stream's window deflates EVENT JSON better than each event
		// alone does: the decoder writes it raw (SPEC.md §11.2).
		r.d = api.NewDecoder(upstream, true)
		r.z = getCoder(api.Dictionary())
		r.padding = 0
	case wireANTH:
		r.d = api.NewDecoder(upstream, false)
	default:
		r.sc = getScanner(upstream)
	}
	return r
}

// next returns the bytes of the next event, valid until the next call, or
// io.EOF once the stream is over, whole or not (see fault).
func (r *relay) next() ([]byte, error) {
	if r.done {
		return nil, io.EOF
	}
	var b []byte
	var err error
	if r.sc != nil {
		b, err = r.event()
	} else {
		b, err = r.frames()
	}
	if err == io.EOF {
		r.finish()
		return nil, io.EOF
	}
	if err != nil {
		// The end of a stream that failed: its last bytes, then io.EOF.
		r.finish()
		if len(b) == 0 {
			return nil, io.EOF
		}
	}
	r.started = true
	return b, nil
}

// frames gives the ANTH of the next event, and of those after it that the
// upstream has already sent (up to maxGather bytes), as one write.
func (r *relay) frames() ([]byte, error) {
	b, err := r.d.Next()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		fault, code := streamFault(r.ctx, err, r.d.Offset())
		r.fault = fault
		if r.d.Ended() {
			return nil, err
		}
		b = r.buf[:0]
		if !r.started {
			b = frame.AppendMagic(b)
		}
		b = frame.AppendError(b, code, fault.Error())
		r.buf = b
		return r.deflated(b), err
	}
	rd, _ := r.d.(readier)
	if r.padding == 0 && (rd == nil || !rd.Ready()) {
		return r.deflated(b), nil
	}
	// b is the Decoder's until its next call: gather into r.buf. A
	// Decoder's errors are sticky, so one met here comes again next time.
	r.buf = r.padded(r.buf[:0], b, !r.started)
	for rd != nil && len(r.buf) < maxGather && rd.Ready() {
		next, err := r.d.Next()
		if err != nil {
			break
		}
		r.buf = r.padded(r.buf, next, false)
	}
	return r.deflated(r.buf), nil
}

// padded appends the frames of one event, padded to the relay's block
// size if it pads (the magic, first, does not count).
func (r *relay) padded(dst, b []byte, first bool) []byte {
	start := len(dst)
	dst = append(dst, b...)
	if r.padding > 0 {
		if first {
			start += len(frame.Magic)
		}
		dst = frame.AppendPadTo(dst, start, r.padding)
	}
	return dst
}

// deflated gives b as a record of the anth-deflate stream, when coded.
func (r *relay) deflated(b []byte) []byte {
	if r.z == nil {
		return b
	}
	r.z.out.Reset()
	r.z.w.Write(b)
	r.z.w.Flush()
	return r.z.out.Bytes()
}

// event gives the next event of the API's stream, checked by its bridge,
// and those after it that the upstream has already sent (up to maxGather
// bytes), as one write.
func (r *relay) event() ([]byte, error) {
	err := r.held
	r.held = nil
	if err == nil {
		r.buf = r.buf[:0]
		err = r.oneEvent()
	}
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		fault, code := streamFault(r.ctx, err, r.sc.Offset())
		r.fault = fault
		if r.ended {
			return nil, err
		}
		r.buf = r.api.AppendErrorEvent(r.buf[:0], code, fault.Error())
		return r.buf, err
	}
	for len(r.buf) < maxGather && r.sc.Ready() {
		if err := r.oneEvent(); err != nil {
			r.held = err
			break
		}
	}
	return r.buf, nil
}

// oneEvent appends the next event to r.buf; io.EOF at the end of a whole
// response's stream.
func (r *relay) oneEvent() error {
	name, data, err := r.sc.Next()
	if err == io.EOF && !r.ended {
		return &Error{Offset: r.sc.Offset(), Err: ErrTruncated, Detail: "stream ends before its response does"}
	}
	if err != nil {
		return err
	}
	// The same events fail the same way on both paths.
	ends, err := r.api.CheckEvent(name, data)
	if err != nil {
		return &Error{Offset: r.sc.EventOffset(), Err: ErrMalformed, Detail: err.Error()}
	}
	r.ended = r.ended || ends
	r.buf = sse.AppendEvent(r.buf, name, data)
	return nil
}

// finish gives back what the relay borrowed.
func (r *relay) finish() {
	r.done = true
	if r.d != nil {
		release(r.d)
		r.d = nil
	}
	if r.z != nil {
		putCoder(r.z)
		r.z = nil
	}
	if r.sc != nil {
		r.sc.Reset(nil)
		scanners.Put(r.sc)
		r.sc = nil
	}
}

// Read gives the stream as an io.Reader, for httputil.ReverseProxy to
// copy: each Read returns what one event gives (or what is left of it), so
// the proxy's flush after each write sends each event at once. It ends in
// io.EOF whether the stream was whole or not: a failed one's last event
// says so to the client, and its fault is kept.
func (r *relay) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		b, err := r.next()
		if err != nil {
			return 0, err
		}
		r.pending = b
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// release gives a Decoder back to its bridge, if the bridge keeps them
// for reuse.
func release(d bridge.Decoder) {
	if r, ok := d.(interface{ Release() }); ok {
		r.Release()
	}
}

// streamFault is what ends a stream whose upstream failed with err at off,
// and the code its client is told: ErrShutdown when the server's drain
// closed the upstream (ctx's cause), else the upstream's fault.
func streamFault(ctx context.Context, err error, off int64) (*Error, frame.ErrorCode) {
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), ErrShutdown) {
		return &Error{Offset: -1, Err: ErrShutdown, Detail: "the stream was ended unfinished"}, frame.CodeOverloaded
	}
	return upstreamFault(err, off), frame.CodeAPI
}

// upstreamFault gives an upstream failure the *Error Proxy returns: the
// module's kind when it is one, else the read error itself.
func upstreamFault(err error, off int64) *Error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Offset: e.Offset, Err: e.Err, Detail: "upstream: " + e.Detail}
	}
	for _, kind := range []error{ErrTruncated, ErrMalformed, ErrTooLarge} {
		if errors.Is(err, kind) {
			return &Error{Offset: off, Err: kind, Detail: "upstream: " + err.Error()}
		}
	}
	return &Error{Offset: off, Err: err, Detail: "upstream read failed"}
}
