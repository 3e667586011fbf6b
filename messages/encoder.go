package messages

import (
	"io"

	"github.com/layer0/anth/frame"
)

// EncoderOptions configure an Encoder. The zero value is ready to use.
type EncoderOptions struct {
	// MaxEvent bounds the data of an EVENT joined from its frames and
	// inflated; 0 means DefaultMaxEvent.
	MaxEvent int
	// MaxOpenBlocks bounds the content blocks open at once; 0 means
	// DefaultMaxOpenBlocks.
	MaxOpenBlocks int
	// Model and MessageID name the message in the message_start an Encoder
	// writes for a stream that has none (ANTH from a server that never saw
	// SSE). Defaults: "unknown" and "msg_anth".
	Model, MessageID string
	// Coded says the ANTH stream arrived in anth-deflate, where EVENT data
	// travels raw (SPEC.md §11.2): a deflated EVENT is then ErrMalformed,
	// so the coding's ratio and an EVENT's never multiply (13 KB of
	// anth-deflate whose EVENTs inflated again made 1,000 MiB of SSE).
	// anthclient.Transport sets it for an anth-deflate response.
	Coded bool
	// Detokenize, if set, spells token IDs for token frames (TOKEN,
	// TOKEN32, SHORT_TOKEN, SHORT_TOKEN24), appending their bytes (any
	// UTF-8 split is reassembled) to dst. Without it token frames are an
	// error: SSE carries text.
	Detokenize func(dst []byte, ids []uint32) []byte
}

// Encoder writes an ANTH response as the Anthropic Messages API's
// Server-Sent Events, the stream the official SDKs read (SPEC.md §7a).
// Write takes ANTH bytes in any pieces (an Encoder is an io.Writer, so
// frame.NewWriter(messages.NewEncoder(w, opts), frame.WriterOptions{}) serves SSE to a client that
// wants it); every event ends with a blank line, text and thinking reach
// the client as whole UTF-8 characters, and nothing a frame carries can
// break out of its JSON string or data line. A stream with no message
// events of its own gets a message_start, its blocks started and stopped,
// and a message_delta with the usage and stop reason of its frames.
//
// Each Write hands the events its frames complete to the underlying writer
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
	e.core = toSSE{opts: opts, events: EventReader{MaxEvent: opts.MaxEvent, RawOnly: opts.Coded}}
	return e
}

// Reset makes e write a new stream to w, keeping its buffers.
func (e *Encoder) Reset(w io.Writer) {
	e.fr.Reset(nil)
	ev := e.core.events
	ev.Reset()
	e.core.text.Reset()
	e.core = toSSE{opts: e.opts, events: ev, text: e.core.text, ids: e.core.ids[:0], buf: e.core.buf[:0], js: e.core.js[:0]}
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
				// Where the frame the mapping refuses starts, as chat's
				// Encoder and the JavaScript twins say it.
				se.Offset = e.fr.Offset() - int64(f.Size())
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
