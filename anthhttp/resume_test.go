package anthhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/resume"
	"github.com/layer0/anth/sse"
)

// streamUpstream serves, on either API's path, the recording named by the
// request's "model", one event a write; a gate, if set, holds it after
// hold events until closed. It counts the requests whose context ended
// (the gateway cancelled them).
type streamUpstream struct {
	streams   map[string][]byte
	hold      int
	gate      chan struct{}
	cancelled atomic.Int32
	done      chan struct{} // closed by the first request that ends cancelled
	once      sync.Once
}

func (u *streamUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	name := string(bytes.Trim(fieldOf(body, "model"), `"`))
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for i, ev := range bytes.SplitAfter(u.streams[name], []byte("\n\n")) {
		if u.gate != nil && i == u.hold {
			select {
			case <-u.gate:
			case <-r.Context().Done():
			}
		}
		if r.Context().Err() != nil {
			u.cancelled.Add(1)
			if u.done != nil {
				u.once.Do(func() { close(u.done) })
			}
			return
		}
		w.Write(ev)
		rc.Flush()
	}
}

// resumeAPIs are the APIs, each with its recordings and a request body
// asking for the recording named.
var resumeAPIs = []struct {
	name string
	api  bridge.API
	recs func(testing.TB) map[string][]byte
	body func(model string) string
}{
	{"messages", messages.API{}, testdata.SSE, func(m string) string {
		return `{"model":"` + m + `","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`
	}},
	{"chat", chat.API{}, testdata.Chat, func(m string) string {
		return `{"model":"` + m + `","stream":true,"messages":[{"role":"user","content":"Hi"}]}`
	}},
}

// resumeGateway is a gateway for both APIs over up, keeping tails in a
// Memory store.
func resumeGateway(t testing.TB, up http.Handler, opts GatewayOptions) (*httptest.Server, *resume.Memory) {
	upstream := httptest.NewServer(up)
	t.Cleanup(upstream.Close)
	u, _ := url.Parse(upstream.URL)
	store := resume.NewMemory(resume.MemoryOptions{})
	t.Cleanup(func() { store.Close() })
	opts.Upstream = u
	if opts.Resume == nil {
		opts.Resume = store
	}
	gw := httptest.NewServer(NewGateway(messages.API{}, opts, chat.API{}))
	t.Cleanup(gw.Close)
	return gw, store
}

// The wires a client asks for: its Accept and Accept-Encoding.
var resumeWires = []resumeWire{
	{"anth", anthclient.Accept, ""},
	{"anth-deflate", anthclient.Accept, AcceptEncoding},
	{"sse", "text/event-stream", ""},
}

type resumeWire struct{ name, accept, encoding string }

func post(t testing.TB, gw *httptest.Server, path, body, accept, encoding string) *http.Request {
	req, err := http.NewRequest(http.MethodPost, gw.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", "key-1")
	req.Header.Set("Accept", accept)
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	return req
}

// errCut is the network failure a cutter makes.
var errCut = errors.New("test: connection cut")

// cutter is a transport whose successive responses' bodies fail after
// the given numbers of bytes (one a response; responses past the list
// are whole), closing the connection as a network failure does.
type cutter struct {
	mu   sync.Mutex
	cuts []int
	reqs []*http.Request
}

func (c *cutter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cuts) > 0 {
		resp.Body = &cutBody{rc: resp.Body, left: c.cuts[0]}
		c.cuts = c.cuts[1:]
	}
	return resp, nil
}

type cutBody struct {
	rc   io.ReadCloser
	left int
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.rc.Close()
		return 0, errCut
	}
	if len(p) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= n
	return n, err
}

func (b *cutBody) Close() error { return b.rc.Close() }

// anthFrames reads a response's frames through NewFrameReaderOptions,
// each as its value's bytes.
func anthFrames(t testing.TB, resp *http.Response, api bridge.API, opts anthclient.ResumeOptions) ([]string, error) {
	fr, err := anthclient.NewFrameReaderOptions(resp, api, opts)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out []string
	for {
		f, err := fr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, string(f.AppendValue(nil)))
	}
}

// sseEvent is an event as EventSource dispatches it.
type sseEvent struct{ Name, Data, ID string }

// sseClient reads an event stream as EventSource does: each whole event
// is dispatched, the last id: seen is kept, and a connection that fails
// is reopened with Last-Event-ID, up to tries times. It returns the
// events without their ids.
func sseClient(t testing.TB, c *cutter, req *http.Request, tries int) ([]sseEvent, error) {
	var events []sseEvent
	lastID := ""
	id := ""
	for try := 0; ; try++ {
		resp, err := c.RoundTrip(req)
		if err != nil {
			return events, err
		}
		if resp.StatusCode == http.StatusNoContent && try > 0 {
			// A resume at the end: nothing more (SPEC §13.2), as
			// EventSource takes it.
			resp.Body.Close()
			return events, nil
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return events, &anthclient.StatusError{StatusCode: resp.StatusCode}
		}
		if id == "" {
			id = resp.Header.Get(ResumeIDHeader)
		}
		var buf []byte
		p := make([]byte, 512)
		ended := false
		for !ended {
			n, err := resp.Body.Read(p)
			buf = append(buf, p[:n]...)
			for {
				i := bytes.Index(buf, []byte("\n\n"))
				if i < 0 {
					break
				}
				var ev sseEvent
				for line := range strings.SplitSeq(string(buf[:i]), "\n") {
					k, v, _ := strings.Cut(line, ":")
					v = strings.TrimPrefix(v, " ")
					switch k {
					case "event":
						ev.Name = v
					case "data":
						ev.Data = v
					case "id":
						lastID = v
					}
				}
				buf = buf[i+2:]
				// §7b.4: each encoding draws its own obfuscation string.
				ev.Data = obfuscation.ReplaceAllString(ev.Data, `"obfuscation":""`)
				events = append(events, sseEvent{Name: ev.Name, Data: ev.Data})
			}
			if err != nil {
				// The server ends a response's body cleanly; a cut is an
				// error (a Chat Completions stream may go on after its
				// error event, with [DONE]: no event says "the end").
				ended = err == io.EOF
				break
			}
		}
		resp.Body.Close()
		if ended {
			return events, nil
		}
		if try == tries || id == "" {
			return events, errors.New("cut, not resumed")
		}
		req = req.Clone(context.Background())
		req.Method, req.Body, req.GetBody, req.ContentLength = http.MethodGet, nil, nil, 0
		req.Header.Del("Content-Type")
		req.Header.Set(ResumeIDHeader, id)
		req.Header.Set(LastEventIDHeader, lastID)
	}
}

var obfuscation = regexp.MustCompile(`"obfuscation":"[A-Za-z0-9]*"`)

// uncut is one response read whole: its body's length on the wire and
// what its client ends with.
type uncut struct {
	size   int
	frames []string   // ANTH wires
	events []sseEvent // the event stream's
}

func readUncut(t testing.TB, gw *httptest.Server, a int, rec, wire int) uncut {
	api, w := resumeAPIs[a], resumeWires[wire]
	req := post(t, gw, api.api.Path(), api.body(rec2name(t, a, rec)), w.accept, w.encoding)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get(ResumeIDHeader) == "" {
		t.Fatalf("%s: no %s", api.name, ResumeIDHeader)
	}
	u := uncut{size: len(body)}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.Request = nil
	if w.name == "sse" {
		u.events, err = sseClient(t, &cutter{cuts: nil}, post(t, gw, api.api.Path(), api.body(rec2name(t, a, rec)), w.accept, w.encoding), 0)
	} else {
		u.frames, err = anthFrames(t, resp, api.api, anthclient.ResumeOptions{})
	}
	if err != nil {
		t.Fatalf("%s %s: %v", api.name, rec2name(t, a, rec), err)
	}
	return u
}

var recNames sync.Map // API index → sorted recording names

func rec2name(t testing.TB, a, rec int) string {
	v, ok := recNames.Load(a)
	if !ok {
		var names []string
		for n := range resumeAPIs[a].recs(t) {
			names = append(names, n)
		}
		sort.Strings(names)
		recNames.Store(a, names)
		v = names
	}
	return v.([]string)[rec]
}

func streamsOf(t testing.TB) map[string][]byte {
	all := map[string][]byte{}
	for _, a := range resumeAPIs {
		for n, b := range a.recs(t) {
			all[n] = b
		}
	}
	return all
}

// readCut reads the response with its bodies cut as cuts say, resuming.
func readCut(t testing.TB, gw *httptest.Server, a, rec, wire int, cuts []int) (uncut, error) {
	api, w := resumeAPIs[a], resumeWires[wire]
	c := &cutter{cuts: cuts}
	req := post(t, gw, api.api.Path(), api.body(rec2name(t, a, rec)), w.accept, w.encoding)
	var got uncut
	var err error
	if w.name == "sse" {
		got.events, err = sseClient(t, c, req, len(cuts)+1)
		return got, err
	}
	resp, err := c.RoundTrip(req)
	if err != nil {
		return got, err
	}
	resp.Request = req
	got.frames, err = anthFrames(t, resp, api.api, anthclient.ResumeOptions{Transport: c, Backoff: time.Microsecond, Tries: len(cuts) + 1})
	return got, err
}

// TestResumeEveryFrameBoundary cuts the first body of every recording of
// both APIs at every frame boundary (and one byte into every frame), for
// an ANTH client: the frames it ends with are the uncut response's, none
// twice, none missing.
func TestResumeEveryFrameBoundary(t *testing.T) {
	gw, _ := resumeGateway(t, &streamUpstream{streams: streamsOf(t)}, GatewayOptions{})
	for a, api := range resumeAPIs {
		n := len(api.recs(t))
		for rec := 0; rec < n; rec++ {
			want := readUncut(t, gw, a, rec, 0)
			offsets := []int{}
			off := len(frame.Magic)
			// The frames' boundaries on the wire, from the frames read.
			body := wireBody(t, gw, a, rec)
			for off < len(body) {
				offsets = append(offsets, off, off+1)
				off += frame.HeaderSize + (int(body[off+1])<<8 | int(body[off+2]))
			}
			offsets = append(offsets, 0, 1, len(frame.Magic)-1)
			for _, cut := range offsets {
				got, err := readCut(t, gw, a, rec, 0, []int{cut})
				if err != nil {
					t.Fatalf("%s %s cut at %d: %v", api.name, rec2name(t, a, rec), cut, err)
				}
				if d := cmp.Diff(want.frames, got.frames); d != "" {
					t.Fatalf("%s %s cut at %d: frames differ (-uncut +resumed):\n%s", api.name, rec2name(t, a, rec), cut, d)
				}
			}
		}
	}
}

// TestResumeEveryEventBoundary cuts the first body of every recording of
// both APIs, for an event-stream client, after every event (and one byte
// into the next): the events it ends with, resumed through Last-Event-ID,
// are the uncut response's.
func TestResumeEveryEventBoundary(t *testing.T) {
	gw, _ := resumeGateway(t, &streamUpstream{streams: streamsOf(t)}, GatewayOptions{})
	for a, api := range resumeAPIs {
		for rec := range len(api.recs(t)) {
			want := readUncut(t, gw, a, rec, 2)
			resp, err := http.DefaultTransport.RoundTrip(post(t, gw, api.api.Path(), api.body(rec2name(t, a, rec)), "text/event-stream", ""))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			cuts := []int{0}
			for off := 0; ; {
				i := bytes.Index(body[off:], []byte("\n\n"))
				if i < 0 {
					break
				}
				off += i + 2
				cuts = append(cuts, off, off+1)
			}
			for _, cut := range cuts {
				got, err := readCut(t, gw, a, rec, 2, []int{cut})
				if err != nil {
					t.Fatalf("%s %s cut at %d: %v", api.name, rec2name(t, a, rec), cut, err)
				}
				if d := cmp.Diff(want.events, got.events); d != "" {
					t.Fatalf("%s %s cut at %d: events differ (-uncut +resumed):\n%s", api.name, rec2name(t, a, rec), cut, d)
				}
			}
		}
	}
}

// wireBody is the ANTH body of a recording as the gateway sends it.
func wireBody(t testing.TB, gw *httptest.Server, a, rec int) []byte {
	api := resumeAPIs[a]
	resp, err := http.DefaultTransport.RoundTrip(post(t, gw, api.api.Path(), api.body(rec2name(t, a, rec)), anthclient.Accept, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestResumeRandomCuts cuts responses of both APIs, for ANTH,
// anth-deflate and event-stream clients, at up to three random byte
// offsets of successive bodies: the client ends with the uncut response's
// frames or events, or a typed error; never a duplicate, a reordering or
// a gap.
func TestResumeRandomCuts(t *testing.T) {
	gw, _ := resumeGateway(t, &streamUpstream{streams: streamsOf(t)}, GatewayOptions{})
	type key struct{ a, rec, wire int }
	var mu sync.Mutex
	cache := map[key]uncut{}
	rapid.Check(t, func(rt *rapid.T) {
		a := rapid.IntRange(0, len(resumeAPIs)-1).Draw(rt, "api")
		rec := rapid.IntRange(0, len(resumeAPIs[a].recs(t))-1).Draw(rt, "recording")
		wire := rapid.IntRange(0, len(resumeWires)-1).Draw(rt, "wire")
		k := key{a, rec, wire}
		mu.Lock()
		want, ok := cache[k]
		mu.Unlock()
		if !ok {
			want = readUncut(t, gw, a, rec, wire)
			mu.Lock()
			cache[k] = want
			mu.Unlock()
		}
		cuts := rapid.SliceOfN(rapid.IntRange(0, want.size), 1, 3).Draw(rt, "cuts")
		got, err := readCut(t, gw, a, rec, wire, cuts)
		if err != nil {
			rt.Fatalf("%s %s %s cuts %v: %v", resumeAPIs[a].name, rec2name(t, a, rec), resumeWires[wire].name, cuts, err)
		}
		if d := cmp.Diff(want, got, cmp.AllowUnexported(uncut{}), cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".size" }, cmp.Ignore())); d != "" {
			rt.Fatalf("%s %s %s cuts %v: differs (-uncut +resumed):\n%s", resumeAPIs[a].name, rec2name(t, a, rec), resumeWires[wire].name, cuts, d)
		}
	})
}

// TestResumeTransport: an SDK reading through Transport, whose
// connections are cut at random offsets, reads the uncut event stream
// (but for chat's obfuscation strings, drawn afresh by each encoding).
func TestResumeTransport(t *testing.T) {
	gw, _ := resumeGateway(t, &streamUpstream{streams: streamsOf(t)}, GatewayOptions{})
	read := func(t testing.TB, a, rec int, cuts []int) (string, error) {
		api := resumeAPIs[a]
		c := &cutter{cuts: cuts}
		client := &http.Client{Transport: &anthclient.Transport{API: api.api, Base: c, Resume: anthclient.ResumeOptions{Backoff: time.Microsecond, Tries: len(cuts) + 1}}}
		resp, err := client.Post(gw.URL+api.api.Path(), "application/json", strings.NewReader(api.body(rec2name(t, a, rec))))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return obfuscation.ReplaceAllString(string(b), `"obfuscation":""`), err
	}
	rapid.Check(t, func(rt *rapid.T) {
		a := rapid.IntRange(0, len(resumeAPIs)-1).Draw(rt, "api")
		rec := rapid.IntRange(0, len(resumeAPIs[a].recs(t))-1).Draw(rt, "recording")
		want, err := read(t, a, rec, nil)
		if err != nil {
			rt.Fatal(err)
		}
		cuts := rapid.SliceOfN(rapid.IntRange(0, 4<<10), 1, 3).Draw(rt, "cuts")
		got, err := read(t, a, rec, cuts)
		if err != nil {
			rt.Fatalf("cuts %v: %v", cuts, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			rt.Fatalf("cuts %v: (-uncut +resumed):\n%s", cuts, d)
		}
	})
}

// resumeOf makes a resumable response of the Messages API read whole and
// returns its ID.
func resumeOf(t *testing.T, gw *httptest.Server, key string) string {
	t.Helper()
	return resumeOfAs(t, gw, key, anthclient.Accept)
}

// resumeOfAs is resumeOf for a client that sends accept.
func resumeOfAs(t *testing.T, gw *httptest.Server, key, accept string) string {
	t.Helper()
	req := post(t, gw, "/v1/messages", resumeAPIs[0].body("layer0-basic.sse"), accept, "")
	req.Header.Set("X-Api-Key", key)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get(ResumeIDHeader)
	if id == "" {
		t.Fatal("no " + ResumeIDHeader)
	}
	return id
}

func resumeGet(t *testing.T, gw *httptest.Server, path, id, key string, h map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, gw.URL+path, nil)
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("Accept", anthclient.Accept)
	req.Header.Set(ResumeIDHeader, id)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// failingStore is a store that cannot be reached.
type failingStore struct{ resume.Store }

func (failingStore) Create(context.Context, resume.ID, resume.Info) error {
	return resume.ErrUnavailable
}
func (failingStore) Follow(context.Context, resume.ID, resume.Owner, int64) (resume.Follower, error) {
	return nil, resume.ErrUnavailable
}

// TestResumeRefused: every resume the gateway cannot serve is an error
// status with the API's error JSON, never an empty success (SPEC §13.2).
func TestResumeRefused(t *testing.T) {
	gw, _ := resumeGateway(t, &streamUpstream{streams: streamsOf(t)}, GatewayOptions{})
	id := resumeOf(t, gw, "key-1")
	_, whole := resumeGet(t, gw, "/v1/messages", id, "key-1", nil)
	size := len(whole) - len(frame.Magic)
	// An event stream's, kept as its events: the last event's id is their
	// length.
	sid := resumeOfAs(t, gw, "key-1", "text/event-stream")
	_, events := resumeGet(t, gw, "/v1/messages", sid, "key-1", map[string]string{"Accept": "text/event-stream"})
	ids := regexp.MustCompile(`(?m)^id:(\d+)$`).FindAllSubmatch(events, -1)
	if len(ids) == 0 {
		t.Fatalf("event stream without ids: %q", events)
	}
	sseSize, _ := strconv.Atoi(string(ids[len(ids)-1][1]))
	sse := func(h map[string]string) map[string]string {
		h["Accept"] = "text/event-stream"
		return h
	}
	for _, c := range []struct {
		name, path, id, key string
		h                   map[string]string
		status              int
	}{
		{"unknown", "/v1/messages", string(resume.NewID()), "key-1", nil, 404},
		{"malformed id", "/v1/messages", "nope", "key-1", nil, 404},
		{"foreign key", "/v1/messages", id, "key-2", nil, 404},
		{"other API", "/v1/chat/completions", id, "key-1", nil, 404},
		{"past the end", "/v1/messages", id, "key-1", map[string]string{ResumeOffsetHeader: strconv.Itoa(size + 1)}, 416},
		{"not a boundary", "/v1/messages", id, "key-1", map[string]string{ResumeOffsetHeader: "1"}, 416},
		{"not a number", "/v1/messages", id, "key-1", map[string]string{ResumeOffsetHeader: "-1"}, 400},
		{"frames as events", "/v1/messages", id, "key-1", sse(map[string]string{}), 404},
		{"events as frames", "/v1/messages", sid, "key-1", nil, 404},
		{"event stream past the end", "/v1/messages", sid, "key-1", sse(map[string]string{LastEventIDHeader: strconv.Itoa(sseSize + 1)}), 416},
		{"event stream off an event", "/v1/messages", sid, "key-1", sse(map[string]string{LastEventIDHeader: "1"}), 416},
		{"event stream bad id", "/v1/messages", sid, "key-1", sse(map[string]string{LastEventIDHeader: "1.0"}), 400},
		{"event stream at the end", "/v1/messages", sid, "key-1", sse(map[string]string{LastEventIDHeader: strconv.Itoa(sseSize)}), 204},
		{"at the end", "/v1/messages", id, "key-1", map[string]string{ResumeOffsetHeader: strconv.Itoa(size)}, 200},
	} {
		resp, body := resumeGet(t, gw, c.path, c.id, c.key, c.h)
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, resp.StatusCode, c.status, body)
			continue
		}
		if c.status == 200 {
			if string(body) != frame.Magic {
				t.Errorf("%s: body %q, want the magic alone", c.name, body)
			}
			continue
		}
		if c.status == 204 {
			if len(body) != 0 {
				t.Errorf("%s: body %q, want none", c.name, body)
			}
			continue
		}
		api, _ := NewGateway(messages.API{}, GatewayOptions{}, chat.API{}).APIFor(c.path)
		if typ, _, ok := api.ParseError(body); !ok || typ == "" {
			t.Errorf("%s: body %q is not the API's error", c.name, body)
		}
	}

	// Expired, and dropped for its size.
	gw2, _ := resumeGateway(t, &streamUpstream{streams: streamsOf(t)}, GatewayOptions{ResumeTTL: 20 * time.Millisecond})
	id = resumeOf(t, gw2, "key-1")
	time.Sleep(60 * time.Millisecond)
	if resp, body := resumeGet(t, gw2, "/v1/messages", id, "key-1", nil); resp.StatusCode != 404 {
		t.Errorf("expired: status %d: %s", resp.StatusCode, body)
	}
	gw3, _ := resumeGateway(t, &streamUpstream{streams: streamsOf(t)}, GatewayOptions{ResumeMaxBytes: 64})
	id = resumeOf(t, gw3, "key-1")
	if resp, body := resumeGet(t, gw3, "/v1/messages", id, "key-1", nil); resp.StatusCode != 410 {
		t.Errorf("dropped: status %d: %s", resp.StatusCode, body)
	}

	// A store that cannot be reached: the stream is served, unresumable;
	// a resume is 503.
	gw4, _ := resumeGateway(t, &streamUpstream{streams: streamsOf(t)}, GatewayOptions{Resume: failingStore{}})
	resp, err := http.DefaultTransport.RoundTrip(post(t, gw4, "/v1/messages", resumeAPIs[0].body("layer0-basic.sse"), anthclient.Accept, ""))
	if err != nil {
		t.Fatal(err)
	}
	frames, err := anthFrames(t, resp, messages.API{}, anthclient.ResumeOptions{})
	if err != nil || len(frames) == 0 || resp.Header.Get(ResumeIDHeader) != "" {
		t.Errorf("store down: %d frames, %v, %s %q", len(frames), err, ResumeIDHeader, resp.Header.Get(ResumeIDHeader))
	}
	if resp, body := resumeGet(t, gw4, "/v1/messages", string(resume.NewID()), "key-1", nil); resp.StatusCode != 503 {
		t.Errorf("store down: status %d: %s", resp.StatusCode, body)
	}
}

// TestResumeFailsTyped: a client whose response was cut and whose resume
// is refused reads ErrTruncated, wrapping the refusal.
func TestResumeFailsTyped(t *testing.T) {
	gw, _ := resumeGateway(t, &streamUpstream{streams: streamsOf(t)}, GatewayOptions{ResumeMaxBytes: 64})
	c := &cutter{cuts: []int{30}}
	req := post(t, gw, "/v1/messages", resumeAPIs[0].body("layer0-basic.sse"), anthclient.Accept, "")
	resp, err := c.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Request = req
	_, err = anthFrames(t, resp, messages.API{}, anthclient.ResumeOptions{Transport: c, Backoff: time.Microsecond})
	var se *anthclient.StatusError
	var e *Error
	if !errors.Is(err, ErrTruncated) || !errors.As(err, &se) || se.StatusCode != 410 || !errors.As(err, &e) || e.Offset < 0 {
		t.Fatalf("got %v, want ErrTruncated wrapping a 410 StatusError, with an offset", err)
	}
	// The stream and a resume answered 410, which is not retried; or,
	// when the resume came before the tail grew past its bound, a resume
	// cut when it did, then the 410.
	if n := len(c.reqs); n != 2 && n != 3 {
		t.Errorf("%d requests, want the stream and one or two resumes", n)
	}
}

// TestResumeTwoAtOnce: two clients resuming the same response at once,
// while it is still being generated, both read its whole rest.
func TestResumeTwoAtOnce(t *testing.T) {
	up := &streamUpstream{streams: streamsOf(t), hold: 3, gate: make(chan struct{})}
	gw, _ := resumeGateway(t, up, GatewayOptions{})
	close(up.gate)
	want := readUncut(t, gw, 0, 0, 0)
	up.gate = make(chan struct{})

	resp, err := http.DefaultTransport.RoundTrip(post(t, gw, "/v1/messages", resumeAPIs[0].body(rec2name(t, 0, 0)), anthclient.Accept, ""))
	if err != nil {
		t.Fatal(err)
	}
	id := resp.Header.Get(ResumeIDHeader)
	resp.Body.Close() // the client leaves at once
	var wg sync.WaitGroup
	got := make([][]string, 2)
	errs := make([]error, 2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodGet, gw.URL+"/v1/messages", nil)
			req.Header.Set("X-Api-Key", "key-1")
			req.Header.Set("Accept", anthclient.Accept)
			req.Header.Set(ResumeIDHeader, id)
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				errs[i] = err
				return
			}
			resp.Request = req
			got[i], errs[i] = anthFrames(t, resp, messages.API{}, anthclient.ResumeOptions{})
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(up.gate)
	wg.Wait()
	for i := range got {
		if errs[i] != nil {
			t.Fatalf("client %d: %v", i, errs[i])
		}
		if d := cmp.Diff(want.frames, got[i]); d != "" {
			t.Errorf("client %d (-uncut +resumed):\n%s", i, d)
		}
	}
}

// TestResumeGrace: a client that leaves and comes back within the grace
// period reads the whole response; with nobody back after it, the
// upstream request is cancelled (its context ends).
func TestResumeGrace(t *testing.T) {
	t.Run("back in time", func(t *testing.T) {
		up := &streamUpstream{streams: streamsOf(t), hold: 3, gate: make(chan struct{})}
		gw, _ := resumeGateway(t, up, GatewayOptions{ResumeGrace: 10 * time.Second})
		close(up.gate)
		want := readUncut(t, gw, 0, 0, 0)
		up.gate = make(chan struct{})
		c := &cutter{cuts: []int{10}}
		req := post(t, gw, "/v1/messages", resumeAPIs[0].body(rec2name(t, 0, 0)), anthclient.Accept, "")
		resp, err := c.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Request = req
		// The client is gone before the upstream goes on, and comes
		// back after 100ms of backoff.
		time.AfterFunc(50*time.Millisecond, func() { close(up.gate) })
		got, err := anthFrames(t, resp, messages.API{}, anthclient.ResumeOptions{Transport: c, Backoff: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want.frames, got); d != "" {
			t.Errorf("(-uncut +resumed):\n%s", d)
		}
		if n := up.cancelled.Load(); n != 0 {
			t.Errorf("%d upstream requests cancelled", n)
		}
	})
	t.Run("nobody back", func(t *testing.T) {
		up := &streamUpstream{streams: streamsOf(t), hold: 3, gate: make(chan struct{}), done: make(chan struct{})}
		gw, _ := resumeGateway(t, up, GatewayOptions{ResumeGrace: 50 * time.Millisecond})
		t.Cleanup(func() { close(up.gate) }) // before the servers close, should the upstream still wait
		resp, err := http.DefaultTransport.RoundTrip(post(t, gw, "/v1/messages", resumeAPIs[0].body(rec2name(t, 0, 0)), anthclient.Accept, ""))
		if err != nil {
			t.Fatal(err)
		}
		id := resp.Header.Get(ResumeIDHeader)
		resp.Body.Close()
		left := time.Now()
		select {
		case <-up.done:
			if d := time.Since(left); d < 50*time.Millisecond {
				t.Errorf("upstream cancelled after %v, before the grace period", d)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the upstream was not cancelled")
		}
		// What was kept ends with the gateway's ERROR, so a late resume
		// ends rather than waits.
		_, body := resumeGet(t, gw, "/v1/messages", id, "key-1", nil)
		fs, err := readFrames(&http.Response{Body: io.NopCloser(bytes.NewReader(body)), Header: http.Header{"Content-Type": {ContentType}}, StatusCode: 200})
		if err != nil || len(fs) == 0 || fs[len(fs)-1].Type != frame.TypeError {
			t.Errorf("late resume: %d frames, %v; want an ERROR last", len(fs), err)
		}
	})
}

// TestResumeLogAndCORS: a kept response's log line names its resume ID,
// a resume's its ID and cursor; a page may read the ID.
func TestResumeLogAndCORS(t *testing.T) {
	var logs syncBuffer
	gw, _ := resumeGateway(t, &streamUpstream{streams: streamsOf(t)}, GatewayOptions{Logger: jsonLogger(&logs), CORSOrigins: []string{"*"}})
	req := post(t, gw, "/v1/messages", resumeAPIs[0].body("layer0-basic.sse"), anthclient.Accept, "")
	req.Header.Set("Origin", "https://app.example")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get(ResumeIDHeader)
	if eh := resp.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(eh, ResumeIDHeader) {
		t.Errorf("Access-Control-Expose-Headers %q", eh)
	}
	resumeGet(t, gw, "/v1/messages", id, "key-1", map[string]string{ResumeOffsetHeader: "0"})
	gw.Close() // the log lines are written
	var lines []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 || lines[0]["resume_id"] != id || lines[1]["resume_id"] != id || lines[1]["resume_from"] != 0.0 || lines[1]["method"] != "GET" || lines[1]["end"] != "done" {
		t.Errorf("log lines %v", lines)
	}
}

// syncBuffer is a bytes.Buffer safe for the log's writes from handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// maxWriter is a flushing ResponseWriter that keeps its largest write.
type maxWriter struct {
	countingDiscard
	max int
}

func (w *maxWriter) Write(p []byte) (int, error) {
	w.max = max(w.max, len(p))
	return w.countingDiscard.Write(p)
}

// TestResumeWritesBounded: a resume from 0 of a tail of 4 MiB, which the
// store gives as one chunk, is written in writes of at most 32 KiB and a
// frame or an event (SPEC §13.4), for an ANTH and an event-stream client.
func TestResumeWritesBounded(t *testing.T) {
	store := resume.NewMemory(resume.MemoryOptions{})
	defer store.Close()
	gw := NewGateway(messages.API{}, GatewayOptions{Upstream: &url.URL{Scheme: "http", Host: "upstream.test"}, Resume: store})
	req := httptest.NewRequest(http.MethodGet, "/v1/messages", nil)
	req.Header.Set("X-Api-Key", "key-1")
	ctx := context.Background()
	text := bytes.Repeat([]byte("a"), frame.MaxPayload-2)
	for _, c := range []struct {
		accept string
		w      Wire
		item   []byte // one frame, or one event, of the tail
	}{
		{anthclient.Accept, WireANTH, frame.AppendText(nil, 0, text)},
		// Short token frames have no length field (SPEC.md §2): the
		// tail is walked by their types.
		{anthclient.Accept, WireANTH, frame.AppendShortToken(frame.AppendShortToken(frame.AppendShortToken(nil, 42), 200018), 0x0A00)},
		{"text/event-stream", WireStream, sse.AppendEvent(nil, []byte("content_block_delta"), []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`+string(text)+`"}}`))},
	} {
		id := resume.NewID()
		if err := store.Create(ctx, id, resume.Info{Owner: CredentialsOf(req, messages.API{}, c.w), API: "/v1/messages", TTL: time.Minute}); err != nil {
			t.Fatal(err)
		}
		var tail []byte
		for len(tail) < 4<<20 {
			tail = append(tail, c.item...)
		}
		if err := store.Append(ctx, id, tail, true); err != nil {
			t.Fatal(err)
		}
		r := req.Clone(ctx)
		r.Header.Set("Accept", c.accept)
		r.Header.Set(ResumeIDHeader, string(id))
		w := &maxWriter{countingDiscard: countingDiscard{h: http.Header{}}}
		gw.ServeHTTP(w, r)
		if w.n < int64(len(tail)) {
			t.Fatalf("%s: %d bytes written of a tail of %d", c.accept, w.n, len(tail))
		}
		// An event's id: adds under 20 bytes.
		if limit := MaxGather + len(c.item) + 20; w.max > limit {
			t.Errorf("%s: a write of %d bytes, over %d", c.accept, w.max, limit)
		}
	}
}

// TestResumeEventIDsUntilDropped: an event-stream client of a response
// whose tail is dropped mid-stream (ResumeMaxBytes) reads every event of
// the response, as a gateway that keeps nothing relays them; those of the
// writes kept each with its id:, the offset after it in the kept events
// (SPEC §13.3), and from the write that failed on none (the response is
// no longer resumable).
func TestResumeEventIDsUntilDropped(t *testing.T) {
	up := &streamUpstream{streams: streamsOf(t)}
	upstream := httptest.NewServer(up)
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	plain := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u}, chat.API{}))
	defer plain.Close()
	idLine := regexp.MustCompile(`(?m)^id:(\d+)\n`)
	var withIDs, dropped int // recordings
	for a, api := range resumeAPIs {
		for rec := range len(api.recs(t)) {
			name := rec2name(t, a, rec)
			body := func(gw *httptest.Server) []byte {
				resp, err := http.DefaultTransport.RoundTrip(post(t, gw, api.api.Path(), api.body(name), "text/event-stream", ""))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return b
			}
			want := body(plain)
			// Dropped after about half of the response.
			bound := len(want) / 2
			gw, _ := resumeGateway(t, up, GatewayOptions{ResumeMaxBytes: int64(bound)})
			got := body(gw)
			if d := cmp.Diff(string(want), idLine.ReplaceAllString(string(got), "")); d != "" {
				t.Fatalf("%s: the events without their ids differ from a plain relay's (-plain +kept):\n%s", name, d)
			}
			var kept, ids, bare int
			for ev := range bytes.SplitAfterSeq(got, []byte("\n\n")) {
				m := idLine.FindSubmatch(ev)
				kept += len(ev) - len(m0(m))
				switch {
				case m == nil:
					bare++
				case bare > 0:
					t.Fatalf("%s: an event with an id after one without: %q", name, ev)
				case string(m[1]) != strconv.Itoa(kept):
					t.Fatalf("%s: id %s, want %d, the offset after the event: %q", name, m[1], kept, ev)
				case kept > bound:
					t.Fatalf("%s: id %s, past the %d bytes the tail may keep: an event not kept", name, m[1], bound)
				default:
					ids++
				}
			}
			if ids > 0 {
				withIDs++
			}
			if bare > 0 {
				dropped++
			}
		}
	}
	// A write may be over the bound: then none of its events has an id.
	if withIDs == 0 || dropped == 0 {
		t.Fatalf("%d recordings with ids, %d dropped; want some of each", withIDs, dropped)
	}
}

// m0 is a regexp match's whole, or nil.
func m0(m [][]byte) []byte {
	if m == nil {
		return nil
	}
	return m[0]
}

// TestResumeKeepFailureRecorded: a response whose tail the store stops
// keeping partway (here, past ResumeMaxBytes; as well, evicted by the
// store's bound, or the store gone) streams on whole, and its Record, so
// its log line and anth proxy's metrics, says why it is no longer
// resumable, as for one whose tail could not be created: an operator
// whose store is too small for the streams in flight sees it.
func TestResumeKeepFailureRecorded(t *testing.T) {
	streams := streamsOf(t)
	for _, w := range resumeWires {
		t.Run(w.name, func(t *testing.T) {
			var rec Record
			up, _ := url.Parse("http://upstream.test")
			store := resume.NewMemory(resume.MemoryOptions{})
			defer store.Close()
			gw := NewGateway(messages.API{}, GatewayOptions{Upstream: up, Transport: &memTransport{body: streams["layer0-basic.sse"]},
				Resume: store, ResumeMaxBytes: 64, Observer: observerFunc(func(r *Record) { rec = *r })})
			rr := httptest.NewRecorder()
			gw.ServeHTTP(rr, w.request())
			if rr.Code != 200 || rr.Header().Get(ResumeIDHeader) == "" {
				t.Fatalf("status %d, %s %q: want a resumable 200", rr.Code, ResumeIDHeader, rr.Header().Get(ResumeIDHeader))
			}
			if rec.End != EndDone {
				t.Errorf("the stream ends %v (%v), want it whole", rec.End, rec.Err)
			}
			if !errors.Is(rec.ResumeErr, resume.ErrTooLarge) {
				t.Errorf("Record.ResumeErr %v, want resume.ErrTooLarge", rec.ResumeErr)
			}
		})
	}
}
