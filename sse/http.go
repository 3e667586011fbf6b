package sse

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/layer0/anth/frame"
)

// ContentType is the media type of an ANTH stream over HTTP.
const ContentType = "application/x-anthropic-binary"

// Negotiate reports whether the client of r asked for ANTH: its Accept
// header lists ContentType with a non-zero quality.
func Negotiate(r *http.Request) bool {
	for _, h := range r.Header.Values("Accept") {
		for _, part := range strings.Split(h, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || mt != ContentType {
				continue
			}
			if q, ok := params["q"]; ok {
				if v, err := strconv.ParseFloat(q, 64); err != nil || v <= 0 {
					continue
				}
			}
			return true
		}
	}
	return false
}

// flusher writes to an http.ResponseWriter and flushes after every write,
// so each frame or event reaches the client as soon as it exists.
type flusher struct {
	w http.ResponseWriter
	f *http.ResponseController
}

func (f flusher) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil {
		err = f.f.Flush()
	}
	return n, err
}

// Flush lets frame.Writer.Flush reach the client.
func (f flusher) Flush() error { return f.f.Flush() }

// sseSink is the io.Writer under a frame.Writer that serves SSE: it parses
// the frames it is given and writes each as SSE events, flushing.
type sseSink struct {
	out   flusher
	buf   []byte // bytes of a frame not yet whole
	magic bool
	conv  *Decoder
	sse   []byte
}

func (s *sseSink) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	b := s.buf
	if !s.magic {
		n, err := frame.ParseMagic(b)
		if errors.Is(err, frame.ErrTruncated) {
			return len(p), nil // the rest of the magic comes next
		}
		if err != nil {
			return 0, err
		}
		b, s.magic = b[n:], true
		s.conv.off += int64(n)
	}
	s.sse = s.sse[:0]
	for len(b) > 0 {
		f, n, err := frame.Parse(b)
		if err != nil {
			break // the rest comes with the next Write
		}
		if s.sse, err = s.conv.frame(s.sse, f); err != nil {
			return 0, err
		}
		b = b[n:]
		s.conv.off += int64(n)
	}
	s.buf = append(s.buf[:0], b...)
	if len(s.sse) > 0 {
		if _, err := s.out.Write(s.sse); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (s *sseSink) Flush() error { return s.out.Flush() }

// NewResponseWriter returns a frame.Writer for a handler's response: ANTH
// if the client of r negotiated it (see Negotiate), else the same stream as
// Anthropic SSE (text/event-stream), converted frame by frame. It sets
// Content-Type and flushes after every frame or event. opts serve the SSE
// conversion (the model and message id of the message_start it writes).
func NewResponseWriter(w http.ResponseWriter, r *http.Request, opts DecoderOptions) *frame.Writer {
	fl := flusher{w: w, f: http.NewResponseController(w)}
	if Negotiate(r) {
		w.Header().Set("Content-Type", ContentType)
		return frame.NewWriter(fl)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	return frame.NewWriter(&sseSink{out: fl, conv: newConverter(opts)})
}

// Proxy streams upstream, an Anthropic SSE response body, to the client of
// r: as ANTH if it negotiated it, else as SSE, event by event, flushing
// after each.
func Proxy(w http.ResponseWriter, r *http.Request, upstream io.Reader, opts EncoderOptions) error {
	fl := flusher{w: w, f: http.NewResponseController(w)}
	if !Negotiate(r) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		sc := newScanner(upstream, opts.MaxEvent)
		for {
			name, data, err := sc.next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			ev := appendEventHead(nil, string(name))
			ev = append(append(ev, data...), "\n\n"...)
			if _, err := fl.Write(ev); err != nil {
				return err
			}
		}
	}
	w.Header().Set("Content-Type", ContentType)
	e := NewEncoder(upstream, opts)
	for {
		b, err := e.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := fl.Write(b); err != nil {
			return err
		}
	}
}

// NewFrameReader reads a response body of either kind as ANTH frames: an
// ANTH body directly, an SSE body through an Encoder.
func NewFrameReader(resp *http.Response) *frame.Reader {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == ContentType {
		return frame.NewReader(resp.Body)
	}
	return frame.NewReader(NewEncoder(resp.Body, EncoderOptions{}))
}
