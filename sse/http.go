package sse

import (
	"bytes"
	"context"
	"encoding/json"
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

// sseContentType is the media type of the Messages API's stream.
const sseContentType = "text/event-stream"

// Negotiate reports whether the client of r asked for ANTH: its Accept
// header lists ContentType with a quality above zero and at least that of
// text/event-stream. Wildcards never select ANTH: a client that has not
// named it may not read it.
func Negotiate(r *http.Request) bool {
	anth, sse := -1.0, -1.0
	for _, h := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(h, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			q := 1.0
			if v, ok := params["q"]; ok {
				if q, err = strconv.ParseFloat(v, 64); err != nil {
					continue
				}
			}
			switch mt {
			case ContentType:
				anth = max(anth, q)
			case sseContentType:
				sse = max(sse, q)
			}
		}
	}
	return anth > 0 && anth >= sse
}

// setStreamHeaders sets the headers of a negotiated stream response:
//   - Content-Type: ContentType, or text/event-stream; charset=utf-8;
//   - Vary: Accept, since the body depends on it: a shared cache must not
//     serve one kind to a client that asked for the other;
//   - Cache-Control: no-cache, no-transform: a stream is not to be stored,
//     and an intermediary that transforms bodies (compressing them, say)
//     holds back what it has not yet transformed;
//   - X-Accel-Buffering: no, which nginx (and proxies that copy it) read
//     as "pass each write on at once" instead of filling their buffers.
func setStreamHeaders(h http.Header, anth bool) {
	if anth {
		h.Set("Content-Type", ContentType)
	} else {
		h.Set("Content-Type", sseContentType+"; charset=utf-8")
	}
	h.Add("Vary", "Accept")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
}

// flusher writes to an http.ResponseWriter and flushes after every write,
// so each frame or event reaches the client as soon as it exists.
type flusher struct {
	w http.ResponseWriter
	f *http.ResponseController
}

func newFlusher(w http.ResponseWriter) flusher {
	return flusher{w: w, f: http.NewResponseController(w)}
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

// NewResponseWriter returns a frame.Writer for a handler's response: ANTH if
// the client of r negotiated it (see Negotiate), else the same frames as
// the Messages API's SSE, converted frame by frame (an Encoder with opts).
// It sets the headers of setStreamHeaders' list and flushes after every
// frame or event.
func NewResponseWriter(w http.ResponseWriter, r *http.Request, opts EncoderOptions) *frame.Writer {
	anth := Negotiate(r)
	setStreamHeaders(w.Header(), anth)
	if anth {
		return frame.NewWriter(newFlusher(w))
	}
	return frame.NewWriter(NewEncoder(newFlusher(w), opts))
}

// Proxy streams upstream, the body of a Messages API streaming response, to
// the client of r: as ANTH if it negotiated it (opts configure the
// Decoder), else as SSE, event by event, flushing after each. Proxy owns
// upstream and closes it, as soon as the client goes away too (r's context
// ends), so a stalled upstream never holds it.
//
// When upstream ends before message_stop (or an error event), breaks or
// cannot be read as SSE, the client gets an ERROR frame, or an error event,
// of code frame.CodeAPI (api_error) saying so before the stream ends, and
// Proxy returns an *Error: of kind ErrTruncated, ErrMalformed or ErrTooLarge,
// or wrapping the upstream's read error, or the context's error if the
// client left. A response that ended is never added to.
func Proxy(w http.ResponseWriter, r *http.Request, upstream io.ReadCloser, opts DecoderOptions) error {
	defer upstream.Close()
	stop := context.AfterFunc(r.Context(), func() { upstream.Close() })
	defer stop()
	anth := Negotiate(r)
	setStreamHeaders(w.Header(), anth)
	var err error
	if anth {
		err = proxyANTH(newFlusher(w), upstream, opts)
	} else {
		err = proxySSE(newFlusher(w), upstream, opts)
	}
	if cerr := r.Context().Err(); err != nil && cerr != nil {
		return &Error{Offset: -1, Err: cerr, Detail: "the client left"}
	}
	return err
}

func proxyANTH(out io.Writer, upstream io.Reader, opts DecoderOptions) error {
	d := NewDecoder(upstream, opts)
	wrote := false
	for {
		b, err := d.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			fault := upstreamFault(err, d.sc.off)
			if !d.core.ended {
				var msg []byte
				if !wrote {
					msg = frame.AppendMagic(msg)
				}
				out.Write(frame.AppendError(msg, frame.CodeAPI, fault.Error()))
			}
			return fault
		}
		wrote = true
		if _, err := out.Write(b); err != nil {
			return &Error{Offset: d.sc.off, Err: err, Detail: "writing to the client"}
		}
	}
}

func proxySSE(out io.Writer, upstream io.Reader, opts DecoderOptions) error {
	sc := newScanner(upstream, opts.MaxEvent)
	ended := false
	var ev []byte
	for {
		name, data, err := sc.next()
		if err == io.EOF && !ended {
			err = &Error{Offset: sc.off, Err: ErrTruncated, Detail: "stream ends before message_stop"}
		}
		if err == io.EOF {
			return nil
		}
		if err == nil && !json.Valid(data) {
			// The same events fail the same way on both paths.
			err = &Error{Offset: sc.at, Err: ErrMalformed, Detail: "event data is not JSON"}
		}
		if err != nil {
			fault := upstreamFault(err, sc.off)
			if !ended {
				out.Write(appendEvent(nil, []byte("error"), appendErrorJSON(nil, frame.CodeAPI, []byte(fault.Error()))))
			}
			return fault
		}
		ended = ended || string(name) == "message_stop" || string(name) == "error"
		ev = appendEventLines(ev[:0], name, data)
		if _, err := out.Write(ev); err != nil {
			return &Error{Offset: sc.off, Err: err, Detail: "writing to the client"}
		}
	}
}

// appendEventLines appends an event whose data may hold line breaks: each
// line of it is a data line of its own, as the standard reads them back.
func appendEventLines(b, name, data []byte) []byte {
	if len(name) > 0 {
		b = append(b, "event: "...)
		b = append(b, name...)
		b = append(b, '\n')
	}
	for {
		line, rest, more := bytes.Cut(data, []byte("\n"))
		b = append(b, "data: "...)
		b = append(b, line...)
		b = append(b, '\n')
		if !more {
			return append(b, '\n')
		}
		data = rest
	}
}

// upstreamFault gives an upstream failure the *Error Proxy returns.
func upstreamFault(err error, off int64) *Error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Offset: e.Offset, Err: e.Err, Detail: "upstream: " + e.Detail}
	}
	var fe *frame.Error
	if errors.As(err, &fe) {
		return &Error{Offset: off, Err: fe.Err, Detail: "upstream: " + fe.Error()}
	}
	return &Error{Offset: off, Err: err, Detail: "upstream read failed"}
}

// NewFrameReader reads a streaming Messages API response of either kind as
// ANTH frames: an ANTH body directly, an SSE body through a Decoder, so the
// client gets the same frames either way (SPEC.md §7a), and a response cut
// short reads as ErrTruncated either way.
//
// A response that is not a success gives a *StatusError, with the API's
// error type and message when its body is the API's JSON error; a success
// whose Content-Type is neither gives an *Error of kind ErrMediaType. On
// error NewFrameReader closes the body; otherwise the caller does.
func NewFrameReader(resp *http.Response) (*frame.Reader, error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, statusError(resp)
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case ContentType:
		return frame.NewReader(resp.Body), nil
	case sseContentType:
		return frame.NewReader(NewDecoder(resp.Body, DecoderOptions{})), nil
	}
	resp.Body.Close()
	return nil, &Error{Offset: -1, Err: ErrMediaType, Detail: "Content-Type " + strconv.Quote(ct) + ", want " + ContentType + " or " + sseContentType}
}

// statusError reads a failed response's body, at most 64 KiB of it.
func statusError(resp *http.Response) *StatusError {
	e := &StatusError{StatusCode: resp.StatusCode}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var api struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &api) == nil && api.Type == "error" {
		e.Type, e.Message = api.Error.Type, api.Error.Message
	}
	return e
}
