package compare

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/layer0/anth/internal/testdata"
)

// sink is the server end of a response in memory: it keeps what is
// written, cut where it was flushed, if keep is set.
type sink struct {
	h     http.Header
	keep  bool
	buf   []byte
	cuts  []int
	bytes int
}

func (s *sink) Header() http.Header { return s.h }
func (s *sink) WriteHeader(int)     {}
func (s *sink) Write(p []byte) (int, error) {
	s.bytes += len(p)
	if s.keep {
		s.buf = append(s.buf, p...)
	}
	return len(p), nil
}

func (s *sink) Flush() {
	if s.keep && (len(s.cuts) == 0 || s.cuts[len(s.cuts)-1] < len(s.buf)) {
		s.cuts = append(s.cuts, len(s.buf))
	}
}

func request(s scheme, wl workload) *http.Request {
	r := httptest.NewRequest("POST", wl.api.path, nil)
	r.Header.Set("Accept", s.accept)
	if s.encoding != "" {
		r.Header.Set("Accept-Encoding", s.encoding)
	}
	return r
}

// serverCost is the server's CPU time per delta serving wl through s, in
// memory: the upstream's bytes in, the client's out, a flush per event.
func serverCost(b *testing.B, s scheme, wl workload) {
	r := request(s, wl)
	w := &sink{}
	b.ReportAllocs()
	for b.Loop() {
		for _, up := range wl.streams {
			w.h = http.Header{}
			s.serve(w, r, up, wl.api)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*wl.deltas), "ns/delta")
}

// response is one response as the server wrote it: its headers and its
// body cut where the server flushed.
type response struct {
	h      http.Header
	chunks [][]byte
}

func responses(s scheme, wl workload) []response {
	r := request(s, wl)
	var out []response
	for _, up := range wl.streams {
		w := &sink{h: http.Header{}, keep: true}
		s.serve(w, r, up, wl.api)
		rs := response{h: w.h}
		prev := 0
		for _, c := range append(w.cuts, len(w.buf)) {
			if c > prev {
				rs.chunks = append(rs.chunks, w.buf[prev:c])
				prev = c
			}
		}
		out = append(out, rs)
	}
	return out
}

// chunkReader gives a body one flush at a time, as a client reading a
// stream gets it from the network.
type chunkReader struct {
	chunks [][]byte
	i, off int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.i == len(c.chunks) {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[c.i][c.off:])
	c.off += n
	if c.off == len(c.chunks[c.i]) {
		c.i, c.off = c.i+1, 0
	}
	return n, nil
}

func (c *chunkReader) Close() error { return nil }

// clientCost is the client's CPU time per delta reading what the server
// wrote for wl through s, a flush per Read.
func clientCost(b *testing.B, s scheme, wl workload) {
	rs := responses(s, wl)
	bodies := make([]chunkReader, len(rs))
	b.ReportAllocs()
	for b.Loop() {
		for i, r := range rs {
			bodies[i] = chunkReader{chunks: r.chunks}
			resp := &http.Response{StatusCode: 200, Header: r.h, Body: &bodies[i]}
			if _, err := s.read(resp, wl.api); err != nil && !expectedError(wl.streams[i]) {
				b.Fatalf("%s, %s: %v", s.name, wl.name, err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*wl.deltas), "ns/delta")
}

// BenchmarkServer: the server's CPU per delta, every scheme and workload.
func BenchmarkServer(b *testing.B) {
	wls := workloads(testdata.SSE(b), testdata.Chat(b))
	for _, wl := range wls {
		for _, s := range schemes() {
			b.Run(wl.id+"/"+s.id, func(b *testing.B) { serverCost(b, s, wl) })
		}
	}
}

// BenchmarkClient: the client's CPU per delta, every scheme and workload.
func BenchmarkClient(b *testing.B) {
	wls := workloads(testdata.SSE(b), testdata.Chat(b))
	for _, wl := range wls {
		for _, s := range schemes() {
			b.Run(wl.id+"/"+s.id, func(b *testing.B) { clientCost(b, s, wl) })
		}
	}
}
