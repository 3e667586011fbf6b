package anthhttp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/sse"
)

const acceptANTH = ContentType + ", text/event-stream;q=0.9, application/json;q=0.8"

// fetch POSTs to srv accepting accept and returns the response and its body.
func fetch(t *testing.T, srv *httptest.Server, accept string) (*http.Response, []byte) {
	t.Helper()
	return fetchCoded(t, srv, accept, "")
}

func TestNegotiate(t *testing.T) {
	for accept, want := range map[string]bool{
		"":                                  false,
		"*/*":                               false,
		"text/event-stream":                 false,
		ContentType:                         true,
		acceptANTH:                          true,
		"text/event-stream, " + ContentType: true,
		ContentType + ";q=0":                false,
		ContentType + ";q=0.5, */*;q=0.1":   true,
		ContentType + ";q=0.5, text/event-stream":            false,
		ContentType + ";q=bad":                               false,
		ContentType + ";q=1.5":                               false,
		ContentType + " ; Q=0.5 ":                            true,
		ContentType + ";q=1":                                 true,
		ContentType + ";q=1.0, text/event-stream":            true,
		ContentType + ";q=1.001":                             false,
		ContentType + ";q=-0":                                false,
		ContentType + ";q=0.001":                             true,
		"text/event-stream;q=0.5, " + ContentType + ";q=0.5": true,
		"text/event-stream;q=0.6, " + ContentType + ";q=0.5": false,
	} {
		r := httptest.NewRequest("POST", "/v1/messages", nil)
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		if got := Negotiate(r); got != want {
			t.Errorf("Accept %q: %v, want %v", accept, got, want)
		}
	}
}

// readFrames reads a response with NewFrameReader, copying the frames.
func readFrames(resp *http.Response) ([]frame.Frame, error) {
	fr, err := anthclient.NewFrameReader(resp, messages.API{})
	if err != nil {
		return nil, err
	}
	var fs []frame.Frame
	for f, err := range fr.All() {
		if err != nil {
			return fs, err
		}
		fs = append(fs, frame.Frame{Type: f.Type, Payload: append([]byte{}, f.Payload...)})
	}
	return fs, nil
}

// TestStreamHeaders: both kinds of negotiated response say what they are
// and that no one should transform or buffer them; a POST's says nothing
// of caching (a cache does not store it: RFC 9111 §3), a GET's that it is
// not to be stored and depends on Accept and Accept-Encoding. Before, every
// stream carried all four, 93 bytes (issue 26).
func TestStreamHeaders(t *testing.T) {
	handlers := map[string]http.HandlerFunc{
		"NewResponseWriter": func(w http.ResponseWriter, r *http.Request) {
			fw := NewResponseWriter(w, r, messages.API{}, frame.WriterOptions{})
			fw.WriteText(0, []byte("x"))
			fw.WriteDone(frame.StopEndTurn, "")
		},
		"Proxy": func(w http.ResponseWriter, r *http.Request) {
			Proxy(w, r, io.NopCloser(bytes.NewReader(testdata.SSE(t)["layer0-basic.sse"])), messages.API{}, ProxyOptions{})
		},
	}
	for name, h := range handlers {
		srv := httptest.NewServer(h)
		for accept, ct := range map[string]string{acceptANTH: ContentType, "text/event-stream": "text/event-stream; charset=utf-8"} {
			for method, headers := range map[string]map[string]string{
				"POST": {"Content-Type": ct, "Vary": "", "Cache-Control": "no-transform", "X-Accel-Buffering": "no"},
				"GET":  {"Content-Type": ct, "Vary": "Accept, Accept-Encoding", "Cache-Control": "no-store, no-transform", "X-Accel-Buffering": "no"},
			} {
				req, _ := http.NewRequest(method, srv.URL, nil)
				req.Header.Set("Accept", accept)
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				for k, want := range headers {
					if got := resp.Header.Get(k); got != want {
						t.Errorf("%s, %s, Accept %q: %s %q, want %q", name, method, accept, k, got, want)
					}
				}
			}
		}
		srv.Close()
	}
}

// TestResponseWriter serves one handler's frames to both kinds of client
// over real HTTP on 127.0.0.1, and reads both back with NewFrameReader.
func TestResponseWriter(t *testing.T) {
	text := "Streaming 文本 over HTTP"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fw := NewResponseWriter(w, r, messages.API{Encoder: messages.EncoderOptions{Model: "test-model"}}, frame.WriterOptions{})
		for _, piece := range []string{"Streaming ", "文", "本 over", " HTTP"} {
			if err := fw.WriteText(0, []byte(piece)); err != nil {
				t.Error(err)
				return
			}
		}
		_ = fw.WriteUsage(frame.Usage{InputTokens: 3, OutputTokens: 4})
		_ = fw.WriteDone(frame.StopEndTurn, "")
		_ = fw.Flush()
	}))
	defer srv.Close()
	for _, accept := range []string{acceptANTH, "text/event-stream"} {
		resp, body := fetch(t, srv, accept)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		fs, err := readFrames(resp)
		if err != nil {
			t.Fatalf("%s: %v", accept, err)
		}
		var sb strings.Builder
		var reason frame.StopReason
		var usage frame.Usage
		for _, f := range fs {
			switch f.Type {
			case frame.TypeText:
				_, b, _ := f.Text()
				sb.Write(b)
			case frame.TypeUsage:
				usage, _ = f.Usage()
			case frame.TypeDone:
				reason, _, _ = f.Done()
			}
		}
		if sb.String() != text || reason != frame.StopEndTurn || usage != (frame.Usage{InputTokens: 3, OutputTokens: 4}) {
			t.Fatalf("%s: frames give %q, %v, %+v", accept, sb.String(), reason, usage)
		}
	}
}

// faultyUpstreams are upstream bodies that fail in the ways a network does.
func faultyUpstreams(t *testing.T) map[string]func() io.ReadCloser {
	sse := testdata.SSE(t)["layer0-basic.sse"]
	mid := bytes.Index(sse, []byte("event: content_block_stop"))
	return map[string]func() io.ReadCloser{
		"cut mid-event":            func() io.ReadCloser { return io.NopCloser(bytes.NewReader(sse[:mid+30])) },
		"ends before message_stop": func() io.ReadCloser { return io.NopCloser(bytes.NewReader(sse[:mid])) },
		"connection reset": func() io.ReadCloser {
			return io.NopCloser(io.MultiReader(bytes.NewReader(sse[:mid]), errReader{errors.New("connection reset by peer")}))
		},
		"not SSE JSON": func() io.ReadCloser {
			return io.NopCloser(io.MultiReader(bytes.NewReader(sse[:mid]), strings.NewReader("event: x\ndata: {nope\n\n")))
		},
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestProxyFaults: whatever goes wrong upstream, both kinds of client see
// an error before the stream ends, and Proxy returns a typed error.
func TestProxyFaults(t *testing.T) {
	for name, upstream := range faultyUpstreams(t) {
		var mu sync.Mutex
		var proxyErr error
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			err := Proxy(w, r, upstream(), messages.API{}, ProxyOptions{})
			mu.Lock()
			proxyErr = err
			mu.Unlock()
		}))
		for _, accept := range []string{acceptANTH, "text/event-stream"} {
			resp, body := fetch(t, srv, accept)
			resp.Body = io.NopCloser(bytes.NewReader(body))
			fs, err := readFrames(resp)
			if err != nil {
				t.Fatalf("%s, %s: the client's stream is not a whole response: %v", name, accept, err)
			}
			last := fs[len(fs)-1]
			code, msg, lerr := last.ErrorMessage()
			if lerr != nil || code != frame.CodeAPI || !strings.Contains(string(msg), "upstream") {
				t.Errorf("%s, %s: the stream ends with %v, want an ERROR frame %d naming the upstream", name, accept, last.Type, frame.CodeAPI)
			}
			mu.Lock()
			var e *Error
			if !errors.As(proxyErr, &e) {
				t.Errorf("%s, %s: Proxy returned %v (%T), want an *Error", name, accept, proxyErr, proxyErr)
			}
			mu.Unlock()
		}
		srv.Close()
	}
}

// stalled is an upstream that sends a little and then nothing, until it is
// closed.
type stalled struct {
	head   io.Reader
	closed chan struct{}
	once   sync.Once
}

func (s *stalled) Read(p []byte) (int, error) {
	if n, _ := s.head.Read(p); n > 0 {
		return n, nil
	}
	<-s.closed
	return 0, errors.New("read on a closed body")
}

func (s *stalled) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// TestProxyClientLeaves: when the client goes away, Proxy stops within
// 100 ms whatever the upstream does, closing it, on both paths.
func TestProxyClientLeaves(t *testing.T) {
	sse := testdata.SSE(t)["layer0-basic.sse"]
	for _, accept := range []string{acceptANTH, "text/event-stream"} {
		returned := make(chan time.Time, 1)
		var proxyErr error
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			proxyErr = Proxy(w, r, &stalled{head: bytes.NewReader(sse[:300]), closed: make(chan struct{})}, messages.API{}, ProxyOptions{})
			returned <- time.Now()
		}))
		left := clientLeaves(t, srv, accept)
		select {
		case at := <-returned:
			took := at.Sub(left)
			t.Logf("%s: Proxy returned %v after the client left: %v", accept, took, proxyErr)
			if took > 100*time.Millisecond {
				t.Errorf("%s: Proxy took %v to stop, want at most 100 ms", accept, took)
			}
			wantClientLeft(t, accept+": Proxy", proxyErr)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: Proxy did not stop after the client left", accept)
		}
		srv.Close()
	}
}

// TestProxySSEData: the SSE path writes each line of multi-line data as a
// data line of its own, so the client reads the data upstream sent, and a
// line of it that reads like a field ("event: ...") stays data.
func TestProxySSEData(t *testing.T) {
	upstream := "event: message_start\ndata: {\"type\":\"message_start\",\n" +
		"data: \"message\":\n" +
		"data: {}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := Proxy(w, r, io.NopCloser(strings.NewReader(upstream)), messages.API{}, ProxyOptions{}); err != nil {
			t.Error(err)
		}
	}))
	defer srv.Close()
	_, body := fetch(t, srv, "text/event-stream")
	if d := cmp.Diff(testdata.Events(t, []byte(upstream)), testdata.Events(t, body)); d != "" {
		t.Fatalf("events (-upstream +client):\n%s", d)
	}
}

// scanEvents returns a stream's events as the standard reads them: names
// and data, unparsed.
// TestEventLinesCannotRename: whatever the data, written with
// appendEventLines it reads back as the same name and data; an event with
// no name has no event line.
func TestEventLinesCannotRename(t *testing.T) {
	if got := string(sse.AppendEvent(nil, nil, []byte("x\ny"))); got != "data: x\ndata: y\n\n" {
		t.Errorf("an unnamed event: %q", got)
	}
	for _, data := range []string{"a\nevent: message_stop", "x\n\nevent: y\ndata: z", "\n", "a\nb\n"} {
		got := testdata.Events(t, sse.AppendEvent(nil, []byte("message_start"), []byte(data)))
		if want := [][2]string{{"message_start", data}}; !cmp.Equal(got, want) {
			t.Errorf("%q reads back as %q", data, got)
		}
	}
}

// TestFrameArrival: each frame or event reaches the client while the
// handler is still writing, coded or not; with Coalesce, a frame that
// follows another within the period waits for the handler's Flush.
func TestFrameArrival(t *testing.T) {
	for _, c := range []struct {
		accept, encoding string
		opts             frame.WriterOptions
		early            bool // the second frame arrives before Flush
	}{
		{acceptANTH, "", frame.WriterOptions{}, true},
		{acceptANTH, AcceptEncoding, frame.WriterOptions{}, true},
		{"text/event-stream", "", frame.WriterOptions{}, true},
		{acceptANTH, "", frame.WriterOptions{Coalesce: time.Hour}, false},
		{acceptANTH, AcceptEncoding, frame.WriterOptions{Coalesce: time.Hour}, false},
	} {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fw := NewResponseWriter(w, r, messages.API{}, c.opts)
			fw.WriteText(0, []byte("first"))
			fw.WriteText(0, []byte("second"))
			<-release
			fw.WriteDone(frame.StopEndTurn, "")
			fw.Flush()
		}))
		req, _ := http.NewRequest("POST", srv.URL, nil)
		req.Header.Set("Accept", c.accept)
		req.Header.Set("Accept-Encoding", c.encoding)
		got := make(chan error, 1)
		var body io.Closer
		var mu sync.Mutex
		go func() {
			// The headers too may wait for the handler's flush.
			resp, err := srv.Client().Do(req)
			if err != nil {
				got <- err
				return
			}
			mu.Lock()
			body = resp.Body
			mu.Unlock()
			fr, err := anthclient.NewFrameReader(resp, messages.API{})
			if err != nil {
				got <- err
				return
			}
			for texts := 0; ; {
				f, err := fr.Next()
				if err != nil {
					got <- err
					return
				}
				if f.Type == frame.TypeText {
					if texts++; texts == 2 {
						got <- nil
						return
					}
				}
			}
		}()
		// A frame that should arrive gets long enough on a loaded machine;
		// one that should not, long enough to show up if it would.
		wait := 300 * time.Millisecond
		if c.early {
			wait = 10 * time.Second
		}
		select {
		case err := <-got:
			if err != nil || !c.early {
				t.Errorf("%s, %q, %+v: the second frame arrived before the handler flushed (%v)", c.accept, c.encoding, c.opts, err)
			}
		case <-time.After(wait):
			if c.early {
				t.Errorf("%s, %q, %+v: the second frame did not arrive while the handler waited", c.accept, c.encoding, c.opts)
			}
		}
		close(release)
		if !c.early {
			if err := <-got; err != nil {
				t.Errorf("%s, %q, %+v: after the flush: %v", c.accept, c.encoding, c.opts, err)
			}
		}
		mu.Lock()
		if body != nil {
			body.Close()
		}
		mu.Unlock()
		srv.Close()
	}
}

// clientLeaves makes a request of srv with accept, reads the first bytes
// of its response and goes away, and returns when it left.
func clientLeaves(t *testing.T, srv *httptest.Server, accept string) time.Time {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, nil)
	req.Header.Set("Accept", accept)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAtLeast(resp.Body, make([]byte, 16), 1); err != nil {
		t.Fatal(err)
	}
	left := time.Now()
	cancel()
	resp.Body.Close()
	return left
}

// wantClientLeft checks that err says the client left: context.Canceled,
// in an *Error with no offset.
func wantClientLeft(t *testing.T, what string, err error) {
	t.Helper()
	var e *Error
	if !errors.Is(err, context.Canceled) || !errors.As(err, &e) || e.Offset != -1 {
		t.Errorf("%s: %v, want context.Canceled with no offset", what, err)
	}
}

// tb is what the test helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}
