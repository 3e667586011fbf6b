package anthhttp

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
)

// ContentType is the media type of an ANTH stream over HTTP.
const ContentType = "application/x-anthropic-binary"

// flusher writes to an http.ResponseWriter, through an anth-deflate Writer
// when z is set, and flushes after every write (ending a record first), so
// each frame or event reaches the client as soon as it exists.
//
// It writes nothing once ctx, the request's context, is done: net/http ends
// it when the client leaves and when the handler returns, and a
// ResponseWriter must not be used after that. So a handler's next write
// after a disconnect fails at once, and a coalescing timer that fires after
// a handler returned without Flush (or panicked) gets an error instead of
// crashing the process in net/http's finished response.
type flusher struct {
	w   http.ResponseWriter
	z   *deflate.Writer
	f   *http.ResponseController
	ctx context.Context
}

func newFlusher(w http.ResponseWriter, r *http.Request, z *deflate.Writer) flusher {
	return flusher{w: w, z: z, f: http.NewResponseController(w), ctx: r.Context()}
}

// ended is the error of a write after the request's context is done; it
// matches context.Canceled (or the context's cause) with errors.Is.
func (f flusher) ended() error {
	return &Error{Offset: -1, Err: context.Cause(f.ctx), Detail: "the response is over: the client left or the handler returned"}
}

// after turns a panic of the ResponseWriter into err when the request is
// over: between the check in Write and the write itself the handler may
// return (a coalescing timer writes from its own goroutine), and net/http's
// finished response then panics. A panic while the request is live is not
// ours to hide.
func (f flusher) after(err *error) {
	if v := recover(); v != nil {
		if !f.over() {
			panic(v)
		}
		*err = f.ended()
	}
}

// over reports whether the request is over: its context is done, and not
// by a server's drain (ErrShutdown), under which the handler still runs.
func (f flusher) over() bool {
	return f.ctx.Err() != nil && !errors.Is(context.Cause(f.ctx), ErrShutdown)
}

func (f flusher) Write(p []byte) (n int, err error) {
	if f.over() {
		return 0, f.ended()
	}
	defer f.after(&err)
	if f.z == nil {
		n, err = f.w.Write(p)
		if err == nil {
			err = f.f.Flush()
		}
		return n, err
	}
	n, err = f.z.Write(p)
	if err == nil {
		err = f.flush()
	}
	return n, err
}

// Flush lets frame.Writer.Flush reach the client.
func (f flusher) Flush() (err error) {
	if f.over() {
		return f.ended()
	}
	defer f.after(&err)
	return f.flush()
}

func (f flusher) flush() error {
	if f.z != nil {
		if err := f.z.Flush(); err != nil {
			return err
		}
	}
	return f.f.Flush()
}

// NewResponseWriter returns a frame.Writer for a handler's response of
// api's: ANTH if the client of r negotiated it (see Negotiate), compressed
// with anth-deflate if its Accept-Encoding names that too and opts ask for
// no padding (SPEC.md §11; deflated EVENT frames are then written raw,
// §11.2), else api's event stream, converted frame by frame (api's
// Encoder). opts are the frame.Writer's: Padding pads an ANTH response
// (and only that: a padded response is not compressed, since compressed
// sizes would follow the text again, which is what padding hides);
// Coalesce hands frames to the client at most once per interval, and then
// the handler must call the Writer's Flush before it returns: frames still
// waiting then are never sent (the timer's write fails, as every write
// after the request is over does). It sets the headers of
// setStreamHeaders' list and flushes after every frame or event, or, with
// opts.Coalesce, after every batch. Once r's context is done — the client
// left, or the handler returned — every write fails with an *Error
// matching context.Canceled, so a handler stops at its next frame rather
// than writing into a closed connection.
func NewResponseWriter(w http.ResponseWriter, r *http.Request, api bridge.API, opts frame.WriterOptions) *frame.Writer {
	wire := negotiate(r, opts.Padding != 0)
	setStreamHeaders(w.Header(), r.Method, wire)
	switch wire {
	case wireCoded, wireCodedType:
		return frame.NewWriter(api.RawEvents(newFlusher(w, r, deflate.NewWriter(w, api.Dictionary()))), opts)
	case wireANTH:
		return frame.NewWriter(newFlusher(w, r, nil), opts)
	}
	opts.Padding = 0 // the event stream's JSON is padded by the API, not by frames
	return frame.NewWriter(api.NewEncoder(newFlusher(w, r, nil), false, nil), opts)
}

// ProxyOptions configure Proxy. The zero value is ready to use.
type ProxyOptions struct {
	// Padding, if positive, pads the frames of each event to a multiple of
	// Padding bytes with a PAD frame (frame.AppendPadTo), as the API pads
	// its JSON with spaces; at most frame.MaxPadBlock. A padded response
	// is not compressed.
	Padding int
}

// Proxy streams upstream, the body of a streaming response of api's, to
// the client of r: as ANTH if it negotiated it, compressed with
// anth-deflate if its Accept-Encoding names that too and opts ask for no
// padding (SPEC.md §11), else as api's event stream, event by event,
// flushing after each. Proxy owns upstream and closes it, as soon as the
// client goes away too (r's context ends), so a stalled upstream never
// holds it.
//
// When upstream ends before its response does, breaks or cannot be read,
// the client gets an ERROR frame, or api's error event, of code
// frame.CodeAPI (api_error) saying so before the stream ends, and Proxy
// returns an *Error: of kind ErrTruncated, ErrMalformed or ErrTooLarge, or
// wrapping the upstream's read error, or the context's error if the client
// left. What the client is told of a read error is that the upstream
// reset the stream, never the error's text, which may name internal
// addresses. A server draining with ErrShutdown as its base context's cause
// gets an ERROR frame, or error event, of overloaded_error instead, and an
// *Error of kind ErrShutdown. A response that ended is never added to.
func Proxy(w http.ResponseWriter, r *http.Request, upstream io.ReadCloser, api bridge.API, opts ProxyOptions) error {
	defer upstream.Close()
	stop := context.AfterFunc(r.Context(), func() { upstream.Close() })
	defer stop()
	if err := frame.CheckPadBlock(opts.Padding); err != nil {
		return err
	}
	wire := negotiate(r, opts.Padding != 0)
	setStreamHeaders(w.Header(), r.Method, wire)
	rl := newRelay(r.Context(), upstream, api, wire, opts.Padding, nil)
	out := newFlusher(w, r, nil)
	var err error
	for {
		b, nerr := rl.next()
		if nerr != nil {
			break
		}
		if _, werr := out.Write(b); werr != nil {
			rl.finish()
			err = &Error{Offset: -1, Err: werr, Detail: "writing to the client"}
			break
		}
	}
	if rl.fault != nil {
		err = rl.fault
	}
	if cerr := r.Context().Err(); err != nil && cerr != nil && !errors.Is(err, ErrShutdown) {
		return &Error{Offset: -1, Err: cerr, Detail: "the client left"}
	}
	return err
}
