package anthhttp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

// TestProxyMemoryPerStream: 1,000 streams held open at once through Proxy
// on 127.0.0.1 cost an ANTH client at most 64 KiB more each than an SSE
// client.
func TestProxyMemoryPerStream(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 connections")
	}
	const streams = 1000
	head := testdata.SSE(t)["tool_runner_streaming_all.0.sse"][:1500]
	perStream := map[string]float64{}
	for _, accept := range []string{"text/event-stream", acceptANTH} {
		var started, release sync.WaitGroup
		started.Add(streams)
		release.Add(1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			up := &stalled{head: bytes.NewReader(head), closed: make(chan struct{})}
			go func() { release.Wait(); up.Close() }()
			Proxy(w, r, up, messages.API{}, ProxyOptions{})
		}))
		srv.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = streams
		base := liveHeap()
		var bodies []io.ReadCloser
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range streams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest("POST", srv.URL, nil)
				req.Header.Set("Accept", accept)
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Error(err)
					started.Done()
					return
				}
				io.ReadAtLeast(resp.Body, make([]byte, 8), 1)
				mu.Lock()
				bodies = append(bodies, resp.Body)
				mu.Unlock()
				started.Done()
			}()
		}
		started.Wait()
		time.Sleep(100 * time.Millisecond) // let every handler reach its stalled read
		perStream[accept] = float64(liveHeap()-base) / streams
		release.Done()
		wg.Wait()
		for _, b := range bodies {
			b.Close()
		}
		srv.Close()
	}
	extra := perStream[acceptANTH] - perStream["text/event-stream"]
	t.Logf("live heap per stream (server and client in one process): SSE client %.0f B, ANTH client %.0f B, ANTH costs %.0f B more", perStream["text/event-stream"], perStream[acceptANTH], extra)
	if extra > 64<<10 {
		t.Fatalf("an ANTH client costs %.0f bytes more than an SSE client, want at most 64 KiB", extra)
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
