package anthhttp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/sse"
)

// BenchmarkGatewayStream is the gateway's own CPU per stream, in memory:
// each recording of testdata/sse served from an upstream in memory through
// a plain httputil.ReverseProxy (the baseline a user would otherwise
// deploy) and through the Gateway to an SSE client (the events checked one
// by one), an ANTH client and an anth-deflate client; and the same with the
// upstream's JSON keys in another order than the API's (sorted, as a server
// that decodes and re-encodes the JSON writes them: issue 26). ns/stream
// against reverse-proxy in the same run is the ratio.
func BenchmarkGatewayStream(b *testing.B) {
	recs := testdata.SSE(b)
	names := make([]string, 0, len(recs))
	for name := range recs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, order := range []string{"api-order", "sorted-keys"} {
		var bodies [][]byte
		for _, name := range names {
			body := recs[name]
			if order == "sorted-keys" {
				body = sortedKeys(b, body)
			}
			bodies = append(bodies, body)
		}
		up, _ := url.Parse("http://upstream.test")
		tr := &memTransport{}
		rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(up) }, Transport: tr, FlushInterval: -1}
		gw := NewGateway(messages.API{Decoders: &messages.DecoderPool{}}, GatewayOptions{Upstream: up, Transport: tr})
		for _, c := range []struct {
			name, accept, encoding string
			h                      http.Handler
		}{
			{"reverse-proxy", "text/event-stream", "", rp},
			{"gateway-sse", "text/event-stream", "", gw},
			{"gateway-anth", anthclient.Accept, "", gw},
			{"gateway-anth-deflate", anthclient.Accept, AcceptEncoding, gw},
		} {
			b.Run(order+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				var w discardWriter
				for b.Loop() {
					for _, body := range bodies {
						tr.body = body
						req := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[]}`))
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("Accept", c.accept)
						if c.encoding != "" {
							req.Header.Set("Accept-Encoding", c.encoding)
						}
						w.h = http.Header{}
						c.h.ServeHTTP(&w, req)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(bodies)), "ns/stream")
			})
		}
	}
}

// memTransport answers every request with body as an event stream, an
// event a Read, as a network gives a stream whose server flushes after
// each event: read whole at once, a plain proxy would write it in one go,
// which no proxy of a live stream does.
type memTransport struct{ body []byte }

func (t *memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {sse.MediaType}}, Body: &testdata.EventReader{Rest: t.body}, Request: r}, nil
}

// discardWriter is a flushing ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Flush()                      {}

// sortedKeys re-encodes every event's data with encoding/json, whose
// objects come out with their keys sorted.
func sortedKeys(b *testing.B, stream []byte) []byte {
	var out []byte
	for _, ev := range testdata.Events(b, stream) {
		var v any
		if err := json.Unmarshal([]byte(ev[1]), &v); err != nil {
			b.Fatal(err)
		}
		data, _ := json.Marshal(v)
		out = sse.AppendEvent(out, []byte(ev[0]), data)
	}
	return out
}
