package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/redistest"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/request"
	"github.com/layer0/anth/vocab"
)

// proxyProc is a running anth proxy, started by startProxy with
// --log-format json (or ANTH_LOG_FORMAT=json).
type proxyProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	addr    string // where it serves the API
	metrics string // where it serves /metrics, "" if nowhere
	lines   chan map[string]any
	mu      sync.Mutex
	log     strings.Builder // every line, for failure messages
	exited  chan struct{}   // standard error closed
}

// logWait bounds each wait for a log line or an exit: long enough for a
// loaded CI machine, and never the reason a test passes.
const logWait = 10 * time.Second

// testClient is the tests' client: a proxy that fails to end a request
// fails the test after logWait rather than hanging it.
var testClient = &http.Client{Timeout: logWait}

// startProxy starts the built anth proxy with args and, beside the
// process's own environment, env; it returns once the proxy says where it
// listens. The proxy is killed when the test ends.
func startProxy(t *testing.T, env []string, args ...string) *proxyProc {
	t.Helper()
	cmd := exec.Command(anthBin, append([]string{"proxy"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proxyProc{t: t, cmd: cmd, lines: make(chan map[string]any, 1000), exited: make(chan struct{})}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	started := make(chan map[string]any, 1)
	go func() {
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			p.mu.Lock()
			p.log.WriteString(lines.Text() + "\n")
			p.mu.Unlock()
			var m map[string]any
			if json.Unmarshal(lines.Bytes(), &m) != nil {
				m = map[string]any{"raw": lines.Text()}
			}
			if m["msg"] == "listening" {
				started <- m
				continue
			}
			p.lines <- m
		}
		close(p.exited)
	}()
	select {
	case m := <-started:
		p.addr, _ = m["addr"].(string)
		p.metrics, _ = m["metrics"].(string)
	case <-p.exited:
		t.Fatalf("anth proxy exited without listening:\n%s", p.logs())
	case <-time.After(logWait):
		t.Fatalf("anth proxy did not say where it listens:\n%s", p.logs())
	}
	return p
}

func (p *proxyProc) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// next returns the proxy's next log line whose msg is msg, skipping
// others.
func (p *proxyProc) next(msg string) map[string]any {
	p.t.Helper()
	deadline := time.After(logWait)
	for {
		select {
		case m := <-p.lines:
			if m["msg"] == msg {
				return m
			}
		case <-deadline:
			p.t.Fatalf("no %q log line in %v:\n%s", msg, logWait, p.logs())
		}
	}
}

// stop sends SIGTERM and waits for the proxy to exit 0.
func (p *proxyProc) stop() {
	p.t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait()
}

// wait waits for the proxy to exit 0, after a signal sent.
func (p *proxyProc) wait() {
	p.t.Helper()
	done := make(chan error, 1)
	go func() { <-p.exited; done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			p.t.Fatalf("anth proxy exited with %v\n%s", err, p.logs())
		}
	case <-time.After(logWait):
		p.t.Fatalf("anth proxy did not exit\n%s", p.logs())
	}
}

// anthRequest is a streaming request's body as ANTH.
func anthRequest(t *testing.T) []byte {
	t.Helper()
	body, err := request.AppendANTH(nil, []byte(`{"model":"m","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// newStreamRequest is a POST of an ANTH request to the proxy at base, asking
// for ANTH back, with a key that must never be logged.
func newStreamRequest(t *testing.T, base string) *http.Request {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v1/messages", bytes.NewReader(anthRequest(t)))
	req.Header.Set("Content-Type", anthhttp.ContentType)
	req.Header.Set("Accept", anthclient.Accept)
	req.Header.Set("X-Api-Key", "sk-do-not-log")
	return req
}

// streamThrough sends an ANTH request to the proxy at addr and reads the
// stream's first frame, an EVENT.
func streamThrough(t *testing.T, addr string) (*http.Response, *frame.Reader) {
	t.Helper()
	resp, err := testClient.Do(newStreamRequest(t, "http://"+addr))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := anthclient.NewFrameReader(resp, messages.API{})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := fr.Next(); err != nil || f.Type != frame.TypeEvent {
		t.Fatalf("first frame: %v, %v", f.Type, err)
	}
	return resp, fr
}

// held is a stand-in API whose streams send first, then wait for release
// (or the request's end) before they send rest.
type held struct {
	first, rest string
	release     chan struct{}
	started     chan struct{} // a value for each stream started
}

func newHeld(first, rest string) *held {
	return &held{first: first, rest: rest, release: make(chan struct{}), started: make(chan struct{}, 100)}
}

func (h *held) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Request-Id", "req_upstream_1")
	io.WriteString(w, h.first)
	w.(http.Flusher).Flush()
	h.started <- struct{}{}
	select {
	case <-h.release:
		io.WriteString(w, h.rest)
	case <-r.Context().Done():
	}
}

// TestProxyCommand runs the built anth proxy in front of a stand-in API:
// an ANTH request comes back as an ANTH stream, and SIGTERM drains a
// stream in flight, which ends whole, and exits 0.
func TestProxyCommand(t *testing.T) {
	first, rest := textResponseSSE()
	up := newHeld(first, rest)
	upstream := httptest.NewServer(up)
	defer upstream.Close()
	p := startProxy(t, nil, "--listen", "127.0.0.1:0", "--upstream", upstream.URL, "--drain", "5s", "--log-format", "json")
	resp, fr := streamThrough(t, p.addr)
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.next("draining") // the stream goes on
	close(up.release)
	var text []byte
	for f, err := range fr.All() {
		if err != nil {
			t.Fatalf("the stream in flight: %v", err)
		}
		if f.Type == frame.TypeText {
			_, b, _ := f.Text()
			text = append(text, b...)
		}
	}
	resp.Body.Close()
	if string(text) != "Hello, world" {
		t.Fatalf("text %q", text)
	}
	if l := p.next("request"); l["end"] != "done" || l["status"] != 200.0 || l["kind"] != "anth" {
		t.Errorf("log line %v", l)
	}
	p.wait()
	if strings.Contains(p.logs(), "sk-do-not-log") {
		t.Fatalf("the key was logged:\n%s", p.logs())
	}
}

// TestProxyDrainDeadline: a stream still in flight when the drain time is
// up ends with an ERROR frame of overloaded_error saying the server is
// shutting down, and its log line says end=cut; while the proxy drains,
// /readyz on the metrics address answers 503 (it answered 200 before).
// Before, the stream was cut with nothing said, and no line was logged.
func TestProxyDrainDeadline(t *testing.T) {
	first, _ := textResponseSSE()
	up := newHeld(first, "") // a model that never finishes
	upstream := httptest.NewServer(up)
	defer upstream.Close()
	defer upstream.CloseClientConnections()
	p := startProxy(t, nil, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--drain", "1s", "--log-format", "json")
	if got := getStatus(t, "http://"+p.metrics+"/readyz"); got != 200 {
		t.Fatalf("/readyz before the drain: %d", got)
	}
	resp, fr := streamThrough(t, p.addr)
	defer resp.Body.Close()
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.next("draining")
	if got := getStatus(t, "http://"+p.metrics+"/readyz"); got != 503 {
		t.Errorf("/readyz while draining: %d, want 503", got)
	}
	var f frame.Frame
	var err error
	for f, err = fr.Next(); err == nil && f.Type != frame.TypeError; f, err = fr.Next() {
	}
	if err != nil || f.Type != frame.TypeError {
		t.Fatalf("after the drain deadline: %v, %v; want an ERROR frame", f.Type, err)
	}
	code, msg, _ := f.ErrorMessage()
	if code != frame.CodeOverloaded || !strings.Contains(string(msg), "shutting down") {
		t.Errorf("ERROR frame %d %q, want overloaded_error saying the server is shutting down", code, msg)
	}
	l := p.next("request")
	if l["end"] != "cut" || l["level"] != "WARN" || !strings.Contains(fmt.Sprint(l["error"]), "shutting down") {
		t.Errorf("log line %v, want end=cut saying the server is shutting down", l)
	}
	p.wait()
}

// getStatus GETs url and returns the status.
func getStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := testClient.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestRequestCommand: anth request encode and decode are inverses.
func TestRequestCommand(t *testing.T) {
	body := []byte(`{"model":"m","max_tokens":12345678901234567890,"messages":[],"tools":[]}`)
	anth, errOut, code := runAnth(t, body, "request", "encode")
	if code != 0 || !bytes.HasPrefix(anth, []byte("ANTX")) {
		t.Fatalf("encode: exit %d, %q", code, errOut)
	}
	back, errOut, code := runAnth(t, anth, "request", "decode", "-")
	if code != 0 || string(back) != string(body) {
		t.Fatalf("decode: exit %d, %s, %q", code, back, errOut)
	}
	if _, errOut, code := runAnth(t, []byte("{nope"), "request", "encode"); code != 1 || !bytes.Contains(errOut, []byte("anth: stdin: offset 1: malformed")) {
		t.Fatalf("bad JSON: exit %d, %q", code, errOut)
	}
	// A Chat Completions request, with --api chat; the Messages reader
	// refuses it at its version byte, and an unknown API is a usage error.
	body = []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}`)
	anth, errOut, code = runAnth(t, body, "request", "encode", "--api", "chat")
	if code != 0 || !bytes.HasPrefix(anth, []byte("ANTX\x02")) {
		t.Fatalf("encode --api chat: exit %d, %q", code, errOut)
	}
	back, errOut, code = runAnth(t, anth, "request", "decode", "--api", "chat")
	if code != 0 || string(back) != string(body) {
		t.Fatalf("decode --api chat: exit %d, %s, %q", code, back, errOut)
	}
	if _, errOut, code := runAnth(t, anth, "request", "decode"); code != 1 || !bytes.Contains(errOut, []byte("offset 4: malformed")) {
		t.Fatalf("a Chat Completions request read as Messages: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runAnth(t, body, "request", "encode", "--api", "responses"); code != 2 {
		t.Fatalf("--api responses: exit %d, %q", code, errOut)
	}
}

// TestProxyLogLines: one JSON log line per request, checked field by
// field for each way a response ends: done (an ANTH stream in
// anth-deflate), error (the upstream cuts its stream), client_left (the
// client goes away mid-stream); cut is TestProxyDrainDeadline's. The key
// sent is never in the log.
func TestProxyLogLines(t *testing.T) {
	first, rest := textResponseSSE()
	var mu sync.Mutex
	mode := ""
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Request-Id", "req_upstream_1")
		mu.Lock()
		m := mode
		mu.Unlock()
		switch m {
		case "done":
			io.WriteString(w, first+rest)
		case "error":
			io.WriteString(w, first) // and the stream ends
		case "client_left":
			io.WriteString(w, first)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	defer upstream.Close()
	p := startProxy(t, nil, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json")
	hex16 := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for _, c := range []struct {
		end, coding string
		fields      map[string]any
	}{
		{"done", "anth-deflate", map[string]any{"status": 200.0, "kind": "anth", "coding": "anth-deflate", "input_tokens": 3.0, "output_tokens": 4.0, "level": "INFO"}},
		{"error", "", map[string]any{"status": 200.0, "kind": "anth", "coding": "", "fault": "truncated", "level": "WARN"}},
		{"client_left", "", map[string]any{"status": 200.0, "kind": "anth", "coding": ""}},
	} {
		mu.Lock()
		mode = c.end
		mu.Unlock()
		req := newStreamRequest(t, "http://"+p.addr)
		if c.coding != "" {
			req.Header.Set("Accept-Encoding", c.coding)
		}
		var client string
		ctx, cancel := context.WithCancel(context.Background())
		req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { client = i.Conn.LocalAddr().String() }}))
		tr := &http.Transport{DisableCompression: true}
		resp, err := (&http.Client{Transport: tr, Timeout: logWait}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got int
		if c.end == "client_left" {
			b := make([]byte, 1)
			n, _ := io.ReadFull(resp.Body, b) // the stream has started
			got = n
			cancel()
		} else {
			body, _ := io.ReadAll(resp.Body)
			got = len(body)
		}
		resp.Body.Close()
		tr.CloseIdleConnections()
		l := p.next("request")
		cancel()
		for k, want := range c.fields {
			if l[k] != want {
				t.Errorf("%s: %s=%v, want %v", c.end, k, l[k], want)
			}
		}
		if l["end"] != c.end || l["client"] != client || l["method"] != "POST" || l["path"] != "/v1/messages" || l["upstream_id"] != "req_upstream_1" {
			t.Errorf("%s: log line %v; want end %s, client %s", c.end, l, c.end, client)
		}
		if id, _ := l["id"].(string); !hex16.MatchString(id) || resp.Header.Get(anthhttp.RequestIDHeader) != id {
			t.Errorf("%s: id %q, the client was told %q", c.end, l["id"], resp.Header.Get(anthhttp.RequestIDHeader))
		}
		if l["in"] != float64(len(anthRequest(t))) {
			t.Errorf("%s: in=%v, want %d", c.end, l["in"], len(anthRequest(t)))
		}
		if out, _ := l["out"].(float64); c.end != "client_left" && out != float64(got) || out < float64(got) {
			t.Errorf("%s: out=%v, the client read %d", c.end, l["out"], got)
		}
		ttfb, _ := l["ttfb_ms"].(float64)
		dur, _ := l["duration_ms"].(float64)
		if frames, _ := l["frames"].(float64); ttfb <= 0 || dur < ttfb || frames < 1 {
			t.Errorf("%s: ttfb_ms=%v duration_ms=%v frames=%v", c.end, l["ttfb_ms"], l["duration_ms"], l["frames"])
		}
		if c.end == "error" && !strings.Contains(fmt.Sprint(l["error"]), "upstream") {
			t.Errorf("%s: error=%v", c.end, l["error"])
		}
	}
	p.stop()
	if strings.Contains(p.logs(), "sk-do-not-log") {
		t.Errorf("the key was logged:\n%s", p.logs())
	}
}

// apiErrorOf reads resp's body as the Messages API's error JSON.
func apiErrorOf(t *testing.T, resp *http.Response) (typ, message string) {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	typ, message, ok := messages.API{}.ParseError(body)
	if !ok || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %q is not the API's error JSON", resp.StatusCode, body)
	}
	return typ, message
}

// TestProxyTimeouts: each upstream timeout ends the request as the README's
// table says, in what the client sees and in the log line: a response's
// headers that do not come (504, timeout_error), a stream idle between
// events (an ERROR frame of timeout_error, code 504, saying the upstream
// was idle), and the upstream unreachable or resetting its stream, whose
// messages name no address (the log's do). The connect timeout is
// TestProxyConnectTimeout's. Before, a stalled upstream held the client
// until the client gave up.
func TestProxyTimeouts(t *testing.T) {
	first, _ := textResponseSSE()
	stall := make(chan struct{})
	defer close(stall)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch r.Header.Get("X-Case") {
		case "header":
			select { // no headers
			case <-stall:
			case <-r.Context().Done():
			}
		case "idle":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, first)
			w.(http.Flusher).Flush()
			select {
			case <-stall:
			case <-r.Context().Done():
			}
		case "reset", "cut":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, first)
			w.(http.Flusher).Flush()
			conn, _, _ := http.NewResponseController(w).Hijack()
			if r.Header.Get("X-Case") == "reset" {
				conn.(*net.TCPConn).SetLinger(0) // RST: the proxy's read fails naming both addresses
			}
			conn.Close() // else FIN inside a chunk: net/http's unexpected EOF
		}
	}))
	defer upstream.Close()
	p := startProxy(t, nil, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json",
		"--upstream-header-timeout", "300ms", "--upstream-idle-timeout", "300ms")

	// The response's headers do not come.
	req := newStreamRequest(t, "http://"+p.addr)
	req.Header.Set("X-Case", "header")
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if typ, msg := apiErrorOf(t, resp); resp.StatusCode != 504 || typ != "timeout_error" || msg != "upstream did not answer in time" {
		t.Errorf("header timeout: %d %s %q", resp.StatusCode, typ, msg)
	}
	if l := p.next("request"); l["status"] != 504.0 || l["end"] != "error" || l["fault"] != "header_timeout" || !strings.Contains(fmt.Sprint(l["error"]), "timeout awaiting response headers") {
		t.Errorf("header timeout: log line %v", l)
	}

	// A stream goes idle after its first event.
	for _, accept := range []string{anthclient.Accept, "text/event-stream"} {
		req = newStreamRequest(t, "http://"+p.addr)
		req.Header.Set("X-Case", "idle")
		req.Header.Set("Accept", accept)
		resp, err = testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := anthclient.NewFrameReader(resp, messages.API{})
		if err != nil {
			t.Fatal(err)
		}
		last, err := lastFrame(fr)
		resp.Body.Close()
		code, msg, merr := last.ErrorMessage()
		if err != nil || merr != nil || code != frame.CodeTimeout || !strings.Contains(string(msg), "upstream idle: no event for 300ms") {
			t.Errorf("%s: idle upstream: the stream ends with %v %d %q (%v), want an ERROR frame of 504 saying the upstream was idle", accept, last.Type, code, msg, err)
		}
		if l := p.next("request"); l["status"] != 200.0 || l["end"] != "error" || l["fault"] != "idle_timeout" {
			t.Errorf("%s: idle upstream: log line %v", accept, l)
		}
	}

	// The upstream resets its stream, or closes it inside a chunk: the
	// client is told the upstream reset the stream, and not where; the log
	// says where.
	for _, c := range []string{"reset", "cut"} {
		for _, accept := range []string{anthclient.Accept, "text/event-stream"} {
			req = newStreamRequest(t, "http://"+p.addr)
			req.Header.Set("X-Case", c)
			req.Header.Set("Accept", accept)
			resp, err = testClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			fr, err := anthclient.NewFrameReader(resp, messages.API{})
			if err != nil {
				t.Fatal(err)
			}
			last, _ := lastFrame(fr)
			resp.Body.Close()
			if code, msg, err := last.ErrorMessage(); err != nil || code != frame.CodeAPI || !strings.HasSuffix(string(msg), ": upstream reset the stream") || strings.Contains(string(msg), "127.0.0.1") {
				t.Errorf("%s, %s: the stream ends with %v %d %q", c, accept, last.Type, code, msg)
			}
			l := p.next("request")
			if l["end"] != "error" || l["fault"] != "reset" || !strings.Contains(fmt.Sprint(l["error"]), "upstream reset the stream") {
				t.Errorf("%s, %s: log line %v", c, accept, l)
			}
			if e := fmt.Sprint(l["error"]); c == "reset" && !strings.Contains(e, "127.0.0.1") {
				t.Errorf("%s, %s: the log's error %q does not say where", c, accept, e)
			}
		}
	}
	p.stop()

	// No upstream at all: 502, "upstream unreachable", and the address in
	// the log only.
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()
	p = startProxy(t, nil, "--upstream", goneURL, "--listen", "127.0.0.1:0", "--log-format", "json")
	resp, err = testClient.Do(newStreamRequest(t, "http://"+p.addr))
	if err != nil {
		t.Fatal(err)
	}
	if typ, msg := apiErrorOf(t, resp); resp.StatusCode != 502 || typ != "api_error" || msg != "upstream unreachable" {
		t.Errorf("unreachable: %d %s %q", resp.StatusCode, typ, msg)
	}
	if l := p.next("request"); l["fault"] != "unreachable" || !strings.Contains(fmt.Sprint(l["error"]), strings.TrimPrefix(goneURL, "http://")) {
		t.Errorf("unreachable: log line %v, want the address in its error", l)
	}
	p.stop()
}

// lastFrame reads fr to its end and returns its last frame.
func lastFrame(fr *frame.Reader) (frame.Frame, error) {
	var last frame.Frame
	for f, err := range fr.All() {
		if err != nil {
			return last, err
		}
		last = f
	}
	return last, nil
}

// TestProxyMaxStreams: with --max-streams 1, a second request to
// /v1/messages while one streams is answered 503 with the API's error JSON
// of overloaded_error, and logged; once the first ends, another is served.
func TestProxyMaxStreams(t *testing.T) {
	first, rest := textResponseSSE()
	up := newHeld(first, rest)
	upstream := httptest.NewServer(up)
	defer upstream.Close()
	p := startProxy(t, nil, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json", "--max-streams", "1")
	resp, fr := streamThrough(t, p.addr)
	second, err := testClient.Do(newStreamRequest(t, "http://"+p.addr))
	if err != nil {
		t.Fatal(err)
	}
	if typ, msg := apiErrorOf(t, second); second.StatusCode != 503 || typ != "overloaded_error" || !strings.Contains(msg, "at most 1") {
		t.Errorf("past the limit: %d %s %q, want 503 overloaded_error", second.StatusCode, typ, msg)
	}
	if l := p.next("request"); l["status"] != 503.0 || l["end"] != "error" || l["kind"] != "json" {
		t.Errorf("past the limit: log line %v", l)
	}
	close(up.release)
	if _, err := lastFrame(fr); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	p.next("request")
	third, fr := streamThrough(t, p.addr)
	if _, err := lastFrame(fr); err != nil {
		t.Fatalf("after the first stream ended: %v", err)
	}
	third.Body.Close()
	p.stop()
}

// TestProxyHeaders: what the official SDKs send goes upstream (User-Agent,
// x-stainless-*, anthropic-*, openai-*, request IDs, the key), but not the
// hop-by-hop headers of RFC 9110 §7.6.1 nor forwarding headers a client may
// forge; --forward-headers narrows that to its list. The client gets the
// gateway's request ID whatever the upstream sent under that name.
func TestProxyHeaders(t *testing.T) {
	first, rest := textResponseSSE()
	got := make(chan http.Header, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got <- r.Header.Clone()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Request-Id", "upstream-chose-this")
		io.WriteString(w, first+rest)
	}))
	defer upstream.Close()
	sdk := http.Header{
		"User-Agent":                                {"Anthropic/Python 0.70.0"},
		"X-Stainless-Lang":                          {"python"},
		"X-Stainless-Retry-Count":                   {"0"},
		"Anthropic-Version":                         {"2023-06-01"},
		"Anthropic-Beta":                            {"a", "b"},
		"Anthropic-Dangerous-Direct-Browser-Access": {"true"},
		"Openai-Organization":                       {"org-1"},
		"X-Request-Id":                              {"client-id-1"},
		"X-Api-Key":                                 {"sk-do-not-log"},
	}
	hop := http.Header{
		"Connection":          {"X-Hop"},
		"X-Hop":               {"1"},
		"Proxy-Authorization": {"Basic eA=="},
		"Forwarded":           {"for=6.6.6.6"},
		"X-Forwarded-For":     {"6.6.6.6"},
	}
	for _, c := range []struct {
		name  string
		args  []string
		want  []string // headers of sdk that must arrive; all others of sdk must not
		extra bool     // whether headers outside sdk (Content-Type, Accept) may arrive
	}{
		{"default policy", nil, []string{"User-Agent", "X-Stainless-Lang", "X-Stainless-Retry-Count", "Anthropic-Version", "Anthropic-Beta", "Anthropic-Dangerous-Direct-Browser-Access", "Openai-Organization", "X-Request-Id", "X-Api-Key"}, true},
		{"allow-list", []string{"--forward-headers", "x-api-key, anthropic-version"}, []string{"X-Api-Key", "Anthropic-Version"}, true},
	} {
		p := startProxy(t, nil, append([]string{"--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json"}, c.args...)...)
		req := newStreamRequest(t, "http://"+p.addr)
		for k, v := range sdk {
			req.Header[k] = v
		}
		for k, v := range hop {
			req.Header[k] = v
		}
		resp, err := testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		h := <-got
		wanted := map[string]bool{}
		for _, k := range c.want {
			wanted[k] = true
			if fmt.Sprint(h[k]) != fmt.Sprint(sdk[k]) {
				t.Errorf("%s: upstream %s = %q, want %q", c.name, k, h[k], sdk[k])
			}
		}
		for k := range sdk {
			if _, ok := h[k]; ok && !wanted[k] {
				t.Errorf("%s: upstream got %s", c.name, k)
			}
		}
		for k := range hop {
			if _, ok := h[k]; ok {
				t.Errorf("%s: upstream got the hop-by-hop or forwarding header %s %q", c.name, k, h[k])
			}
		}
		if c.name == "allow-list" {
			for k := range h {
				if !wanted[k] && k != "Content-Type" && k != "Accept" && k != "Accept-Encoding" && k != "Content-Length" && k != "User-Agent" {
					t.Errorf("%s: upstream got %s, not on the list", c.name, k)
				}
			}
			if ua := h.Get("User-Agent"); ua != "" {
				t.Errorf("%s: upstream User-Agent %q, want none", c.name, ua)
			}
		}
		l := p.next("request")
		if id := resp.Header.Values(anthhttp.RequestIDHeader); len(id) != 1 || id[0] != l["id"] || l["upstream_id"] != "upstream-chose-this" {
			t.Errorf("%s: client got request ID %q, log line %v", c.name, id, l)
		}
		p.stop()
	}
}

// TestProxyEnv: with no flags, the proxy reads its configuration from the
// environment: ANTHROPIC_BASE_URL for --upstream, PORT for --listen (every
// interface), ANTH_* for the rest; a flag given wins over its variable; a
// bad value names the variable; /healthz and /readyz are the proxy's own
// answers, not the upstream's.
func TestProxyEnv(t *testing.T) {
	first, rest := textResponseSSE()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, first+rest)
	}))
	defer upstream.Close()
	env := []string{"ANTHROPIC_BASE_URL=" + upstream.URL, "PORT=0", "ANTH_LOG_FORMAT=json", "ANTH_METRICS_LISTEN=127.0.0.1:0", "ANTH_MAX_STREAMS=nope"}
	if _, errOut, code := runAnthEnv(t, env, "proxy"); code != 2 || !strings.Contains(string(errOut), `$ANTH_MAX_STREAMS "nope"`) {
		t.Errorf("a bad ANTH_MAX_STREAMS: exit %d, %q", code, errOut)
	}
	env[len(env)-1] = "ANTH_MAX_STREAMS=1"
	p := startProxy(t, env)
	if !strings.HasPrefix(p.addr, "[::]:") && !strings.HasPrefix(p.addr, "0.0.0.0:") || p.metrics == "" {
		t.Errorf("PORT=0 listens at %q (want every interface), metrics at %q", p.addr, p.metrics)
	}
	_, port, _ := strings.Cut(p.addr, "]:")
	if port == "" {
		_, port, _ = strings.Cut(p.addr, ":")
	}
	resp, fr := streamThrough(t, "127.0.0.1:"+port)
	if _, err := lastFrame(fr); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200} {
		if got := getStatus(t, "http://127.0.0.1:"+port+path); got != want {
			t.Errorf("%s: %d, want %d (the proxy's own answer; the upstream says 404)", path, got, want)
		}
	}
	p.stop()
	// A flag wins over its variable.
	p = startProxy(t, env, "--listen", "127.0.0.1:0")
	if !strings.HasPrefix(p.addr, "127.0.0.1:") {
		t.Errorf("--listen 127.0.0.1:0 with PORT=0: listens at %q", p.addr)
	}
	p.stop()
}

// runAnthEnv is runAnth with env added to the environment.
func runAnthEnv(t *testing.T, env []string, args ...string) (stdout, stderr []byte, exitCode int) {
	t.Helper()
	cmd := exec.Command(anthBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.Bytes(), errOut.Bytes(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), errOut.Bytes(), 0
}

// TestProxyDocumented: every environment variable the proxy reads is in
// its usage text and in the README's table, beside its flag.
func TestProxyDocumented(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range proxyEnv {
		if !strings.Contains(proxyUsage, e.env) || !strings.Contains(proxyUsage, "--"+e.flag) {
			t.Errorf("the usage text does not name $%s for --%s", e.env, e.flag)
		}
		var row string // the first row whose first cell names the flag
		for l := range strings.Lines(string(readme)) {
			cells := strings.Split(l, "|")
			if len(cells) > 2 && (strings.Contains(cells[1], "`--"+e.flag+" ") || strings.Contains(cells[1], "`--"+e.flag+"`")) {
				row = l
				break
			}
		}
		if !strings.Contains(row, "`"+e.env+"`") {
			t.Errorf("README's flag table has no row for --%s naming `%s`", e.flag, e.env)
		}
	}
}

// TestProxyCORS: with --cors-origins, a browser's preflight from an allowed
// origin is answered by the proxy (204, the method and headers asked for,
// never reaching the upstream), one from another origin 403; a response to
// an allowed origin carries Access-Control-Allow-Origin naming it (not the
// upstream's "*") and exposes the request IDs. Before, OPTIONS went
// upstream.
func TestProxyCORS(t *testing.T) {
	first, rest := textResponseSSE()
	var mu sync.Mutex
	var seen []string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method)
		mu.Unlock()
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, first+rest)
	}))
	defer upstream.Close()
	const page = "https://app.example"
	p := startProxy(t, nil, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json", "--cors-origins", page+", https://other.example")
	preflight := func(origin string) *http.Response {
		req, _ := http.NewRequest("OPTIONS", "http://"+p.addr+"/v1/messages", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "anthropic-version,content-type,x-api-key")
		resp, err := testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := preflight(page)
	h := resp.Header
	if resp.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != page || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		h.Get("Access-Control-Allow-Headers") != "anthropic-version,content-type,x-api-key" || h.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("preflight from %s: %d %v", page, resp.StatusCode, h)
	}
	if l := p.next("request"); l["kind"] != "preflight" || l["status"] != 204.0 {
		t.Errorf("preflight: log line %v", l)
	}
	if resp := preflight("https://evil.example"); resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin: %d %v", resp.StatusCode, resp.Header)
	}
	p.next("request")
	mu.Lock()
	if len(seen) != 0 {
		t.Errorf("preflights reached the upstream: %v", seen)
	}
	mu.Unlock()
	for origin, want := range map[string]string{page: page, "https://evil.example": ""} {
		req := newStreamRequest(t, "http://"+p.addr)
		req.Header.Set("Origin", origin)
		resp, err := testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		h := resp.Header
		if h.Get("Access-Control-Allow-Origin") != want || want != "" && !strings.Contains(h.Get("Access-Control-Expose-Headers"), anthhttp.RequestIDHeader) {
			t.Errorf("a POST from %s: Access-Control-Allow-Origin %q, Expose-Headers %q; want %q", origin, h.Get("Access-Control-Allow-Origin"), h.Get("Access-Control-Expose-Headers"), want)
		}
		p.next("request")
	}
	p.stop()
}

// TestProxyHeldKey: with --upstream-key-file and --client-tokens-file, the
// upstream gets the proxy's key in place of the client's token (sent as
// x-api-key, as an SDK sends its apiKey, or as a bearer token), the key is
// in nothing the client receives nor in the log, the log names the
// client; a request with no token or an unknown one (the real key
// included) is 401 and never reaches the upstream; a CORS preflight needs
// no token.
func TestProxyHeldKey(t *testing.T) {
	first, rest := textResponseSSE()
	got := make(chan http.Header, 10)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got <- r.Header.Clone()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, first+rest)
	}))
	defer upstream.Close()
	const key = "sk-ant-held-by-the-proxy"
	dir := t.TempDir()
	keyFile, tokensFile := dir+"/key", dir+"/tokens"
	os.WriteFile(keyFile, []byte(key+"\n"), 0o600)
	os.WriteFile(tokensFile, []byte("# name token\nwebapp tok-webapp-1\nbatch tok-batch-2\n"), 0o600)
	if _, errOut, code := runAnthEnv(t, nil, "proxy", "--upstream", upstream.URL, "--upstream-key-file", keyFile); code != 2 || !strings.Contains(string(errOut), "go together") {
		t.Errorf("a key without tokens: exit %d, %q", code, errOut)
	}
	p := startProxy(t, []string{"ANTH_UPSTREAM_KEY_FILE=" + keyFile, "ANTH_CLIENT_TOKENS_FILE=" + tokensFile}, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json", "--cors-origins", "https://app.example")
	for _, c := range []struct {
		name, header, value, caller string
		status                      int
	}{
		{"x-api-key token", "X-Api-Key", "tok-webapp-1", "webapp", 200},
		{"bearer token", "Authorization", "Bearer tok-batch-2", "batch", 200},
		{"unknown token", "X-Api-Key", "tok-guess", "", 401},
		{"the real key", "X-Api-Key", key, "", 401},
		{"no token", "", "", "", 401},
	} {
		req := newStreamRequest(t, "http://"+p.addr)
		req.Header.Del("X-Api-Key")
		if c.header != "" {
			req.Header.Set(c.header, c.value)
		}
		resp, err := testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d %q, want %d", c.name, resp.StatusCode, body, c.status)
		}
		if bytes.Contains(body, []byte(key)) || strings.Contains(fmt.Sprint(resp.Header), key) {
			t.Errorf("%s: the key reached the client", c.name)
		}
		l := p.next("request")
		if c.status == 200 {
			h := <-got
			if h.Get("X-Api-Key") != key || h.Get("Authorization") != "" {
				t.Errorf("%s: upstream got x-api-key %q, authorization %q", c.name, h.Get("X-Api-Key"), h.Get("Authorization"))
			}
			if l["caller"] != c.caller {
				t.Errorf("%s: log line %v, want caller %s", c.name, l, c.caller)
			}
		} else if l["status"] != 401.0 {
			t.Errorf("%s: log line %v", c.name, l)
		}
	}
	if len(got) != 0 {
		t.Errorf("a request without a known token reached the upstream")
	}
	req, _ := http.NewRequest("OPTIONS", "http://"+p.addr+"/v1/messages", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	if resp, err := testClient.Do(req); err != nil || resp.StatusCode != 204 {
		t.Errorf("a preflight with a held key: %v %v", resp, err)
	}
	p.stop()
	if log := p.logs(); strings.Contains(log, key) || strings.Contains(log, "tok-webapp-1") || strings.Contains(log, "tok-batch-2") {
		t.Errorf("a key or token was logged:\n%s", log)
	}
}

// TestProxyResume runs two anth proxies sharing one Redis (--resume
// redis://), as instances behind one address would: a client reads the
// first frame of a stream through one and leaves; the upstream goes on
// into the store; the client resumes through the other from its cursor
// and gets exactly the rest, and a resume from 0 gives the whole stream
// the two parts make. Another key finds nothing (404); a proxy with a
// memory store of its own does not know the stream (404); a bad --resume
// is a usage error naming it.
func TestProxyResume(t *testing.T) {
	if _, errOut, code := runAnthEnv(t, nil, "proxy", "--upstream", "http://127.0.0.1:1", "--resume", "disk"); code != 2 || !strings.Contains(string(errOut), `--resume "disk"`) {
		t.Errorf("--resume disk: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runAnthEnv(t, []string{"ANTH_RESUME_GRACE=-1s"}, "proxy", "--upstream", "http://127.0.0.1:1", "--resume", "memory"); code != 2 || !strings.Contains(string(errOut), "--resume-grace") {
		t.Errorf("ANTH_RESUME_GRACE=-1s: exit %d, %q", code, errOut)
	}
	first, rest := textResponseSSE()
	up := newHeld(first, rest)
	upstream := httptest.NewServer(up)
	defer upstream.Close()
	redis := redistest.Start(t)
	args := []string{"--listen", "127.0.0.1:0", "--upstream", upstream.URL, "--log-format", "json", "--resume", "redis://" + redis.Addr + "/0"}
	a, b := startProxy(t, nil, args...), startProxy(t, nil, append(args, "--metrics-listen", "127.0.0.1:0")...)
	if !strings.Contains(a.logs(), `"resume":"redis://`+redis.Addr+`/0"`) {
		t.Errorf("the listening line does not name the store:\n%s", a.logs())
	}

	resp, err := testClient.Do(newStreamRequest(t, "http://"+a.addr))
	if err != nil {
		t.Fatal(err)
	}
	id := resp.Header.Get(anthhttp.ResumeIDHeader)
	if id == "" {
		t.Fatalf("no %s on a stream of a proxy with --resume", anthhttp.ResumeIDHeader)
	}
	fr := frame.NewReader(resp.Body, frame.ReaderOptions{RawFrames: true})
	f0, err := fr.Next()
	if err != nil || f0.Type != frame.TypeEvent {
		t.Fatalf("first frame: %v, %v", f0.Type, err)
	}
	cursor := int64(3 + len(f0.Payload)) // counted from the first frame after the magic
	resp.Body.Close()                    // the client leaves
	close(up.release)                    // the upstream goes on, into the store

	resumeAt := func(addr string, off int64, key string) (*http.Response, []frame.Frame) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+"/v1/messages", nil)
		req.Header.Set("Accept", anthclient.Accept)
		req.Header.Set("X-Api-Key", key)
		req.Header.Set(anthhttp.ResumeIDHeader, id)
		req.Header.Set(anthhttp.ResumeOffsetHeader, strconv.FormatInt(off, 10))
		resp, err := testClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			io.Copy(io.Discard, resp.Body)
			return resp, nil
		}
		var frames []frame.Frame
		for f, err := range frame.NewReader(resp.Body, frame.ReaderOptions{}).All() {
			if err != nil {
				t.Fatalf("resume at %d through %s: %v", off, addr, err)
			}
			f.Payload = bytes.Clone(f.Payload)
			frames = append(frames, f)
		}
		return resp, frames
	}
	_, rest1 := resumeAt(b.addr, cursor, "sk-do-not-log")
	_, whole := resumeAt(b.addr, 0, "sk-do-not-log")
	if len(whole) < 3 || whole[len(whole)-1].Type != frame.TypeDone {
		t.Fatalf("resume from 0 through the other proxy: %d frames, not a whole response", len(whole))
	}
	if diff := cmp.Diff(append([]frame.Frame{f0}, rest1...), whole, cmp.Comparer(func(x, y frame.Frame) bool {
		return x.Type == y.Type && bytes.Equal(x.Payload, y.Payload)
	})); diff != "" {
		t.Errorf("the first frame and the resumed rest differ from the whole (-parts +whole):\n%s", diff)
	}
	var text []byte
	for _, f := range whole {
		if f.Type == frame.TypeText {
			_, b, _ := f.Text()
			text = append(text, b...)
		}
	}
	if string(text) != "Hello, world" {
		t.Errorf("resumed text %q", text)
	}
	if resp, _ := resumeAt(b.addr, 0, "sk-someone-else"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a resume with another key: %d, want 404", resp.StatusCode)
	}
	mresp, err := testClient.Get("http://" + b.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	exposition, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	for _, want := range []string{`anth_proxy_resumes_total{status="200"} 2`, `anth_proxy_resumes_total{status="404"} 1`} {
		if !strings.Contains(string(exposition), want+"\n") {
			t.Errorf("the other proxy's metrics lack %s", want)
		}
	}
	c := startProxy(t, nil, "--listen", "127.0.0.1:0", "--upstream", upstream.URL, "--log-format", "json", "--resume", "memory")
	if resp, _ := resumeAt(c.addr, 0, "sk-do-not-log"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a resume through a proxy with its own memory store: %d, want 404", resp.StatusCode)
	}
	for _, p := range []*proxyProc{a, b, c} {
		p.stop()
		if strings.Contains(p.logs(), "sk-do-not-log") {
			t.Fatalf("the key was logged:\n%s", p.logs())
		}
	}
}

// TestProxyVocab: anth proxy --vocab FILE (repeatable, and ANTH_VOCAB)
// serves each vocabulary at /v1/anth/vocabularies/HASH (SPEC.md §3.16): a
// vocabulary file that loads to that hash, immutable, with the hash as its
// ETag and a 304 for it; FILE in any form anth decode --vocab takes (here
// a llama2.c tokenizer.bin and a gzipped .tiktoken); none of it goes
// upstream. A FILE that is no vocabulary stops the proxy before it
// listens.
func TestProxyVocab(t *testing.T) {
	var upstreamHits atomic.Int32
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upstreamHits.Add(1)
		http.NotFound(w, r)
	}))
	defer upstream.Close()
	files := []string{"../../vocab/testdata/tok512.bin", "../../vocab/testdata/cl100k_base.tiktoken.gz"}
	hashes := []string{
		"1e5d259c75f42dff15a1b8da30bb2f6ddace95fbfc765ed68004f43acdb2abcf", // SPEC.md §3.12's tok512
		"223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", // tiktoken's pin of cl100k_base
	}
	p := startProxy(t, nil, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json", "--vocab", files[0], "--vocab", files[1])
	c := &http.Client{Timeout: logWait, Transport: &http.Transport{DisableCompression: true}}
	for _, h := range hashes {
		u := "http://" + p.addr + anthhttp.VocabulariesPath + h
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != anthhttp.VocabularyContentType ||
			resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("Etag") != `"`+h+`"` {
			t.Fatalf("GET %s: %d %v", u, resp.StatusCode, resp.Header)
		}
		v, err := vocab.ParseFile(body)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Hash(); hex.EncodeToString(got[:]) != h {
			t.Errorf("%s: the file holds %x", h, got)
		}
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("If-None-Match", `"`+h+`"`)
		if resp, err := c.Do(req); err != nil || resp.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match: %v %v", resp, err)
		} else {
			resp.Body.Close()
		}
	}
	if resp, err := c.Get("http://" + p.addr + anthhttp.VocabulariesPath + strings.Repeat("0", 64)); err != nil || resp.StatusCode != 404 {
		t.Errorf("an unknown hash: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if n := upstreamHits.Load(); n != 0 {
		t.Errorf("%d requests went upstream", n)
	}
	if m := p.next("request"); m["kind"] != anthhttp.KindVocabulary {
		t.Errorf("log line %v", m)
	}

	// ANTH_VOCAB lists files, comma-separated.
	pe := startProxy(t, []string{"ANTH_VOCAB=" + files[0] + "," + files[1]}, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json")
	for _, h := range hashes {
		if resp, err := c.Head("http://" + pe.addr + anthhttp.VocabulariesPath + h); err != nil || resp.StatusCode != 200 {
			t.Errorf("ANTH_VOCAB: HEAD %s: %v %v", h, resp, err)
		}
	}

	_, errOut, code := runAnthEnv(t, nil, "proxy", "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--vocab", "proxy_test.go")
	if code == 0 || !strings.Contains(string(errOut), "vocabulary proxy_test.go") {
		t.Errorf("--vocab of a Go file: exit %d, %s", code, errOut)
	}
}

// TestProxyModelVocab: with --model-vocab MODEL=FILE, an ANTH client of
// MODEL's stream of vLLM token_ids gets one VOCAB frame naming FILE's
// vocabulary before the first token frame (SPEC.md §3.13), which the
// proxy serves by hash; another model's stream has none; a value without
// "=" is refused at start.
func TestProxyModelVocab(t *testing.T) {
	stream, err := os.ReadFile("../../testdata/chat/layer0-vllm-reasoning.sse")
	if err != nil {
		t.Fatal(err)
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(stream)
	}))
	defer upstream.Close()
	file := "../../vocab/testdata/tiny.tiktoken"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	v, err := vocab.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, nil, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json", "--model-vocab", "qwen="+file)
	vocabs := func(model string) (n, first, tokenAt int) {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+p.addr+"/v1/chat/completions", strings.NewReader(`{"model":"`+model+`","stream":true,"messages":[{"role":"user","content":"Hi"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", anthclient.Accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := anthclient.NewFrameReader(resp, chat.API{})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		first, tokenAt = -1, -1
		i := 0
		for f, err := range fr.All() {
			if err != nil {
				t.Fatal(err)
			}
			switch f.Type {
			case frame.TypeVocab:
				fv, err := f.Vocab()
				if err != nil || v.Check(fv) != nil {
					t.Errorf("%s: VOCAB frame %+v (%v) does not name %s", model, fv, err, file)
				}
				n++
				first = i
			case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24:
				if tokenAt < 0 {
					tokenAt = i
				}
			}
			i++
		}
		return n, first, tokenAt
	}
	if n, at, tokenAt := vocabs("qwen"); n != 1 || tokenAt < 0 || at != tokenAt-1 {
		t.Errorf("qwen: %d VOCAB frames, at %d, the first token frame at %d", n, at, tokenAt)
	}
	if n, _, _ := vocabs("other"); n != 0 {
		t.Errorf("another model: %d VOCAB frames", n)
	}
	h := v.Hash()
	if resp, err := http.Head("http://" + p.addr + anthhttp.VocabulariesPath + hex.EncodeToString(h[:])); err != nil || resp.StatusCode != 200 {
		t.Errorf("the model's vocabulary is not served: %v %v", resp, err)
	}
	_, errOut, code := runAnthEnv(t, nil, "proxy", "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--model-vocab", file)
	if code != 2 || !strings.Contains(string(errOut), "MODEL=FILE") {
		t.Errorf("--model-vocab without MODEL=: exit %d, %s", code, errOut)
	}
}
