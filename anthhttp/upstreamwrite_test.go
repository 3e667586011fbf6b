package anthhttp_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

// writeCounter is a connection that counts the writes made on it: those
// of the one request it carries.
type writeCounter struct {
	net.Conn
	mu     sync.Mutex
	writes int
}

func (c *writeCounter) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// TestGatewayUpstreamOneWrite pins that a bridged request goes upstream,
// headers and body, in one write, as httputil.ReverseProxy sends it: a
// body net/http does not know is in memory made it flush the headers
// first, two writes (two syscalls, two packets) a stream (issue 26).
func TestGatewayUpstreamOneWrite(t *testing.T) {
	stream := testdata.SSE(t)["layer0-basic.sse"]
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(stream)
	}))
	defer upstream.Close()
	var mu sync.Mutex
	var conns []*writeCounter
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		wc := &writeCounter{Conn: c}
		mu.Lock()
		conns = append(conns, wc)
		mu.Unlock()
		return wc, nil
	}}
	defer tr.CloseIdleConnections()
	up, _ := url.Parse(upstream.URL)
	gw := NewGateway(messages.API{}, GatewayOptions{Upstream: up, Transport: tr})
	for _, c := range gatewayCases {
		req := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", c.accept)
		if c.encoding != "" {
			req.Header.Set("Accept-Encoding", c.encoding)
		}
		w := httptest.NewRecorder()
		gw.ServeHTTP(w, req)
		if w.Code != 200 {
			t.Fatalf("%s: status %d: %s", c.name, w.Code, w.Body)
		}
		// A new connection for each request, so that its writes are
		// this request's.
		tr.CloseIdleConnections()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(conns) != len(gatewayCases) {
		t.Fatalf("%d upstream connections, want %d", len(conns), len(gatewayCases))
	}
	for i, c := range conns {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.writes != 1 {
			t.Errorf("%s: the upstream request took %d writes, want 1", gatewayCases[i].name, c.writes)
		}
	}
}
