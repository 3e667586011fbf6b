package anthhttp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/sse"
)

// TestGatewayFlushesOnItsGoroutine: a bridged stream's headers reach
// the client before the upstream's first event, and every flush of the
// stream is made by the goroutine serving it. httputil.ReverseProxy
// flushes a stream's headers from a timer it arms to fire at once
// (time.AfterFunc(-1)), a goroutine and a wake of the network poller a
// stream, which cost a short stream more CPU than the bridge's own work
// (BenchmarkGatewayStream, issue 26); the Gateway flushes them itself.
func TestGatewayFlushesOnItsGoroutine(t *testing.T) {
	body := testdata.SSE(t)["layer0-basic.sse"]
	up, _ := url.Parse("http://upstream.test")
	var gate chan struct{}
	tr := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {sse.MediaType}},
			Body: &gatedBody{gate: gate, r: &testdata.EventReader{Rest: body}}, Request: r}, nil
	})
	gw := NewGateway(messages.API{}, GatewayOptions{Upstream: up, Transport: tr})
	for _, c := range gatewayCases {
		gate = make(chan struct{})
		req := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[]}`))
		req.Header.Set("Accept", c.accept)
		if c.encoding != "" {
			req.Header.Set("Accept-Encoding", c.encoding)
		}
		w := &flushRecorder{h: http.Header{}, first: make(chan struct{})}
		done := make(chan struct{})
		go func() {
			defer close(done)
			gw.ServeHTTP(w, req)
		}()
		select {
		case <-w.first:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no flush before the upstream's first event", c.name)
		}
		close(gate)
		<-done
		w.mu.Lock()
		if w.elsewhere > 0 || w.flushes < 2 || !w.headerFlush {
			t.Errorf("%s: %d flushes, %d of them not by the serving goroutine; the headers flushed before the first event: %v",
				c.name, w.flushes, w.elsewhere, w.headerFlush)
		}
		w.mu.Unlock()
	}
}

// gatedBody reads r once gate is closed.
type gatedBody struct {
	gate chan struct{}
	r    io.Reader
}

func (b *gatedBody) Read(p []byte) (int, error) {
	<-b.gate
	return b.r.Read(p)
}

func (b *gatedBody) Close() error { return nil }

// flushRecorder is a ResponseWriter that counts its flushes, and those
// made by a goroutine not running Gateway.ServeHTTP.
type flushRecorder struct {
	h     http.Header
	first chan struct{} // closed at the first flush

	mu          sync.Mutex
	written     int
	flushes     int
	elsewhere   int
	headerFlush bool // the first flush came before any byte was written
}

func (w *flushRecorder) Header() http.Header { return w.h }
func (w *flushRecorder) WriteHeader(int)     {}

func (w *flushRecorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.written += len(p)
	return len(p), nil
}

func (w *flushRecorder) Flush() {
	pc := make([]uintptr, 64)
	frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)])
	serving := false
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, "anthhttp.(*Gateway).ServeHTTP") {
			serving = true
		}
		if !more {
			break
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.flushes == 0 {
		w.headerFlush = w.written == 0
		close(w.first)
	}
	w.flushes++
	if !serving {
		w.elsewhere++
	}
}

// TestGatewayWriterWithoutFlush: a ResponseWriter that cannot flush (a
// middleware's wrapper without Flush) still gets every byte of a bridged
// stream, the same bytes a flushing one gets: a flush that fails is
// ignored, as httputil.ReverseProxy ignores it.
func TestGatewayWriterWithoutFlush(t *testing.T) {
	body := testdata.SSE(t)["layer0-basic.sse"]
	up, _ := url.Parse("http://upstream.test")
	gw := NewGateway(messages.API{}, GatewayOptions{Upstream: up, Transport: &memTransport{body: body}})
	for _, c := range gatewayCases {
		var got [2][]byte
		for i, w := range []http.ResponseWriter{&noFlush{h: http.Header{}}, httptest.NewRecorder()} {
			req := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[]}`))
			req.Header.Set("Accept", c.accept)
			if c.encoding != "" {
				req.Header.Set("Accept-Encoding", c.encoding)
			}
			gw.ServeHTTP(w, req)
			switch w := w.(type) {
			case *noFlush:
				got[i] = w.b
			case *httptest.ResponseRecorder:
				got[i] = w.Body.Bytes()
			}
		}
		if len(got[1]) == 0 || !bytes.Equal(got[0], got[1]) {
			t.Errorf("%s: %d bytes without Flush, %d with it", c.name, len(got[0]), len(got[1]))
		}
	}
}

// noFlush is a ResponseWriter with no Flush method and no Unwrap.
type noFlush struct {
	h http.Header
	b []byte
}

func (w *noFlush) Header() http.Header         { return w.h }
func (w *noFlush) WriteHeader(int)             {}
func (w *noFlush) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
