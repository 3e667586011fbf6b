package anthhttp_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

// gatewayCases are the clients a bridged stream is served to, and the
// headers the Gateway answers each with (but RequestIDHeader, whose value
// is new every time).
var gatewayCases = []struct {
	name, accept, encoding string
	header                 http.Header
}{
	{"sse", "text/event-stream", "", http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}, "Cache-Control": {"no-transform"}, "X-Accel-Buffering": {"no"}}},
	{"anth", anthclient.Accept, "", http.Header{"Content-Type": {ContentType}, "Cache-Control": {"no-transform"}, "X-Accel-Buffering": {"no"}}},
	{"anth-deflate", anthclient.Accept, AcceptEncoding, http.Header{"Content-Type": {ContentType}, "Content-Encoding": {"anth-deflate"}, "Cache-Control": {"no-transform"}, "X-Accel-Buffering": {"no"}}},
	{"anth-coded-type", ContentType + "; coding=anth-deflate", "", http.Header{"Content-Type": {ContentType + "; coding=anth-deflate"}, "Cache-Control": {"no-transform"}, "X-Accel-Buffering": {"no"}}},
}

// upstreamHeaders keeps the headers of the last request it forwards.
type upstreamHeaders struct {
	http.RoundTripper
	last http.Header
}

func (t *upstreamHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	t.last = r.Header.Clone()
	return t.RoundTripper.RoundTrip(r)
}

// TestGatewayStreamHeaders pins the headers of a bridged stream's
// response and of its upstream request, which are now shared values
// assigned whole rather than set (issue 26), byte for byte.
func TestGatewayStreamHeaders(t *testing.T) {
	up, _ := url.Parse("http://upstream.test")
	tr := &upstreamHeaders{RoundTripper: &memTransport{body: testdata.SSE(t)["layer0-basic.sse"]}}
	gw := NewGateway(messages.API{}, GatewayOptions{Upstream: up, Transport: tr})
	for _, c := range gatewayCases {
		req := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[]}`))
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
		req.Header.Set("Accept", c.accept)
		if c.encoding != "" {
			req.Header.Set("Accept-Encoding", c.encoding)
		}
		w := discardWriter{h: http.Header{}}
		gw.ServeHTTP(&w, req)
		if len(w.h[RequestIDHeader]) != 1 {
			t.Errorf("%s: %s %q", c.name, RequestIDHeader, w.h[RequestIDHeader])
		}
		delete(w.h, RequestIDHeader)
		if d := cmp.Diff(c.header, w.h); d != "" {
			t.Errorf("%s: response headers (-want +got):\n%s", c.name, d)
		}
		want := http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream, application/json"}, "User-Agent": {""}}
		if d := cmp.Diff(want, tr.last); d != "" {
			t.Errorf("%s: upstream request headers (-want +got):\n%s", c.name, d)
		}
	}
}

// TestGatewayStreamAllocs bounds the allocations of a short stream through
// the Gateway, a recording's (BenchmarkGatewayStream's): the request's
// headers and body and the response's headers cost 14 or 15 fewer than they did
// (issue 26). The relay's own are the rest.
func TestGatewayStreamAllocs(t *testing.T) {
	if RaceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	up, _ := url.Parse("http://upstream.test")
	tr := &memTransport{}
	gw := NewGateway(messages.API{Decoders: &messages.DecoderPool{}}, GatewayOptions{Upstream: up, Transport: tr, UpstreamIdleTimeout: 60e9})
	body := testdata.SSE(t)["layer0-basic.sse"]
	// Measured (the request's making included): 55, 55, 58, 56, one of them
	// the array of the response's header values and one the upstream
	// body's io.NopCloser, which sends it in one write with the headers
	// (TestGatewayUpstreamOneWrite); 63, 62, 65, 64 while
	// httputil.ReverseProxy flushed the stream (its writer, its timer,
	// the media type parsed: TestGatewayFlushesOnItsGoroutine); before
	// that, 75, 74, 78, 76.
	bounds := map[string]float64{"sse": 55, "anth": 55, "anth-deflate": 58, "anth-coded-type": 56}
	for _, c := range gatewayCases {
		w := discardWriter{h: http.Header{}}
		req := httptest.NewRequest("POST", "/v1/messages", nil)
		n := testing.AllocsPerRun(100, func() {
			tr.body = body
			*req = *httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[]}`))
			req.Header["Content-Type"] = []string{"application/json"}
			req.Header["Accept"] = []string{c.accept}
			if c.encoding != "" {
				req.Header["Accept-Encoding"] = []string{c.encoding}
			}
			clear(w.h)
			gw.ServeHTTP(&w, req)
		})
		t.Logf("%s: %v allocations a stream", c.name, n)
		if n > bounds[c.name] {
			t.Errorf("%s: %v allocations a stream, want at most %v", c.name, n, bounds[c.name])
		}
	}
}
