package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// TestProxyKeepsUpstreamConnections: streams that end go back to the
// upstream connections' pool for the next ones, as many as were in use,
// rather than all but two being closed (net/http's default per host) and
// dialled again, a TCP handshake and teardown a stream for a gateway
// serving more than two at once (issue 26).
func TestProxyKeepsUpstreamConnections(t *testing.T) {
	const streams = 8
	first, rest := textResponseSSE()
	var dialled atomic.Int64
	var mu sync.Mutex
	var waiting int
	all := make(chan struct{})
	upstream := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		// Each round's streams are all in flight at once, each on a
		// connection of its own, before any ends.
		mu.Lock()
		if waiting++; waiting == streams {
			close(all)
		}
		wait := all
		mu.Unlock()
		<-wait
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, first+rest)
	}))
	upstream.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialled.Add(1)
		}
	}
	upstream.Start()
	defer upstream.Close()
	p := startProxy(t, nil, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams}, Timeout: logWait}
	round := func() {
		mu.Lock()
		waiting, all = 0, make(chan struct{})
		mu.Unlock()
		var wg sync.WaitGroup
		for range streams {
			wg.Go(func() {
				resp, err := client.Do(newStreamRequest(t, "http://"+p.addr))
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != 200 {
					t.Errorf("status %d, %v", resp.StatusCode, err)
				}
			})
		}
		wg.Wait()
	}
	round()
	if n := dialled.Load(); n != streams {
		t.Fatalf("first round: %d upstream connections, want %d", n, streams)
	}
	round()
	if n := dialled.Load() - streams; n != 0 {
		t.Errorf("second round: %d upstream connections dialled again, want 0 (the first round's kept)", n)
	}
	p.stop()
}
