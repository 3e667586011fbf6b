package anthhttp_test

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/cputime"
	"github.com/layer0/anth/internal/redistest"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/resume"
	"github.com/layer0/anth/resume/redisstore"
)

// BenchmarkResumeStream is what keeping a tail costs a live stream: each
// recording of testdata/sse through the Gateway without a store and with
// a Memory store (one Append a write), to an ANTH, an anth-deflate and an
// SSE client, in memory. The store is filled to its bound before a kept
// case is timed (fillStore), so each new tail evicts the oldest, as a
// busy gateway's store does once it has run a while; fill-ns/stream is
// what a stream cost while it filled. ns/stream of a "kept" case against
// its "plain" one in the same run is the CPU a held tail adds; B/stream
// the bytes the client gets (an SSE client of a resumable response gets
// the bridge's events, each with its id:).
func BenchmarkResumeStream(b *testing.B) {
	recs := testdata.SSE(b)
	names := slices.Sorted(maps.Keys(recs))
	up, _ := url.Parse("http://upstream.test")
	tr := &memTransport{}
	plain := NewGateway(messages.API{Decoders: &messages.DecoderPool{}}, GatewayOptions{Upstream: up, Transport: tr})
	for _, w := range resumeWires {
		// A store a wire, filled by its streams, and let go before the
		// next wire's: the garbage collector marks every tail a live
		// store holds.
		store := resume.NewMemory(resume.MemoryOptions{})
		kept := NewGateway(messages.API{Decoders: &messages.DecoderPool{}}, GatewayOptions{Upstream: up, Transport: tr, Resume: store})
		fill := 0.0
		for _, g := range []struct {
			name string
			h    http.Handler
		}{{"plain", plain}, {"kept", kept}} {
			b.Run(w.name+"/"+g.name, func(b *testing.B) {
				b.ReportAllocs()
				if g.h == kept {
					if fill == 0 {
						fill = fillStore(b, store, kept, w, tr, recs, names)
					}
				}
				var cw countingDiscard
				for b.Loop() {
					for _, name := range names {
						tr.body = recs[name]
						req := w.request()
						cw.h = http.Header{}
						g.h.ServeHTTP(&cw, req)
					}
				}
				n := float64(b.N * len(names))
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/stream")
				b.ReportMetric(float64(cw.n)/n, "B/stream")
				if w.name == "sse" {
					b.ReportMetric(float64(cw.ids)/n, "id-B/stream")
				}
				if g.h == kept {
					b.ReportMetric(fill, "fill-ns/stream")
				}
			})
		}
		store.Close()
	}
}

// BenchmarkResumeStreamParallel is BenchmarkResumeStream with streams
// served on every core at once (25 goroutines a core, each with a gateway
// of its own and all sharing one Memory store, as a busy gateway's
// streams share its store, filled to its bound first as
// BenchmarkResumeStream's is): what the store's locks add when Appends
// come from several cores. ns/op is a stream's wall time with every core
// at work, kept against plain in the same run the cost of a held tail.
func BenchmarkResumeStreamParallel(b *testing.B) {
	recs := testdata.SSE(b)
	names := slices.Sorted(maps.Keys(recs))
	up, _ := url.Parse("http://upstream.test")
	for _, w := range resumeWires {
		store := resume.NewMemory(resume.MemoryOptions{}) // a wire's, as BenchmarkResumeStream's
		for _, g := range []struct {
			name  string
			store resume.Store
		}{{"plain", nil}, {"kept", store}} {
			b.Run(w.name+"/"+g.name, func(b *testing.B) {
				b.ReportAllocs()
				if g.store != nil {
					tr := &memTransport{}
					fillStore(b, store, NewGateway(messages.API{Decoders: &messages.DecoderPool{}}, GatewayOptions{Upstream: up, Transport: tr, Resume: store}), w, tr, recs, names)
				}
				b.SetParallelism(25)
				b.RunParallel(func(pb *testing.PB) {
					tr := &memTransport{}
					gw := NewGateway(messages.API{Decoders: &messages.DecoderPool{}}, GatewayOptions{Upstream: up, Transport: tr, Resume: g.store})
					for i := 0; pb.Next(); i++ {
						tr.body = recs[names[i%len(names)]]
						req := w.request()
						gw.ServeHTTP(&discardWriter{h: http.Header{}}, req)
					}
				})
			})
		}
		store.Close()
	}
}

// request returns a streaming request for w's wire, as the benchmarks
// send it to a gateway in memory.
func (w resumeWire) request() *http.Request {
	req := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", w.accept)
	if w.encoding != "" {
		req.Header.Set("Accept-Encoding", w.encoding)
	}
	return req
}

// countingDiscard is a flushing ResponseWriter that counts what it is
// given.
type countingDiscard struct {
	h   http.Header
	n   int64
	ids int64 // bytes of id: lines
}

func (w *countingDiscard) Header() http.Header { return w.h }
func (w *countingDiscard) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	for line := range bytes.Lines(p) {
		if bytes.HasPrefix(line, []byte("id:")) {
			w.ids += int64(len(line))
		}
	}
	return len(p), nil
}
func (w *countingDiscard) WriteHeader(int) {}
func (w *countingDiscard) Flush()          {}

// fillStore serves the recordings through h, a Gateway keeping its
// streams in store, to w's client until store holds all but 16 KiB of
// its bound (DefaultMemoryMaxBytes), as a gateway's store does once it
// has run a while: from then on each new tail evicts the oldest and takes
// its chunks. It returns the time a stream took while it filled, or 0 if
// store was full already. A fresh store's tails land in memory the
// process has never touched (on this VM a page's first touch costs about
// 10 µs, 5.6 of them in the kernel): a warm-up's cost, once per byte of
// the bound, which a gateway pays once and which is timed apart
// (fill-ns/stream), not with the streams after it.
func fillStore(b *testing.B, store *resume.Memory, h http.Handler, w resumeWire, tr *memTransport, recs map[string][]byte, names []string) float64 {
	b.Helper()
	runtime.GC() // what the last wire's store left
	const slack = 16 << 10
	start, n := time.Now(), 0
	for {
		if _, held := store.Len(); held >= resume.DefaultMemoryMaxBytes-slack {
			break
		}
		if n > resume.DefaultMemoryMaxBytes/resume.TailOverhead {
			b.Fatalf("%d streams kept and the store holds less than its bound", n)
		}
		for _, name := range names {
			tr.body = recs[name]
			h.ServeHTTP(&countingDiscard{h: http.Header{}}, w.request())
			n++
		}
	}
	if n == 0 {
		return 0
	}
	took := time.Since(start)
	// What the fill left for the collector is its, not the timed streams'.
	runtime.GC()
	return float64(took.Nanoseconds()) / float64(n)
}

// BenchmarkResumeReconnect is the time from a resume request to its
// first frame read, over loopback HTTP, from the middle of the longest
// recording of testdata/sse, kept whole: as ANTH (Anth-Resume-Offset) and
// as an event stream (Last-Event-ID), from a Memory store and from Redis
// (a redis-server on loopback, as redisstore's own benchmarks use); beside
// them, re-sending the request (a new POST through the same gateway to an
// upstream in memory, which answers at once: a real model's first token
// takes far longer). p50 and p99 are of the iterations' times.
func BenchmarkResumeReconnect(b *testing.B) {
	recs := testdata.SSE(b)
	name := "tests_fixtures_fable-fallback_stream-a-toolrefusal.sse"
	redis := redistest.Start(b)
	for _, st := range []string{"memory", "redis"} {
		var opts GatewayOptions
		if st == "redis" {
			store, err := redisstore.New(redisstore.Options{Addr: redis.Addr})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { store.Close() })
			opts.Resume = store
		}
		gw, _ := resumeGateway(b, &streamUpstream{streams: recs}, opts)
		body := `{"model":"` + name + `","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`
		resp, err := http.DefaultTransport.RoundTrip(post(b, gw, "/v1/messages", body, anthclient.Accept, ""))
		if err != nil {
			b.Fatal(err)
		}
		whole, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		id := resp.Header.Get(ResumeIDHeader)
		// The offset of the middle frame.
		var offs []int
		for off := len(frame.Magic); off < len(whole); off += frame.HeaderSize + (int(whole[off+1])<<8 | int(whole[off+2])) {
			offs = append(offs, off-len(frame.Magic))
		}
		mid := offs[len(offs)/2]
		// An event stream's is kept as its events (§13.1): its cursor, the id
		// of its middle event.
		sseReq := post(b, gw, "/v1/messages", body, "text/event-stream", "")
		resp, err = http.DefaultTransport.RoundTrip(sseReq)
		if err != nil {
			b.Fatal(err)
		}
		events, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		sseID := resp.Header.Get(ResumeIDHeader)
		ids := regexp.MustCompile(`(?m)^id:(\d+)$`).FindAllSubmatch(events, -1)
		if id == "" || sseID == "" || len(ids) == 0 {
			b.Fatalf("%s: responses not kept (IDs %q and %q, %d event ids)", st, id, sseID, len(ids))
		}
		midEvent := string(ids[len(ids)/2][1])
		type reconnect struct {
			name string
			req  func() *http.Request
		}
		cases := []reconnect{
			{"resume-anth", func() *http.Request {
				req, _ := http.NewRequest(http.MethodGet, gw.URL+"/v1/messages", nil)
				req.Header.Set("X-Api-Key", "key-1")
				req.Header.Set("Accept", anthclient.Accept)
				req.Header.Set(ResumeIDHeader, id)
				req.Header.Set(ResumeOffsetHeader, strconv.Itoa(mid))
				return req
			}},
			{"resume-sse", func() *http.Request {
				req, _ := http.NewRequest(http.MethodGet, gw.URL+"/v1/messages", nil)
				req.Header.Set("X-Api-Key", "key-1")
				req.Header.Set("Accept", "text/event-stream")
				req.Header.Set(ResumeIDHeader, sseID)
				req.Header.Set(LastEventIDHeader, midEvent)
				return req
			}},
		}
		if st == "memory" {
			cases = append(cases, reconnect{"resend-post", func() *http.Request { return post(b, gw, "/v1/messages", body, anthclient.Accept, "") }})
		}
		for _, c := range cases {
			b.Run(st+"/"+c.name, func(b *testing.B) {
				var ds []time.Duration
				for b.Loop() {
					ds = append(ds, firstByte(b, c.req()))
				}
				slices.Sort(ds)
				b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), "p99-µs")
			})
		}
	}
}

// firstByte sends req and returns the time to the first byte of its body,
// which it then reads to the end.
func firstByte(b *testing.B, req *http.Request) time.Duration {
	start := time.Now()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b.Fatal(resp.Status)
	}
	var p [1]byte
	if _, err := io.ReadFull(resp.Body, p[:]); err != nil {
		b.Fatal(err)
	}
	d := time.Since(start)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return d
}

// BenchmarkResumeHeld is the memory a kept response holds: b.N responses
// of the recordings of testdata/sse kept whole in a Memory store, the
// live heap's growth per response beside the store's own charge.
func BenchmarkResumeHeld(b *testing.B) {
	recs := testdata.SSE(b)
	var bodies [][]byte
	for _, r := range recs {
		bodies = append(bodies, r)
	}
	up, _ := url.Parse("http://upstream.test")
	tr := &memTransport{}
	store := resume.NewMemory(resume.MemoryOptions{MaxBytes: 1 << 40})
	defer store.Close()
	gw := NewGateway(messages.API{}, GatewayOptions{Upstream: up, Transport: tr, Resume: store})
	before := liveHeap()
	n := 0
	for b.Loop() {
		tr.body = bodies[n%len(bodies)]
		n++
		req := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[]}`))
		req.Header.Set("Accept", anthclient.Accept)
		gw.ServeHTTP(&countingDiscard{h: http.Header{}}, req)
	}
	b.StopTimer()
	after := liveHeap()
	tails, bytes := store.Len()
	b.ReportMetric(float64(after-before)/float64(n), "heap-B/response")
	b.ReportMetric(float64(bytes)/float64(tails), "charged-B/response")
	runtime.KeepAlive(store)
}

// BenchmarkResumeStreamPaired is BenchmarkResumeStream's comparison made
// on a shared machine: each iteration serves every recording through the
// gateway without a store and then with one (filled to its bound first,
// as BenchmarkResumeStream's is), in turn, so that what else runs weighs
// on both alike; kept/plain is the ratio of their total times,
// kept/plain-cpu that of the CPU time this process used in each (which
// another process's load does not inflate, as it does the wall clock's).
func BenchmarkResumeStreamPaired(b *testing.B) {
	recs := testdata.SSE(b)
	names := slices.Sorted(maps.Keys(recs))
	up, _ := url.Parse("http://upstream.test")
	tr := &memTransport{}
	plain := NewGateway(messages.API{Decoders: &messages.DecoderPool{}}, GatewayOptions{Upstream: up, Transport: tr})
	for _, w := range resumeWires {
		store := resume.NewMemory(resume.MemoryOptions{}) // a wire's, as BenchmarkResumeStream's
		kept := NewGateway(messages.API{Decoders: &messages.DecoderPool{}}, GatewayOptions{Upstream: up, Transport: tr, Resume: store})
		b.Run(w.name, func(b *testing.B) {
			fillStore(b, store, kept, w, tr, recs, names)
			var cw countingDiscard
			var took, cpu [2]time.Duration
			for b.Loop() {
				for i, h := range []http.Handler{plain, kept} {
					start, startCPU := time.Now(), cputime.Process()
					for _, name := range names {
						tr.body = recs[name]
						req := w.request()
						cw.h = http.Header{}
						h.ServeHTTP(&cw, req)
					}
					took[i] += time.Since(start)
					cpu[i] += cputime.Process() - startCPU
				}
			}
			n := float64(b.N * len(names))
			b.ReportMetric(float64(took[0].Nanoseconds())/n, "plain-ns/stream")
			b.ReportMetric(float64(took[1].Nanoseconds())/n, "kept-ns/stream")
			b.ReportMetric(float64(took[1])/float64(took[0]), "kept/plain")
			if cpu[0] > 0 {
				// The process's CPU time, which other processes on the
				// machine do not add to (the garbage collector's is in it).
				b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "kept/plain-cpu")
			}
		})
		store.Close()
	}
}
