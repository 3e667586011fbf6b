package compare

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/ssejson"
	"github.com/layer0/anth/internal/textgen"
	"github.com/layer0/anth/messages"
)

// A generator is a server that makes tokens itself, at a given rate, and
// writes each as it comes: SSE behind gzip with a flush per token, as
// servers do today, or ANTH through anthhttp.NewResponseWriter, with or without
// anth-deflate and frame.WriterOptions.Coalesce.
type generator struct {
	id, name, accept, encoding string
	serve                      func(w http.ResponseWriter, r *http.Request, tokens []string, every time.Duration)
}

const coalesce = 10 * time.Millisecond

func generators() []generator {
	native := func(id, name, encoding string, opts frame.WriterOptions) generator {
		return generator{id: id, name: name, accept: anthclient.Accept, encoding: encoding, serve: func(w http.ResponseWriter, r *http.Request, tokens []string, every time.Duration) {
			fw := anthhttp.NewResponseWriter(w, r, messages.API{}, opts)
			tick := time.NewTicker(every)
			defer tick.Stop()
			for _, t := range tokens {
				<-tick.C
				fw.WriteText(0, []byte(t))
			}
			fw.WriteDone(frame.StopEndTurn, "")
			fw.Flush()
		}}
	}
	return []generator{
		{id: "sse-gzip5", name: "SSE + gzip 5, a flush per token", accept: acceptSSE, encoding: "gzip", serve: func(w http.ResponseWriter, r *http.Request, tokens []string, every time.Duration) {
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			w.Header().Set("Content-Encoding", "gzip")
			rc := http.NewResponseController(w)
			z, _ := kgzip.NewWriterLevel(w, 5)
			tick := time.NewTicker(every)
			defer tick.Stop()
			var ev []byte
			for _, t := range tokens {
				<-tick.C
				ev = ssejson.AppendDelta(ev[:0], 0, t)
				z.Write(ev)
				z.Flush()
				rc.Flush()
			}
			z.Close()
			rc.Flush()
		}},
		native("anth", "ANTH, a flush per token", "", frame.WriterOptions{}),
		native("anth-coalesced", "ANTH, coalesced 10 ms", "", frame.WriterOptions{Coalesce: coalesce}),
		native("anth-deflate", "ANTH + anth-deflate, a flush per token", anthhttp.AcceptEncoding, frame.WriterOptions{}),
		native("anth-deflate-coalesced", "ANTH + anth-deflate, coalesced 10 ms", anthhttp.AcceptEncoding, frame.WriterOptions{Coalesce: coalesce}),
		native("anth-deflate-coalesced-20ms", "ANTH + anth-deflate, coalesced 20 ms", anthhttp.AcceptEncoding, frame.WriterOptions{Coalesce: 2 * coalesce}),
	}
}

// rates are the token rates measured, with how many tokens each streams:
// a few seconds of each, scaled to 1,000 tokens.
var rates = []struct{ perSecond, tokens int }{{20, 100}, {100, 500}, {1000, 1000}}

// stream runs one generated response over HTTP/1.1 on 127.0.0.1 and
// returns the server's writes (packets) and bytes per 1,000 tokens.
func stream(tb testing.TB, g generator, perSecond, n int) (packets, bytes float64) {
	tokens := textgen.Tokens(textgen.English, n, 3)
	every := time.Second / time.Duration(perSecond)
	var measuring atomic.Bool
	s := scheme{id: g.id, name: g.name, accept: g.accept, encoding: g.encoding, read: readANTH,
		serve: func(w http.ResponseWriter, r *http.Request, _ []byte, _ *api) {
			if measuring.Load() {
				g.serve(w, r, tokens, every)
			}
		}}
	if g.accept == acceptSSE {
		s.read = readSSE
	}
	sv := newServer(s, false)
	defer sv.close()
	sv.get(tb, scheme{accept: acceptSSE, read: readSSE}, messagesAPI) // open the connection
	measuring.Store(true)
	b0, w0 := sv.counter.bytes.Load(), sv.counter.writes.Load()
	rd, err := sv.get(tb, s, messagesAPI)
	if err != nil || rd.deltas != n {
		tb.Fatalf("%s at %d tokens/s: %d tokens read, %v", g.name, perSecond, rd.deltas, err)
	}
	scale := 1000 / float64(n)
	return float64(sv.counter.writes.Load()-w0) * scale, float64(sv.counter.bytes.Load()-b0) * scale
}

// BenchmarkCoalescing streams generated tokens in real time at 20, 100 and
// 1,000 tokens a second and reports the packets and bytes the server
// writes per 1,000 tokens. It takes about 70 seconds an iteration.
func BenchmarkCoalescing(b *testing.B) {
	for _, rate := range rates {
		for _, g := range generators() {
			b.Run(strconv.Itoa(rate.perSecond)+"/"+g.id, func(b *testing.B) {
				var packets, bytes float64
				for b.Loop() {
					packets, bytes = stream(b, g, rate.perSecond, rate.tokens)
				}
				b.ReportMetric(packets, "packets/1000tokens")
				b.ReportMetric(bytes, "bytes/1000tokens")
			})
		}
	}
}
