package anthhttp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

// TestGatewayIdleWaitOnly: UpstreamIdleTimeout bounds each wait for the
// upstream's next event, and only that: a stream whose events come
// closer together than it runs whole however long it lasts, a client
// slow to take an event does not make the upstream idle, and an upstream
// that stops sending is ended with the fault idle_timeout. The bound is
// generous beside the gaps, so that a busy machine does not cross it.
func TestGatewayIdleWaitOnly(t *testing.T) {
	const idle = 400 * time.Millisecond
	body := testdata.SSE(t)["layer0-basic.sse"]
	for _, c := range []struct {
		name      string
		gap       time.Duration // before each event
		stallAt   int           // the upstream stops before this event, if positive
		slowWrite time.Duration // the client's first write takes this long
		want      End
	}{
		{name: "events closer than the bound, the stream longer", gap: idle / 5, want: EndDone},
		{name: "a client slow to take the first event", slowWrite: 2 * idle, want: EndDone},
		{name: "an upstream that stops sending", stallAt: 3, want: EndError},
		{name: "an upstream that stops sending after the bound has passed", gap: idle / 5, stallAt: 7, want: EndError},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rec Record
			var mu sync.Mutex
			up, _ := url.Parse("http://upstream.test")
			tr := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Request: r,
					Body: &pacedEvents{rest: body, gap: c.gap, stallAt: c.stallAt, done: r.Context().Done()}}, nil
			})
			gw := NewGateway(messages.API{}, GatewayOptions{Upstream: up, Transport: tr, UpstreamIdleTimeout: idle,
				Observer: observerFunc(func(r *Record) { mu.Lock(); rec = *r; mu.Unlock() })})
			req := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[]}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", anthclient.Accept)
			w := &slowWriter{ResponseRecorder: httptest.NewRecorder(), first: c.slowWrite}
			gw.ServeHTTP(w, req)
			mu.Lock()
			defer mu.Unlock()
			if rec.End != c.want {
				t.Fatalf("the stream ends %v (fault %q, %v), want %v", rec.End, rec.Fault, rec.Err, c.want)
			}
			if c.want == EndError && rec.Fault != FaultIdleTimeout {
				t.Fatalf("fault %q (%v), want %q", rec.Fault, rec.Err, FaultIdleTimeout)
			}
		})
	}
}

// pacedEvents gives an event stream an event a Read, each after gap, and
// from the stallAt-th on (if positive) nothing; its Read fails once done
// is closed (or after 10 s of stalling).
type pacedEvents struct {
	rest    []byte
	gap     time.Duration
	stallAt int
	n       int
	done    <-chan struct{}
}

func (p *pacedEvents) Read(b []byte) (int, error) {
	if len(p.rest) == 0 {
		return 0, io.EOF
	}
	wait := p.gap
	if p.n++; p.stallAt > 0 && p.n >= p.stallAt {
		wait = 10 * time.Second // a gateway that never ends it fails, not hangs
	}
	// Cancelled, the request's body fails, as http.Transport's does.
	select {
	case <-p.done:
		return 0, io.ErrUnexpectedEOF
	case <-time.After(wait):
	}
	if p.stallAt > 0 && p.n >= p.stallAt {
		return 0, io.ErrUnexpectedEOF
	}
	n := len(p.rest)
	if i := bytes.Index(p.rest, []byte("\n\n")); i >= 0 {
		n = i + 2
	}
	n = copy(b, p.rest[:n])
	p.rest = p.rest[n:]
	return n, nil
}

func (p *pacedEvents) Close() error { return nil }

// slowWriter is a ResponseRecorder whose first Write takes first.
type slowWriter struct {
	*httptest.ResponseRecorder
	first  time.Duration
	writes int
}

func (w *slowWriter) Write(b []byte) (int, error) {
	if w.writes++; w.writes == 1 {
		time.Sleep(w.first)
	}
	return w.ResponseRecorder.Write(b)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type observerFunc func(*Record)

func (f observerFunc) Observe(r *Record) { f(r) }
