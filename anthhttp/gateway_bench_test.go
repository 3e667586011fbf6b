package anthhttp_test

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/internal/cputime"
	"github.com/layer0/anth/internal/ssejson"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/internal/textgen"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/sse"
)

// BenchmarkGatewayStream is the gateway's own CPU per stream, in memory:
// each recording of testdata/sse, and a long response (2,000 deltas of
// English), served from an upstream in memory through a plain
// httputil.ReverseProxy (the baseline a user would otherwise deploy) and
// through the Gateway to an SSE client (the events checked one by one),
// an ANTH client and an anth-deflate client; with the upstream's JSON keys
// in the API's order, sorted (as a server that decodes and re-encodes the
// JSON writes them) and shuffled in every object (issue 26: the gateway's
// CPU must not depend on the order). ns/stream against reverse-proxy in
// the same run is the ratio; cpu-ns/stream is the process's CPU time (every
// thread's, the garbage collector's too) per stream, which other processes
// on a shared machine do not inflate as they do the wall clock.
func BenchmarkGatewayStream(b *testing.B) {
	recs := testdata.SSE(b)
	names := make([]string, 0, len(recs))
	for name := range recs {
		names = append(names, name)
	}
	sort.Strings(names)
	var recordings [][]byte
	for _, name := range names {
		recordings = append(recordings, recs[name])
	}
	long := ssejson.AppendResponse(nil, ssejson.Response{ID: "msg_01GatewayLongResponse000", Model: "claude-sonnet-4-5-20250929", InputTokens: 1200, OutputTokens: 4000, StopReason: "end_turn"},
		[][]string{textgen.Response(textgen.English, 2000, 1)})
	for _, wl := range []struct {
		name    string
		streams [][]byte
	}{{"recordings", recordings}, {"long", [][]byte{long}}} {
		for _, order := range []string{"api-order", "sorted-keys", "shuffled-keys"} {
			var bodies [][]byte
			rng := rand.New(rand.NewPCG(26, 5))
			for _, body := range wl.streams {
				switch order {
				case "sorted-keys":
					body = testdata.SortedKeys(b, body)
				case "shuffled-keys":
					body = testdata.ShuffledKeys(b, body, rng)
				}
				bodies = append(bodies, body)
			}
			up, _ := url.Parse("http://upstream.test")
			tr := &memTransport{}
			rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(up) }, Transport: tr, FlushInterval: -1}
			// As anth proxy runs it: with its default bound on an
			// upstream's idle time, which every event's wait is timed
			// against.
			gw := NewGateway(messages.API{Decoders: &messages.DecoderPool{}}, GatewayOptions{Upstream: up, Transport: tr, UpstreamIdleTimeout: 5 * time.Minute})
			for _, c := range []struct {
				name, accept, encoding string
				h                      http.Handler
			}{
				{"reverse-proxy", "text/event-stream", "", rp},
				{"gateway-sse", "text/event-stream", "", gw},
				{"gateway-anth", anthclient.Accept, "", gw},
				{"gateway-anth-deflate", anthclient.Accept, AcceptEncoding, gw},
			} {
				b.Run(wl.name+"/"+order+"/"+c.name, func(b *testing.B) {
					b.ReportAllocs()
					var w discardWriter
					cpu := cputime.Process()
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
					streams := float64(b.N * len(bodies))
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/streams, "ns/stream")
					b.ReportMetric(float64(cputime.Process()-cpu)/streams, "cpu-ns/stream")
				})
			}
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
