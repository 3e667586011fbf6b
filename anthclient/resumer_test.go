package anthclient

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
)

// stubServer answers resume requests with the frames of stream after
// the offset asked for, whole, as a server that keeps them does.
type stubServer struct {
	stream []byte // magic and frames
	reqs   int
}

func (s *stubServer) RoundTrip(req *http.Request) (*http.Response, error) {
	s.reqs++
	n, err := strconv.Atoi(req.Header.Get(anthhttp.ResumeOffsetHeader))
	frames := s.stream[len(frame.Magic):]
	if err != nil || n > len(frames) {
		return &http.Response{StatusCode: 416, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}}, nil
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {anthhttp.ContentType}}, Body: io.NopCloser(bytes.NewReader(append([]byte(frame.Magic), frames[n:]...)))}, nil
}

// FuzzResumer: whatever bytes a resumable response carries and wherever
// its first body is cut, the resumer gives a prefix of the stream, in
// whole frames past the magic, and all of it when the stream is whole;
// it ends (a bounded number of requests) with io.EOF or an error matching
// ErrTruncated.
func FuzzResumer(f *testing.F) {
	whole := frame.AppendMagic(nil)
	whole = frame.AppendText(whole, 0, []byte("Hello"))
	whole = frame.AppendText(whole, 0, []byte(", world"))
	whole = frame.AppendDone(whole, frame.StopReason(1), "")
	f.Add(whole[len(frame.Magic):], uint16(9))
	f.Add(whole[len(frame.Magic):], uint16(0))
	f.Add([]byte{1, 0, 9, 'a'}, uint16(5))
	f.Add([]byte{1, 0xff, 0xff}, uint16(6))
	f.Fuzz(func(t *testing.T, frames []byte, cut uint16) {
		stream := append([]byte(frame.Magic), frames...)
		srv := &stubServer{stream: stream}
		req, _ := http.NewRequest(http.MethodPost, "http://gateway.test/v1/messages", nil)
		resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {anthhttp.ContentType}, anthhttp.ResumeIDHeader: {"AAAAAAAAAAAAAAAAAAAAAA"}}, Request: req,
			Body: io.NopCloser(io.MultiReader(io.LimitReader(bytes.NewReader(stream), int64(cut)), iotest.ErrReader(errors.New("test: connection cut"))))}
		rs := newResumer(req, resp, resp.Body, messages.API{}, srv.RoundTrip, ResumeOptions{Backoff: time.Nanosecond})
		got, err := io.ReadAll(rs)
		if err != nil && !errors.Is(err, anthhttp.ErrTruncated) {
			t.Fatalf("error %v, want io.EOF or ErrTruncated", err)
		}
		if !bytes.HasPrefix(stream, got) {
			t.Fatalf("gave %x, not a prefix of %x", got, stream)
		}
		if srv.reqs > 64 {
			t.Fatalf("%d resume requests", srv.reqs)
		}
		// A well-formed response read whole, however cut.
		if err == nil && bytes.Equal(frames, whole[len(frame.Magic):]) {
			if d := cmp.Diff(whole, got); d != "" {
				t.Fatalf("(-whole +got):\n%s", d)
			}
		}
	})
}

// TestResumerHoldsOneFrame: a resumable body cut inside the longest frame
// there is, whose resumes never finish it, is held as that frame's bytes
// and the read buffer; the partial frame is given only with the error,
// for the frame layer to report at its offset.
func TestResumerHoldsOneFrame(t *testing.T) {
	stream := frame.AppendMagic(nil)
	stream = append(stream, byte(frame.TypeText), 0xff, 0xff)
	stream = append(stream, bytes.Repeat([]byte{'a'}, frame.MaxPayload-1)...) // one byte short
	srv := &stubServer{stream: stream}
	req, _ := http.NewRequest(http.MethodPost, "http://gateway.test/v1/messages", nil)
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {anthhttp.ContentType}, anthhttp.ResumeIDHeader: {"AAAAAAAAAAAAAAAAAAAAAA"}}, Request: req,
		Body: io.NopCloser(bytes.NewReader(stream))}
	rs := newResumer(req, resp, resp.Body, messages.API{}, srv.RoundTrip, ResumeOptions{Backoff: time.Nanosecond})
	got, err := io.ReadAll(rs)
	if !errors.Is(err, anthhttp.ErrTruncated) || !bytes.Equal(got, stream) {
		t.Fatalf("got %d bytes, %v; want the %d of the stream and ErrTruncated", len(got), err, len(stream))
	}
	if c := cap(rs.buf); c > 2*(frame.HeaderSize+frame.MaxPayload) {
		t.Errorf("holds %d bytes for one frame of %d", c, frame.HeaderSize+frame.MaxPayload)
	}
	if srv.reqs != DefaultResumeTries {
		t.Errorf("%d resume requests, want %d: none gave a frame", srv.reqs, DefaultResumeTries)
	}
}

// TestResumerShortTokenFrames: a response of short token frames, which
// have no length field (SPEC.md §2), cut at every offset, resumes whole:
// the resumer finds their boundaries by their type.
func TestResumerShortTokenFrames(t *testing.T) {
	whole := frame.AppendMagic(nil)
	for _, id := range []uint32{42, 0x0A0B, 200018, 7, 65535, 65536} {
		whole = frame.AppendShortToken(whole, id)
	}
	whole = frame.AppendDone(whole, frame.StopEndTurn, "")
	for cut := range len(whole) {
		srv := &stubServer{stream: whole}
		req, _ := http.NewRequest(http.MethodPost, "http://gateway.test/v1/messages", nil)
		resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {anthhttp.ContentType}, anthhttp.ResumeIDHeader: {"AAAAAAAAAAAAAAAAAAAAAA"}}, Request: req,
			Body: io.NopCloser(io.MultiReader(io.LimitReader(bytes.NewReader(whole), int64(cut)), iotest.ErrReader(errors.New("test: connection cut"))))}
		rs := newResumer(req, resp, resp.Body, messages.API{}, srv.RoundTrip, ResumeOptions{Backoff: time.Nanosecond})
		got, err := io.ReadAll(rs)
		if err != nil || !bytes.Equal(got, whole) {
			t.Fatalf("cut at %d: %v, got\n% X\nwant\n% X", cut, err, got, whole)
		}
	}
}
