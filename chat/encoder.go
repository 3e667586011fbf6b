package chat

import (
	"io"
	"time"

	"github.com/layer0/anth/frame"
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
	w      io.Writer
	opts   EncoderOptions
	fr     *frame.Reader // push: Write feeds it
	core   toSSE
	out    []byte
	frame  []byte // WriteFrame's encoding
	err    error
	begun  bool // bytes have been written
	closed bool
}

// NewEncoder returns an Encoder that writes SSE to w.
func NewEncoder(w io.Writer, opts EncoderOptions) *Encoder {
	e := &Encoder{w: w, opts: opts, fr: frame.NewPushReader(frame.ReaderOptions{})}
	e.core = toSSE{opts: opts, events: EventReader{MaxEvent: opts.MaxEvent, RawOnly: opts.Coded}, once: -1}
	return e
}

// Reset makes e write a new stream to w, keeping its buffers.
func (e *Encoder) Reset(w io.Writer) {
	e.fr.Reset(nil)
	ev := e.core.events
	ev.Reset()
	c := &e.core
	c.text.Reset()
	e.core = toSSE{opts: e.opts, events: ev, text: c.text, rd: c.rd, ids: c.ids[:0], lp: c.lp[:0], usageEv: c.usageEv[:0], buf: c.buf[:0], js: c.js[:0], blocks: c.blocks[:0], tools: c.tools[:0], once: -1}
	e.w, e.out, e.err, e.begun, e.closed = w, e.out[:0], nil, false, false
}

// Write takes ANTH bytes, from the magic on, and writes the SSE of every
// frame they complete. An error is sticky: malformed ANTH is an *frame.Error
// or *Error with the offset in the ANTH stream.
func (e *Encoder) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	e.begun = true
	e.fr.Write(p)
	if err := e.drain(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteFrame writes the SSE of f, a frame as a response Reader returns it
// (see frame.Frame.AppendValue).
func (e *Encoder) WriteFrame(f frame.Frame) error {
	e.frame = e.frame[:0]
	if !e.begun {
		e.frame = frame.AppendMagic(e.frame)
	}
	e.frame = f.AppendValue(e.frame)
	_, err := e.Write(e.frame)
	return err
}

// drain writes the SSE of the frames the Reader has whole. It is each
// bridge's own loop, as the Decoder's next is: behind an interface to the
// conversion of one frame it cost Messages ANTH → SSE 5 % (BenchmarkSSEBridge,
// 8 paired runs).
func (e *Encoder) drain() error {
	e.out = e.out[:0]
	var err error
	for {
		var f frame.Frame
		if f, err = e.fr.Next(); err != nil {
			break
		}
		if e.out, err = e.core.frame(e.out, f); err != nil {
			if se, ok := err.(*Error); ok {
				se.Offset = e.fr.Offset() - int64(f.Size()) // where the frame starts
			}
			break
		}
	}
	if err == frame.ErrNeedMore || err == io.EOF {
		err = nil
	}
	if len(e.out) > 0 {
		if _, werr := e.w.Write(e.out); werr != nil && err == nil {
			err = werr
		}
	}
	e.err = err
	return err
}

// Close ends the stream. It writes nothing more; it reports a stream that
// ended before its DONE or ERROR as the frame Reader's *frame.Error, which
// matches ErrTruncated, at the offset where the ANTH ended. It does not
// close the underlying writer.
func (e *Encoder) Close() error {
	if e.closed || e.err != nil {
		return e.err
	}
	e.closed = true
	e.fr.CloseWrite()
	if err := e.drain(); err != nil {
		return err
	}
	if _, err := e.fr.Next(); err != io.EOF {
		e.err = err
	}
	return e.err
}

// Flush flushes the underlying writer, if it has a Flush method (an
// http.ResponseWriter's http.Flusher, a bufio.Writer), so that
// frame.Writer.Flush on an Encoder reaches the client.
func (e *Encoder) Flush() error {
	switch f := e.w.(type) {
	case interface{ Flush() error }:
		return f.Flush()
	case interface{ Flush() }:
		f.Flush()
	}
	return nil
}
