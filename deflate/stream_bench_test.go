package deflate_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/internal/cputime"
	"github.com/layer0/anth/internal/ssejson"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/internal/textgen"
	"github.com/layer0/anth/messages"
)

// flushRecorder keeps what a handler writes between flushes: one record's
// input each.
type flushRecorder struct {
	h       http.Header
	cur     []byte
	records [][]byte
}

func (w *flushRecorder) Header() http.Header { return w.h }
func (w *flushRecorder) WriteHeader(int)     {}
func (w *flushRecorder) Write(p []byte) (int, error) {
	w.cur = append(w.cur, p...)
	return len(p), nil
}
func (w *flushRecorder) Flush() {
	if len(w.cur) > 0 {
		w.records = append(w.records, w.cur)
		w.cur = nil
	}
}

// gatewayRecords returns the ANTH a gateway codes, record by record, for
// an upstream stream: what anthhttp.Proxy writes between its flushes to
// a client that asked for ANTH (an event a record).
func gatewayRecords(tb testing.TB, sse []byte) [][]byte {
	r := httptest.NewRequest("POST", "/v1/messages", nil)
	r.Header.Set("Accept", "application/x-anthropic-binary")
	w := &flushRecorder{h: http.Header{}}
	if err := anthhttp.Proxy(w, r, &testdata.EventReader{Rest: sse}, messages.API{}, anthhttp.ProxyOptions{}); err != nil {
		tb.Fatal(err)
	}
	w.Flush()
	return w.records
}

// BenchmarkStream codes what the gateway gives a Writer, a record per
// event, for the recordings in testdata/sse and for a long response
// (2,000 deltas of English), as anthhttp's BenchmarkGatewayStream does
// but with the Writer alone: ns/record and bytes/record are its time and
// output per record, cpu-ns/record the process's CPU time per record,
// which other processes on a shared machine inflate less than the wall
// clock.
func BenchmarkStream(b *testing.B) {
	recs := testdata.SSE(b)
	names := make([]string, 0, len(recs))
	for name := range recs {
		names = append(names, name)
	}
	sort.Strings(names)
	var recordings [][][]byte
	for _, name := range names {
		recordings = append(recordings, gatewayRecords(b, recs[name]))
	}
	long := ssejson.AppendResponse(nil, ssejson.Response{ID: "msg_01GatewayLongResponse000", Model: "claude-sonnet-4-5-20250929", InputTokens: 1200, OutputTokens: 4000, StopReason: "end_turn"},
		[][]string{textgen.Response(textgen.English, 2000, 1)})
	for _, wl := range []struct {
		name    string
		streams [][][]byte
	}{{"recordings", recordings}, {"long", [][][]byte{gatewayRecords(b, long)}}} {
		b.Run(wl.name, func(b *testing.B) {
			b.ReportAllocs()
			var out bytes.Buffer
			dict := deflate.NewDictionary([]byte(messages.EventDictionary))
			w := deflate.NewWriter(&out, dict)
			var coded, n int
			cpu := cputime.Process()
			for b.Loop() {
				for _, s := range wl.streams {
					w.Reset(&out)
					for _, rec := range s {
						w.Write(rec)
						w.Flush()
					}
					coded += out.Len()
					out.Reset()
					n += len(s)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(n), "cpu-ns/record")
			b.ReportMetric(float64(coded)/float64(n), "bytes/record")
		})
	}
}
