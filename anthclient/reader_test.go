package anthclient

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

// countFrames reads a response with NewFrameReader to its end, counting
// the frames.
func countFrames(resp *http.Response) (int, error) {
	fr, err := NewFrameReader(resp, messages.API{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, err := range fr.All() {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// TestNewFrameReaderHTTPErrors: a failed response is a *StatusError with
// the API's error, a response of another kind names its type.
func TestNewFrameReaderHTTPErrors(t *testing.T) {
	for _, c := range []struct {
		status       int
		ct, body     string
		typ, message string
	}{
		{500, "application/json", `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`, "api_error", "Internal server error"},
		{529, "application/json", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "overloaded_error", "Overloaded"},
		{404, "text/html", `<html>not here</html>`, "", ""},
	} {
		resp := &http.Response{StatusCode: c.status, Header: http.Header{"Content-Type": {c.ct}}, Body: io.NopCloser(strings.NewReader(c.body))}
		_, err := NewFrameReader(resp, messages.API{})
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != c.status || se.Type != c.typ || se.Message != c.message {
			t.Fatalf("HTTP %d: %v, want a *StatusError with %q, %q", c.status, err, c.typ, c.message)
		}
		if c.typ != "" && (!strings.Contains(err.Error(), c.typ) || !strings.Contains(err.Error(), c.message)) {
			t.Fatalf("HTTP %d: %q does not name the error type and message", c.status, err)
		}
	}
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: io.NopCloser(strings.NewReader("<html>"))}
	if _, err := NewFrameReader(resp, messages.API{}); !errors.Is(err, anthhttp.ErrMediaType) || !strings.Contains(err.Error(), "text/html") {
		t.Fatalf("a 200 of text/html: %v, want ErrMediaType naming the type", err)
	}
}

// TestCutResponses: a response cut short reads as ErrTruncated through
// NewFrameReader, over ANTH and over SSE alike, on a frame or event
// boundary or not.
func TestCutResponses(t *testing.T) {
	sse := testdata.SSE(t)["layer0-basic.sse"]
	anth, err := io.ReadAll(messages.NewDecoder(bytes.NewReader(sse), messages.DecoderOptions{}))
	if err != nil {
		t.Fatalf("SSE to ANTH: %v", err)
	}
	cuts := map[string][]byte{
		"ANTH before DONE, on a boundary": anth[:len(anth)-4],
		"ANTH inside a frame":             anth[:len(anth)-2],
		"SSE before message_stop":         sse[:bytes.LastIndex(sse, []byte("event: message_stop"))],
		"SSE inside an event":             sse[:len(sse)-10],
	}
	for name, body := range cuts {
		ct := anthhttp.ContentType
		if strings.HasPrefix(name, "SSE") {
			ct = "text/event-stream"
		}
		resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(bytes.NewReader(body))}
		if _, err := countFrames(resp); !errors.Is(err, frame.ErrTruncated) {
			t.Errorf("%s: %v, want ErrTruncated", name, err)
		}
	}
}

// TestNewFrameReaderStatus: only a 2xx is a stream; errors of kind
// ErrMediaType have no offset.
func TestNewFrameReaderStatus(t *testing.T) {
	anth := frame.AppendDone(frame.AppendMagic(nil), frame.StopEndTurn, "")
	for status, ok := range map[int]bool{199: false, 200: true, 204: true, 299: true, 300: false, 500: false} {
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {anthhttp.ContentType}}, Body: io.NopCloser(bytes.NewReader(anth))}
		_, err := NewFrameReader(resp, messages.API{})
		var se *StatusError
		if ok != (err == nil) || !ok && (!errors.As(err, &se) || se.StatusCode != status) {
			t.Errorf("HTTP %d: %v", status, err)
		}
	}
	for name, h := range map[string]http.Header{
		"Content-Type":     {"Content-Type": {"application/json"}},
		"Content-Encoding": {"Content-Type": {anthhttp.ContentType}, "Content-Encoding": {"zstd"}},
	} {
		_, err := NewFrameReader(&http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(bytes.NewReader(anth))}, messages.API{})
		var e *anthhttp.Error
		if !errors.Is(err, anthhttp.ErrMediaType) || !errors.As(err, &e) || e.Offset != -1 {
			t.Errorf("another %s: %v, want ErrMediaType with no offset", name, err)
		}
	}
	for _, ce := range []string{"", "identity", " Identity ", "ANTH-DEFLATE"} {
		body := anth
		if strings.EqualFold(strings.TrimSpace(ce), anthhttp.AcceptEncoding) {
			var coded bytes.Buffer
			z := deflate.NewWriter(&coded, messages.API{}.Dictionary())
			z.Write(anth)
			z.Flush()
			body = coded.Bytes()
		}
		resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {anthhttp.ContentType + "; charset=binary"}, "Content-Encoding": {ce}}, Body: io.NopCloser(bytes.NewReader(body))}
		if n, err := countFrames(resp); err != nil || n != 1 {
			t.Errorf("Content-Encoding %q: %v, %d frames", ce, err, n)
		}
	}
}

// TestUnknownEncoding: a body in a coding NewFrameReader does not read is
// refused, not read as ANTH.
func TestUnknownEncoding(t *testing.T) {
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {anthhttp.ContentType}, "Content-Encoding": {"br"}}, Body: io.NopCloser(strings.NewReader("ANTH"))}
	if _, err := NewFrameReader(resp, messages.API{}); !errors.Is(err, anthhttp.ErrMediaType) {
		t.Fatalf("Content-Encoding br: %v, want ErrMediaType", err)
	}
}

// TestNewFrameReaderCodingParam: an anth-deflate body named by the media
// type's coding parameter, with no Content-Encoding (a browser's form,
// SPEC.md §11.1), is inflated as one named by Content-Encoding is; the
// same body named by neither is not ANTH.
func TestNewFrameReaderCodingParam(t *testing.T) {
	anth := frame.AppendText(frame.AppendMagic(nil), 0, []byte("hi"))
	anth = frame.AppendDone(anth, frame.StopEndTurn, "")
	var coded bytes.Buffer
	z := deflate.NewWriter(&coded, messages.API{}.Dictionary())
	z.Write(anth)
	z.Flush()
	for _, c := range []struct {
		ct, ce string
		ok     bool
	}{
		{anthhttp.ContentType + "; " + anthhttp.CodingParam + "=" + deflate.Encoding, "", true},
		{anthhttp.ContentType + ";" + anthhttp.CodingParam + "=ANTH-Deflate", "identity", true},
		{anthhttp.ContentType, deflate.Encoding, true},
		{anthhttp.ContentType, "", false},
		{anthhttp.ContentType + "; " + anthhttp.CodingParam + "=gzip", "", false},
	} {
		resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {c.ct}, "Content-Encoding": {c.ce}}, Body: io.NopCloser(bytes.NewReader(coded.Bytes()))}
		n, err := countFrames(resp)
		if c.ok && (err != nil || n != 2) || !c.ok && !errors.Is(err, frame.ErrBadMagic) {
			t.Errorf("Content-Type %q, Content-Encoding %q: %d frames, %v", c.ct, c.ce, n, err)
		}
	}
}
