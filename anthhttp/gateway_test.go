package anthhttp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/request"
)

// recordingUpstream is a Messages API stand-in: it records what it
// receives and answers POST /v1/messages with a recording as SSE, or as
// JSON when the request does not ask for a stream.
type recordingUpstream struct {
	mu       sync.Mutex
	bodies   [][]byte
	headers  []http.Header
	paths    []string
	response []byte
}

func (u *recordingUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.bodies, u.headers, u.paths = append(u.bodies, body), append(u.headers, r.Header.Clone()), append(u.paths, r.URL.Path)
	u.mu.Unlock()
	switch {
	case r.URL.Path == "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":[{"id":"claude-test"}]}`)
	case r.URL.Path != "/v1/messages":
		http.NotFound(w, r)
	case bytes.Contains(body, []byte(`"fail"`)):
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(529)
		io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	case !bytes.Contains(body, []byte(`"stream":true`)):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","content":[]}`)
	default:
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(u.response)
	}
}

// TestGateway: the gateway forwards JSON or ANTH requests upstream as the
// same JSON, with the caller's headers, and answers with the upstream's
// stream as ANTH or SSE; other paths and responses pass through.
func TestGateway(t *testing.T) {
	up := &recordingUpstream{response: testdata.SSE(t)["layer0-basic.sse"]}
	upstream := httptest.NewServer(up)
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	var logs bytes.Buffer
	gw := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u, Logger: jsonLogger(&logs)}))
	defer gw.Close()

	body := `{"model":"claude-test","max_tokens":64,"stream":true,"temperature":0.5,"messages":[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral"}}]}]}`
	want := testdata.EventsJSON(t, up.response)
	for _, c := range []struct{ ct, accept string }{{"application/json", "text/event-stream"}, {ContentType, "text/event-stream"}, {"application/json", anthclient.Accept}, {ContentType, anthclient.Accept}} {
		reqBody := []byte(body)
		if c.ct == ContentType {
			reqBody, _ = request.AppendANTH(nil, reqBody)
		}
		req, _ := http.NewRequest("POST", gw.URL+"/v1/messages", bytes.NewReader(reqBody))
		req.Header.Set("Content-Type", c.ct)
		req.Header.Set("Accept", c.accept)
		req.Header.Set("X-Api-Key", "sk-secret-key")
		req.Header.Set("Anthropic-Version", "2023-06-01")
		req.Header.Set("Anthropic-Beta", "b1")
		req.Header.Set("X-Other", "forwarded, as any end-to-end header is")
		resp, err := gw.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := readFrames(resp)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s → %s: %v", c.ct, c.accept, err)
		}
		var sse bytes.Buffer
		e := messages.NewEncoder(&sse, messages.EncoderOptions{})
		for _, f := range fs {
			e.WriteFrame(f)
		}
		if d := cmp.Diff(want, testdata.EventsJSON(t, sse.Bytes())); d != "" {
			t.Errorf("%s → %s: events differ:\n%s", c.ct, c.accept, d)
		}
		up.mu.Lock()
		got, h := up.bodies[len(up.bodies)-1], up.headers[len(up.headers)-1]
		up.mu.Unlock()
		if !jsonlex.Same(got, []byte(body)) {
			t.Errorf("%s: upstream got %s, want %s", c.ct, got, body)
		}
		if h.Get("X-Api-Key") != "sk-secret-key" || h.Get("Anthropic-Version") != "2023-06-01" || h.Get("Anthropic-Beta") != "b1" || h.Get("X-Other") == "" || h.Get("Content-Type") != "application/json" {
			t.Errorf("%s: upstream got headers %v", c.ct, h)
		}
	}
	// Not a stream, an error, another path: passed through.
	for path, c := range map[string]struct {
		body   string
		status int
		has    string
	}{
		"/v1/messages": {`{"model":"m","stream":false}`, 200, `"msg_1"`},
		"/v1/models":   {"", 200, "claude-test"},
		"/v1/nothing":  {"", 404, "not found"},
	} {
		resp, err := gw.Client().Post(gw.URL+path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !bytes.Contains(got, []byte(c.has)) {
			t.Errorf("%s: %d %s", path, resp.StatusCode, got)
		}
	}
	resp, _ := gw.Client().Post(gw.URL+"/v1/messages", "application/json", strings.NewReader(`{"model":"fail","stream":true}`))
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 529 || !bytes.Contains(got, []byte("overloaded_error")) {
		t.Errorf("an upstream error: %d %s", resp.StatusCode, got)
	}
	resp, _ = gw.Client().Post(gw.URL+"/v1/messages", ContentType, strings.NewReader("ANTX\x01garbage"))
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("a bad ANTH request: %d, want 400", resp.StatusCode)
	}
	var posts, anth int
	for _, l := range logLines(t, &logs) {
		if l["method"] == "POST" && l["path"] == "/v1/messages" {
			posts++
		}
		if l["kind"] == KindANTH {
			anth++
		}
	}
	if bytes.Contains(logs.Bytes(), []byte("sk-secret-key")) || posts < 6 || anth == 0 {
		t.Errorf("access log:\n%s", logs.String())
	}
	var js map[string]any
	if json.Unmarshal(got, &js) != nil {
		t.Errorf("the upstream's error body is not passed through whole: %s", got)
	}
}

// TestReadRequestBody: the media types a request may have, the size limit
// exactly, and a Content-Length that lies.
func TestReadRequestBody(t *testing.T) {
	body := `{"model":"m","stream":true}`
	anth, _ := request.AppendANTH(nil, []byte(body))
	for _, c := range []struct {
		name, ct string
		body     []byte
		length   int64 // Content-Length; 0 for the body's
		limit    int
		kind     error
		at       int64
	}{
		{"no Content-Type", "", []byte(body), 0, 0, nil, 0},
		{"JSON", "application/json; charset=utf-8", []byte(body), 0, 0, nil, 0},
		{"ANTH", ContentType, anth, 0, 0, nil, 0},
		{"text", "text/plain", []byte(body), 0, 0, ErrMediaType, -1},
		{"JSON at the limit", "application/json", []byte(body), 0, len(body), nil, 0},
		{"JSON over the limit", "application/json", []byte(body), 0, len(body) - 1, ErrTooLarge, int64(len(body) - 1)},
		{"ANTH at the limit", ContentType, anth, 0, len(anth), nil, 0},
		{"a length that lies high", "application/json", []byte(body), 1 << 50, 0, nil, 0},
		{"a length unknown", "application/json", []byte(body), -1, 0, nil, 0},
		{"a length over the limit", "application/json", []byte(body), 1000, 100, nil, 0},
	} {
		r := httptest.NewRequest("POST", "/v1/messages", bytes.NewReader(c.body))
		if c.ct != "" {
			r.Header.Set("Content-Type", c.ct)
		}
		if c.length != 0 {
			r.ContentLength = c.length
		}
		got, err := ReadRequestBody(r, messages.API{}, c.limit)
		var e *Error
		switch {
		case c.kind == nil && (err != nil || !jsonlex.Same(got, []byte(body))):
			t.Errorf("%s: %s, %v", c.name, got, err)
		case c.kind != nil && (!errors.Is(err, c.kind) || !errors.As(err, &e) || e.Offset != c.at):
			t.Errorf("%s: %v, want %v at %d", c.name, err, c.kind, c.at)
		}
	}
}

// stubTransport answers every request with an SSE body, keeping the last
// request.
type stubTransport struct {
	mu   sync.Mutex
	last *http.Request
	body []byte
}

func (s *stubTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.last = r
	s.mu.Unlock()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}, "Connection": {"close"}, "X-Upstream": {"1"}},
		Body: io.NopCloser(bytes.NewReader(s.body))}, nil
}

// TestGatewayForwarding: the gateway sends upstream every end-to-end
// header of the caller's (credentials, version, every beta, the SDK's
// User-Agent and x-stainless-*), none of the hop-by-hop ones (RFC 9110
// §7.6.1), and the JSON it now carries; copies the response's headers but
// a hop's; logs each request's
// status and kind, and an upstream failure, with or without a log.
func TestGatewayForwarding(t *testing.T) {
	rec := testdata.SSE(t)["layer0-basic.sse"]
	cut := rec[:len(rec)/2]
	u, _ := url.Parse("http://upstream.test")
	for _, c := range []struct {
		name    string
		body    []byte
		headers http.Header
		log     bool
	}{
		{"whole, key", rec, http.Header{"X-Api-Key": {"k"}, "Anthropic-Beta": {"b1", "b2"}, "User-Agent": {"Anthropic/Go 1.0"}, "X-Stainless-Lang": {"go"}, "Request-Id": {"r1"}}, true},
		{"whole, bearer", rec, http.Header{"Authorization": {"Bearer t"}, "Anthropic-Version": {"2023-06-01"}}, true},
		{"cut, logged", cut, http.Header{}, true},
		{"cut, no log", cut, http.Header{}, false},
	} {
		stub := &stubTransport{body: c.body}
		var logs bytes.Buffer
		opts := GatewayOptions{Upstream: u, Transport: stub}
		if c.log {
			opts.Logger = jsonLogger(&logs)
		}
		gw := httptest.NewServer(NewGateway(messages.API{}, opts))
		req, _ := http.NewRequest("POST", gw.URL+"/v1/messages", strings.NewReader(`{"model":"m","stream":true}`))
		for k, v := range c.headers {
			req.Header[k] = v
		}
		req.Header.Set("Accept", anthclient.Accept)
		req.Header.Set("Connection", "X-Hop")
		req.Header.Set("X-Hop", "secret")
		req.Header.Set("Te", "gzip") // "trailers" alone goes on, as ReverseProxy keeps it for gRPC
		req.Header.Set("Proxy-Authorization", "Basic eA==")
		resp, err := gw.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := readFrames(resp)
		resp.Body.Close()
		gw.Close()
		if err != nil || len(fs) == 0 {
			t.Fatalf("%s: %v", c.name, err)
		}
		if resp.Header.Get("X-Upstream") != "1" || resp.Header.Get("Connection") == "close" {
			t.Errorf("%s: response headers %v", c.name, resp.Header)
		}
		stub.mu.Lock()
		up := stub.last
		stub.mu.Unlock()
		for h, want := range c.headers {
			if got := up.Header[h]; !cmp.Equal(got, want) {
				t.Errorf("%s: upstream %s %q, want %q", c.name, h, got, want)
			}
		}
		// RFC 9110 §7.6.1: no hop-by-hop header goes on, nor one that
		// Connection names.
		for _, h := range []string{"Connection", "X-Hop", "Te", "Proxy-Authorization", "Keep-Alive", "Upgrade"} {
			if v, ok := up.Header[h]; ok {
				t.Errorf("%s: upstream got the hop-by-hop %s %q", c.name, h, v)
			}
		}
		if ct, acc := up.Header.Get("Content-Type"), up.Header.Get("Accept"); ct != "application/json" || acc != "text/event-stream, application/json" {
			t.Errorf("%s: upstream Content-Type %q, Accept %q", c.name, ct, acc)
		}
		last := fs[len(fs)-1]
		var lines []map[string]any
		if c.log {
			lines = logLines(t, &logs)
		}
		if bytes.Equal(c.body, cut) {
			if code, _, err := last.ErrorMessage(); err != nil || code != frame.CodeAPI {
				t.Errorf("%s: the stream ends with %v", c.name, last.Type)
			}
			if c.log && (len(lines) != 1 || lines[0]["status"] != 200.0 || lines[0]["kind"] != KindANTH || lines[0]["end"] != "error" || lines[0]["fault"] != string(FaultTruncated) || !strings.Contains(fmt.Sprint(lines[0]["error"]), "upstream")) {
				t.Errorf("%s: log %q", c.name, lines)
			}
			continue
		}
		if c.log && (len(lines) != 1 || lines[0]["method"] != "POST" || lines[0]["path"] != "/v1/messages" || lines[0]["status"] != 200.0 || lines[0]["kind"] != KindANTH || lines[0]["in"] != 27.0 || lines[0]["end"] != "done") {
			t.Errorf("%s: log %q", c.name, lines)
		}
	}
}

// TestGatewayLogStatus: the log names the status a response had, set by
// WriteHeader or by the first Write.
func TestGatewayLogStatus(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/teapot":
			w.WriteHeader(418)
			io.WriteString(w, "short and stout")
		case "/created":
			w.WriteHeader(201)
		default:
			io.WriteString(w, "ok")
		}
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	var logs bytes.Buffer
	gw := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u, Logger: jsonLogger(&logs)}))
	defer gw.Close()
	for _, path := range []string{"/teapot", "/created", "/plain"} {
		resp, err := gw.Client().Get(gw.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	resp, _ := gw.Client().Post(gw.URL+"/v1/messages", "text/plain", strings.NewReader("x"))
	resp.Body.Close()
	type line struct {
		Method, Path, Kind string
		Status             int
		In, Out            int64
	}
	want := []line{{"GET", "/teapot", KindProxy, 418, 0, 15}, {"GET", "/created", KindProxy, 201, 0, 0}, {"GET", "/plain", KindProxy, 200, 0, 2}, {"POST", "/v1/messages", KindJSON, 400, 0, -1}}
	lines := logLines(t, &logs)
	for i, w := range want {
		if i >= len(lines) {
			t.Fatalf("%d log lines, want %d", len(lines), len(want))
		}
		l := lines[i]
		got := line{fmt.Sprint(l["method"]), fmt.Sprint(l["path"]), fmt.Sprint(l["kind"]), int(l["status"].(float64)), int64(l["in"].(float64)), int64(l["out"].(float64))}
		if w.Out < 0 {
			w.Out = got.Out
		}
		if got != w {
			t.Errorf("log line %d: %+v, want %+v", i, got, w)
		}
	}
	if resp.StatusCode != 400 {
		t.Errorf("a text/plain request: %d", resp.StatusCode)
	}
}

// failingTransport cannot reach the upstream.
type failingTransport struct{}

func (failingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("connection refused")
}

// TestGatewayErrors: the gateway's own errors are the API's JSON errors,
// of the type their status stands for: a request it will not read, one
// too large, an upstream it cannot reach.
func TestGatewayErrors(t *testing.T) {
	u, _ := url.Parse("http://upstream.test")
	gw := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u, Transport: failingTransport{}, MaxRequestSize: 64}))
	defer gw.Close()
	for _, c := range []struct {
		ct, body string
		status   int
		typ      string
	}{
		{"text/plain", "{}", 400, "invalid_request_error"},
		{"application/json", `{"model":"` + strings.Repeat("m", 64) + `"}`, 413, "request_too_large"},
		{"application/json", `{"model":"m","stream":true}`, 502, "api_error"},
	} {
		resp, err := gw.Client().Post(gw.URL+"/v1/messages", c.ct, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		typ, _, _ := messages.API{}.ParseError(body)
		if resp.StatusCode != c.status || typ != c.typ || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: %d %q, want %d %q", c.ct, c.body, resp.StatusCode, typ, c.status, c.typ)
		}
	}
}

// trickle is a request body that sends n bytes, one per Read, whatever
// its Content-Length says: a slow client, or one whose length lies.
type trickle struct{ n int }

func (t *trickle) Read(p []byte) (int, error) {
	if t.n == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	t.n--
	p[0] = ' '
	return 1, nil
}

func (t *trickle) Close() error { return nil }

// TestReadRequestBodyHeldPerByteReceived: the memory ReadRequestBody takes
// follows the bytes received, not the Content-Length declared: a client that
// declares 32 MiB and sends a few bytes costs a few KiB (it cost 32 MiB
// before any byte arrived).
func TestReadRequestBodyHeldPerByteReceived(t *testing.T) {
	for _, n := range []int{0, 1, 100, 4096, 100_000, 1 << 20} {
		r := httptest.NewRequest("POST", "/v1/messages", nil)
		r.Header.Set("Content-Type", "application/json")
		r.Body, r.ContentLength = &trickle{n: n}, 32<<20
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := ReadRequestBody(r, messages.API{}, 0)
		runtime.ReadMemStats(&after)
		if err != nil || len(got) != n {
			t.Fatalf("%d bytes: %d bytes back, %v", n, len(got), err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%d bytes received: %d held, %d allocated", n, cap(got), alloc)
		if held, bound := cap(got), maxBodyHeld(n); held > bound {
			t.Errorf("%d bytes received: %d bytes held, want at most %d", n, held, bound)
		}
		bound := uint64(2*maxBodyHeld(n)) + 4<<10
		if RaceEnabled {
			// Under the race detector bytes.Buffer's growth allocates
			// about twice as much (1 MiB received: 8.4 MB, 4.2 MB
			// without it); what is held is the same.
			bound *= 2
		}
		if alloc > bound {
			t.Errorf("%d bytes received: %d bytes allocated, want at most %d", n, alloc, bound)
		}
	}
}

// maxBodyHeld is the bound ReadRequestBody's godoc states for n bytes
// received: twice them and 1 KiB, and the allocator's rounding of that to a
// size class (at most 1/8 more, or an 8 KiB page).
func maxBodyHeld(n int) int {
	b := 2*n + 1<<10
	return b + max(b/8, 8<<10)
}

// TestGatewayBodyTimeout: a request whose body stalls gets 408 and its
// connection closed after BodyTimeout; before, nothing closed it.
func TestGatewayBodyTimeout(t *testing.T) {
	u, _ := url.Parse("http://upstream.test")
	gw := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u, Transport: failingTransport{}, BodyTimeout: 200 * time.Millisecond}))
	defer gw.Close()
	for _, path := range []string{"/v1/messages", "/v1/files"} {
		c, err := net.Dial("tcp", gw.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, err := io.ReadAll(c) // until the server closes the connection
		c.Close()
		if err != nil {
			t.Fatalf("%s: a stalled body was still open after 5 s (%v); read %q", path, err, got)
		}
		if path == "/v1/messages" && !bytes.HasPrefix(got, []byte("HTTP/1.1 408 ")) {
			t.Errorf("%s: %q, want 408", path, got)
		}
	}
}

// jsonLogger is a Gateway's Logger writing JSON lines to w.
func jsonLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

// logLines reads the JSON lines of jsonLogger.
func logLines(t *testing.T, logs *bytes.Buffer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for l := range strings.Lines(logs.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}
