package ssebridge

import (
	"io"

	"github.com/layer0/anth/frame"
)

// ToSSE is a bridge's conversion of frames to its API's events.
type ToSSE interface {
	// Frame appends the events frame f completes, if any. An error's
	// offset is set by the Encoder's Fault.
	Frame(b []byte, f frame.Frame) ([]byte, error)
}

// Encoder takes an ANTH response in any pieces and writes the events of
// every frame they complete, in one Write to the underlying writer a
// Write. It holds one frame (the Reader's) and the events of one Write.
// Its zero value is not usable: a bridge's Encoder embeds one and calls
// Init.
type Encoder struct {
	w      io.Writer
	fr     *frame.Reader // push: Write feeds it
	conv   ToSSE
	fault  Fault
	out    []byte
	frame  []byte // WriteFrame's encoding
	err    error
	begun  bool // bytes have been written
	closed bool
}

// Init makes e write to w, converting with conv. Fault is given a
// conversion's error and the offset of the frame's first byte in the ANTH
// stream.
func (e *Encoder) Init(w io.Writer, conv ToSSE, fault Fault) {
	*e = Encoder{w: w, fr: frame.NewPushReader(frame.ReaderOptions{}), conv: conv, fault: fault}
}

// Reset makes e write a new stream to w, keeping its buffers; the bridge
// resets its conversion.
func (e *Encoder) Reset(w io.Writer) {
	e.fr.Reset(nil)
	e.w, e.out, e.err, e.begun, e.closed = w, e.out[:0], nil, false, false
}

// Write takes ANTH bytes, from the magic on, and writes the events of
// every frame they complete. An error is sticky.
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

// WriteFrame writes the events of f, a frame as a response Reader returns
// it (see frame.Frame.AppendValue).
func (e *Encoder) WriteFrame(f frame.Frame) error {
	e.frame = e.frame[:0]
	if !e.begun {
		e.frame = frame.AppendMagic(e.frame)
	}
	e.frame = f.AppendValue(e.frame)
	_, err := e.Write(e.frame)
	return err
}

// drain writes the events of the frames the Reader has whole.
func (e *Encoder) drain() error {
	e.out = e.out[:0]
	var err error
	for {
		var f frame.Frame
		if f, err = e.fr.Next(); err != nil {
			break
		}
		if e.out, err = e.conv.Frame(e.out, f); err != nil {
			// Where the frame the conversion refuses starts, as the
			// JavaScript twins say it.
			err = e.fault(err, e.fr.Offset()-int64(f.Size()))
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

// Close ends the stream: it writes nothing more, and reports a stream
// that ended before its DONE or ERROR (the Reader's error wrapping
// frame.ErrTruncated). It does not close the underlying writer.
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
// http.ResponseWriter's http.Flusher, a bufio.Writer).
func (e *Encoder) Flush() error {
	switch f := e.w.(type) {
	case interface{ Flush() error }:
		return f.Flush()
	case interface{ Flush() }:
		f.Flush()
	}
	return nil
}
