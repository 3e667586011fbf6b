package chat

import (
	"io"
	"time"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/ssebridge"
)

// EncoderOptions configure an Encoder. The zero value is ready to use.
type EncoderOptions struct {
	// MaxEvent bounds the data of an EVENT joined from its frames and
	// inflated; 0 means sse.DefaultMaxEvent.
	MaxEvent int
	// Coded says the ANTH stream arrived in anth-deflate, where EVENT data
	// travels raw (SPEC.md §11.2): a deflated EVENT is then ErrMalformed,
	// so the coding's ratio and an EVENT's never multiply.
	Coded bool
	// ID, Model and Created name the chunks an Encoder writes for a stream
	// that has none of its own (ANTH from a server that never saw SSE,
	// SPEC.md §7b.5). Defaults: "chatcmpl-anth", "unknown" and the time
	// of the first chunk, in Unix seconds.
	ID, Model string
	Created   int64
}

func (o *EncoderOptions) id() string {
	if o.ID == "" {
		return "chatcmpl-anth"
	}
	return o.ID
}

func (o *EncoderOptions) model() string {
	if o.Model == "" {
		return "unknown"
	}
	return o.Model
}

func (o *EncoderOptions) created() int64 {
	if o.Created == 0 {
		return time.Now().Unix()
	}
	return o.Created
}

// Encoder writes an ANTH response as Chat Completions chunks, the
// Server-Sent Events the official SDKs read (SPEC.md §7b). Write takes ANTH
// bytes in any pieces (an Encoder is an io.Writer, so
// frame.NewWriter(chat.NewEncoder(w, opts), frame.WriterOptions{}) serves
// SSE to a client that wants it); every chunk is one data: line and a blank
// line, text reaches the client as whole UTF-8 characters, and nothing a
// frame carries can break out of its JSON string. A stream with no chunks
// of its own gets chunks made from its frames, a finish chunk, a usage
// chunk and data: [DONE].
//
// Each Write hands the chunks its frames complete to the underlying writer
// in one Write. Close reports a response that ended early. An Encoder is
// not safe for concurrent use.
type Encoder struct {
	opts EncoderOptions
	core toSSE
	loop ssebridge.Encoder
}

// NewEncoder returns an Encoder that writes SSE to w.
func NewEncoder(w io.Writer, opts EncoderOptions) *Encoder {
	e := &Encoder{opts: opts}
	e.core = toSSE{opts: opts, events: EventReader{MaxEvent: opts.MaxEvent, RawOnly: opts.Coded}, once: -1}
	e.loop.Init(w, &e.core, encodeFault)
	return e
}

// Reset makes e write a new stream to w, keeping its buffers.
func (e *Encoder) Reset(w io.Writer) {
	ev := e.core.events
	ev.Reset()
	c := &e.core
	e.core = toSSE{opts: e.opts, events: ev, rd: c.rd, ids: c.ids[:0], lp: c.lp[:0], usageEv: c.usageEv[:0], buf: c.buf[:0], js: c.js[:0], blocks: c.blocks[:0], tools: c.tools[:0], once: -1}
	e.loop.Reset(w)
}

// Write takes ANTH bytes, from the magic on, and writes the SSE of every
// frame they complete. An error is sticky: malformed ANTH is an *frame.Error
// or *Error with the offset in the ANTH stream.
func (e *Encoder) Write(p []byte) (int, error) { return e.loop.Write(p) }

// WriteFrame writes the SSE of f, a frame as a response Reader returns it
// (see frame.Frame.AppendValue).
func (e *Encoder) WriteFrame(f frame.Frame) error { return e.loop.WriteFrame(f) }

// Close ends the stream. It writes nothing more; it reports a stream that
// ended before its DONE or ERROR as the frame Reader's *frame.Error, which
// matches ErrTruncated, at the offset where the ANTH ended. It does not
// close the underlying writer.
func (e *Encoder) Close() error { return e.loop.Close() }

// Flush flushes the underlying writer, if it has a Flush method (an
// http.ResponseWriter's http.Flusher, a bufio.Writer), so that
// frame.Writer.Flush on an Encoder reaches the client.
func (e *Encoder) Flush() error { return e.loop.Flush() }
