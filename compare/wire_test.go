package compare

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/layer0/anth/internal/testdata"
)

// countingListener counts what the server writes to its connections: the
// bytes (HTTP framing and, over TLS, TLS records included) and the writes,
// each of which leaves as at least one packet (Go sets TCP_NODELAY).
type countingListener struct {
	net.Listener
	bytes, writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, l: l}, nil
}

type countingConn struct {
	net.Conn
	l *countingListener
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.l.bytes.Add(int64(n))
	c.l.writes.Add(1)
	return n, err
}

// server serves one scheme over HTTP/1.1, or HTTP/2 over TLS, on
// 127.0.0.1, the upstream stream set before each request.
type server struct {
	srv      *httptest.Server
	counter  *countingListener
	client   *http.Client
	mu       sync.Mutex
	upstream []byte
	api      *api
}

func newServer(s scheme, h2 bool) *server {
	sv := &server{}
	sv.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sv.mu.Lock()
		up, a := sv.upstream, sv.api
		sv.mu.Unlock()
		s.serve(w, r, up, a)
	}))
	sv.counter = &countingListener{Listener: sv.srv.Listener}
	sv.srv.Listener = sv.counter
	if h2 {
		sv.srv.EnableHTTP2 = true
		sv.srv.StartTLS()
	} else {
		sv.srv.Start()
	}
	sv.client = sv.srv.Client()
	sv.client.Transport.(*http.Transport).DisableCompression = true
	return sv
}

// measured is what one workload cost through one scheme over HTTP.
type measured struct {
	bytes, writes int64
	reading
}

// fetch serves every stream of wl through the server and reads it back as
// the scheme's client does, counting what the server wrote for it. The
// connection is opened (and, over TLS, its handshake done) before counting.
func (sv *server) fetch(t testing.TB, s scheme, wl workload) measured {
	var m measured
	var text bytes.Buffer
	for i, up := range wl.streams {
		sv.mu.Lock()
		sv.upstream, sv.api = up, wl.api
		sv.mu.Unlock()
		if i == 0 {
			sv.get(t, s, wl.api) // warm the connection up
		}
		b0, w0 := sv.counter.bytes.Load(), sv.counter.writes.Load()
		rd, err := sv.get(t, s, wl.api)
		if err != nil && !expectedError(up) {
			t.Fatalf("%s, %s: %v", s.name, wl.name, err)
		}
		m.bytes += sv.counter.bytes.Load() - b0
		m.writes += sv.counter.writes.Load() - w0
		m.deltas += rd.deltas
		text.WriteString(rd.text)
	}
	m.text = text.String()
	return m
}

func (sv *server) get(t testing.TB, s scheme, a *api) (reading, error) {
	req, _ := http.NewRequest("POST", sv.srv.URL+a.path, nil)
	req.Header.Set("Accept", s.accept)
	if s.encoding != "" {
		req.Header.Set("Accept-Encoding", s.encoding)
	}
	resp, err := sv.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return s.read(resp, a)
}

func (sv *server) close() { sv.srv.Close() }

// TestHTTP2: every scheme delivers every workload's text whole over
// HTTP/2 with TLS, as TestWire checks over HTTP/1.1.
func TestHTTP2(t *testing.T) {
	wls := workloads(testdata.SSE(t), testdata.Chat(t))
	for _, s := range schemes() {
		if s.slow && !*report {
			continue // TestWire measures it with -report
		}
		sv := newServer(s, true)
		for _, wl := range wls {
			checkReading(t, s, wl, sv.fetch(t, s, wl), "HTTP/2")
		}
		sv.close()
	}
}

// checkReading: the client got all of the workload's text, in as many
// deltas as the upstream sent.
func checkReading(t *testing.T, s scheme, wl workload, m measured, proto string) {
	t.Helper()
	if m.text != wl.text {
		t.Errorf("%s, %s, %s: %d bytes of text, want %d", proto, s.name, wl.name, len(m.text), len(wl.text))
	}
	if m.deltas != wl.deltas {
		t.Errorf("%s, %s, %s: %d deltas, want %d", proto, s.name, wl.name, m.deltas, wl.deltas)
	}
}
