package anthhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/internal/redistest"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/resume"
	"github.com/layer0/anth/resume/redisstore"
)

// balancer is the one address two gateway instances serve: each request
// goes to the instance current when it is made, and the first response's
// body is cut after cut bytes, as a dropped connection cuts it.
type balancer struct {
	mu     sync.Mutex
	target *url.URL
	cut    int
	cuts   int
}

func (b *balancer) to(u string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.target, _ = url.Parse(u)
}

func (b *balancer) RoundTrip(req *http.Request) (*http.Response, error) {
	b.mu.Lock()
	target := b.target
	b.mu.Unlock()
	req = req.Clone(req.Context())
	req.URL.Host = target.Host
	req.Host = ""
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cuts == 0 {
		resp.Body = &cutBody{rc: resp.Body, left: b.cut}
		b.cuts++
	}
	return resp, nil
}

// instance is one gateway process: its own Store on the shared Redis.
type instance struct {
	srv   *httptest.Server
	store *redisstore.Store
}

func newInstance(t *testing.T, redis string, upstream *url.URL, opts GatewayOptions) *instance {
	t.Helper()
	store, err := redisstore.New(redisstore.Options{Addr: redis, Poll: 100 * time.Millisecond, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	opts.Upstream = upstream
	opts.Resume = store
	in := &instance{srv: httptest.NewServer(NewGateway(messages.API{}, opts, chat.API{})), store: store}
	t.Cleanup(in.kill)
	return in
}

// kill ends the instance as a crash would, as far as the others can tell:
// its store first, so nothing it does later reaches Redis, then its
// connections.
func (in *instance) kill() {
	in.store.Close()
	in.srv.CloseClientConnections()
	in.srv.Close()
}

// TestResumeRedisOtherInstance: two Gateways share one Redis (the
// redisstore). The one serving a stream is killed after its client's
// connection dropped, and the client resumes through the other. When the
// killed instance had kept the whole response, the client ends with the
// uncut frames; when it died mid-response, the client ends with what was
// kept, a prefix of the uncut frames, and a typed error (the tail is not
// found once its TTL passes), never a hang.
func TestResumeRedisOtherInstance(t *testing.T) {
	redis := redistest.Start(t)
	const a = 0 // the Messages API
	api := resumeAPIs[a]

	t.Run("whole", func(t *testing.T) {
		up := httptest.NewServer(&streamUpstream{streams: streamsOf(t)})
		defer up.Close()
		u, _ := url.Parse(up.URL)
		for rec := range len(api.recs(t)) {
			gwA := newInstance(t, redis.Addr, u, GatewayOptions{})
			gwB := newInstance(t, redis.Addr, u, GatewayOptions{})
			want := readUncut(t, gwB.srv, a, rec, 0)
			lb := &balancer{cut: want.size / 2}
			lb.to(gwA.srv.URL)
			req := post(t, gwA.srv, api.api.Path(), api.body(rec2name(t, a, rec)), anthclient.Accept, "")
			resp, err := lb.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Request = req
			id := resume.ID(resp.Header.Get(ResumeIDHeader))
			// A keeps relaying after its client left (ResumeGrace) until
			// the response's end is in Redis; then it dies.
			waitEnded(t, gwB.store, id, CredentialsOf(req, api.api, WireANTH))
			gwA.kill()
			lb.to(gwB.srv.URL)
			got, err := anthFrames(t, resp, api.api, anthclient.ResumeOptions{Transport: lb, Backoff: time.Millisecond})
			if err != nil {
				t.Fatalf("%s: resumed through the other instance: %v", rec2name(t, a, rec), err)
			}
			if d := cmp.Diff(want.frames, got); d != "" {
				t.Fatalf("%s: frames differ (-uncut +resumed):\n%s", rec2name(t, a, rec), d)
			}
		}
	})

	t.Run("midResponse", func(t *testing.T) {
		// The upstream holds after 3 events: A has kept only their frames
		// when it dies.
		gate := make(chan struct{})
		up := httptest.NewServer(&streamUpstream{streams: streamsOf(t), hold: 3, gate: gate})
		defer up.Close()
		defer close(gate)
		u, _ := url.Parse(up.URL)
		const ttl = 500 * time.Millisecond
		opts := GatewayOptions{ResumeTTL: ttl}
		gwA := newInstance(t, redis.Addr, u, opts)
		gwB := newInstance(t, redis.Addr, u, opts)
		full := readUncutGated(t, redis.Addr, a)
		lb := &balancer{cut: 8} // inside the first frames
		lb.to(gwA.srv.URL)
		req := post(t, gwA.srv, api.api.Path(), api.body(rec2name(t, a, 0)), anthclient.Accept, "")
		resp, err := lb.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Request = req
		time.Sleep(50 * time.Millisecond) // A relays the 3 events and keeps them
		gwA.srv.CloseClientConnections()  // A's process dies: its connections go …
		gwA.store.Close()                 // … and nothing more of it reaches Redis
		lb.to(gwB.srv.URL)
		t0 := time.Now()
		got, err := anthFrames(t, resp, api.api, anthclient.ResumeOptions{Transport: lb, Backoff: time.Millisecond})
		var se *anthclient.StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound && se.StatusCode != http.StatusGone {
			t.Fatalf("resumed a dead instance's tail: %v, want a 404 or 410 StatusError", err)
		}
		if took := time.Since(t0); took > ttl+5*time.Second {
			t.Fatalf("the client ended after %v", took)
		}
		if len(got) == 0 || len(got) >= len(full) {
			t.Fatalf("read %d frames of %d before the error", len(got), len(full))
		}
		if d := cmp.Diff(full[:len(got)], got); d != "" {
			t.Fatalf("the frames read are not the uncut response's first (-uncut +resumed):\n%s", d)
		}
		t.Logf("%d of %d frames, then %v", len(got), len(full), err)
	})
}

// readUncutGated reads recording 0 of API a uncut through a gateway of its
// own whose upstream does not hold.
func readUncutGated(t *testing.T, redis string, a int) []string {
	up := httptest.NewServer(&streamUpstream{streams: streamsOf(t)})
	defer up.Close()
	u, _ := url.Parse(up.URL)
	gw := newInstance(t, redis, u, GatewayOptions{})
	return readUncut(t, gw.srv, a, 0, 0).frames
}

// waitEnded waits until the tail id in store has ended.
func waitEnded(t *testing.T, store resume.Store, id resume.ID, owner resume.Owner) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := store.Follow(ctx, id, owner, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for {
		_, _, err := f.Next(ctx)
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("waiting for the tail's end: %v", err)
		}
	}
}

// TestResumeRedisDown: Redis stops in the middle of a stream. The stream
// goes on to its end, whole (the gateway stops keeping the tail after its
// first failed Append), and a resume is refused with 503 while Redis is
// down; a stream that starts while it is down has no Anth-Resume-Id and is
// whole too.
func TestResumeRedisDown(t *testing.T) {
	redis := redistest.Start(t)
	const a = 0
	api := resumeAPIs[a]
	want := readUncutGated(t, redis.Addr, a)

	gate := make(chan struct{})
	up := httptest.NewServer(&streamUpstream{streams: streamsOf(t), hold: 3, gate: gate})
	defer up.Close()
	u, _ := url.Parse(up.URL)
	gw := newInstance(t, redis.Addr, u, GatewayOptions{})
	req := post(t, gw.srv, api.api.Path(), api.body(rec2name(t, a, 0)), anthclient.Accept, "")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	id := resp.Header.Get(ResumeIDHeader)
	if id == "" {
		t.Fatalf("no %s while Redis is up", ResumeIDHeader)
	}
	time.Sleep(50 * time.Millisecond) // the 3 events are kept
	redis.Stop()
	close(gate)
	resp.Request = req
	got, err := anthFrames(t, resp, api.api, anthclient.ResumeOptions{Tries: -1})
	if err != nil {
		t.Fatalf("the stream with Redis gone: %v", err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("the stream with Redis gone (-uncut +got):\n%s", d)
	}

	resumeReq, _ := http.NewRequest(http.MethodGet, gw.srv.URL+api.api.Path(), nil)
	resumeReq.Header = req.Header.Clone()
	resumeReq.Header.Del("Content-Type")
	resumeReq.Header.Set(ResumeIDHeader, id)
	resumeReq.Header.Set(ResumeOffsetHeader, "0")
	t0 := time.Now()
	rr, err := http.DefaultTransport.RoundTrip(resumeReq)
	if err != nil {
		t.Fatal(err)
	}
	rr.Body.Close()
	if rr.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("resume with Redis down: %s, want 503", rr.Status)
	}
	t.Logf("resume with Redis down: %s after %v", rr.Status, time.Since(t0).Round(time.Millisecond))

	// A stream that starts with Redis down.
	resp, err = http.DefaultTransport.RoundTrip(post(t, gw.srv, api.api.Path(), api.body(rec2name(t, a, 0)), anthclient.Accept, ""))
	if err != nil {
		t.Fatal(err)
	}
	if id := resp.Header.Get(ResumeIDHeader); id != "" {
		t.Fatalf("%s %q offered with Redis down", ResumeIDHeader, id)
	}
	resp.Request = req
	got, err = anthFrames(t, resp, api.api, anthclient.ResumeOptions{Tries: -1})
	if err != nil {
		t.Fatalf("a stream started with Redis down: %v", err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("a stream started with Redis down (-uncut +got):\n%s", d)
	}
}

// TestResumeRedisTwoFollowers: while instance A relays a response, two
// clients resume it from its start at once, one through A and one through
// B; both read the whole response as it goes on.
func TestResumeRedisTwoFollowers(t *testing.T) {
	redis := redistest.Start(t)
	const a = 0
	api := resumeAPIs[a]
	want := readUncutGated(t, redis.Addr, a)

	gate := make(chan struct{})
	up := httptest.NewServer(&streamUpstream{streams: streamsOf(t), hold: 3, gate: gate})
	defer up.Close()
	u, _ := url.Parse(up.URL)
	gwA := newInstance(t, redis.Addr, u, GatewayOptions{})
	gwB := newInstance(t, redis.Addr, u, GatewayOptions{})
	req := post(t, gwA.srv, api.api.Path(), api.body(rec2name(t, a, 0)), anthclient.Accept, "")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	id := resp.Header.Get(ResumeIDHeader)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	results := make([][]string, 2)
	errs := make([]error, 2)
	for i, gw := range []*instance{gwA, gwB} {
		r, _ := http.NewRequestWithContext(ctx, http.MethodGet, gw.srv.URL+api.api.Path(), nil)
		r.Header = req.Header.Clone()
		r.Header.Del("Content-Type")
		r.Header.Set(ResumeIDHeader, id)
		r.Header.Set(ResumeOffsetHeader, "0")
		rr, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			t.Fatal(err)
		}
		if rr.StatusCode != http.StatusOK {
			t.Fatalf("resume through instance %d: %s", i, rr.Status)
		}
		rr.Request = r
		wg.Go(func() { results[i], errs[i] = anthFrames(t, rr, api.api, anthclient.ResumeOptions{Tries: -1}) })
	}
	time.Sleep(50 * time.Millisecond) // both followers wait for more
	close(gate)
	wg.Wait()
	for i := range results {
		if errs[i] != nil {
			t.Fatalf("follower through instance %d: %v", i, errs[i])
		}
		if d := cmp.Diff(want, results[i]); d != "" {
			t.Fatalf("follower through instance %d (-uncut +got):\n%s", i, d)
		}
	}
}
