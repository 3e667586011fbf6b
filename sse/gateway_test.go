package sse

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/internal/testdata"
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
// same JSON, with the caller's credentials, and answers with the upstream's
// stream as ANTH or SSE; other paths and responses pass through.
func TestGateway(t *testing.T) {
	up := &recordingUpstream{response: testdata.SSE(t)["layer0-basic.sse"]}
	upstream := httptest.NewServer(up)
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	var logs bytes.Buffer
	gw := httptest.NewServer(NewGateway(GatewayOptions{Upstream: u, Log: log.New(&logs, "", 0)}))
	defer gw.Close()

	body := `{"model":"claude-test","max_tokens":64,"stream":true,"temperature":0.5,"messages":[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral"}}]}]}`
	want := scanEventsNamed(t, up.response)
	for _, c := range []struct{ ct, accept string }{{"application/json", "text/event-stream"}, {ContentType, "text/event-stream"}, {"application/json", Accept}, {ContentType, Accept}} {
		reqBody := []byte(body)
		if c.ct == ContentType {
			reqBody, _ = AppendRequestANTH(nil, reqBody)
		}
		req, _ := http.NewRequest("POST", gw.URL+"/v1/messages", bytes.NewReader(reqBody))
		req.Header.Set("Content-Type", c.ct)
		req.Header.Set("Accept", c.accept)
		req.Header.Set("X-Api-Key", "sk-secret-key")
		req.Header.Set("Anthropic-Version", "2023-06-01")
		req.Header.Set("Anthropic-Beta", "b1")
		req.Header.Set("X-Other", "not forwarded")
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
		e := NewEncoder(&sse, EncoderOptions{})
		for _, f := range fs {
			e.WriteFrame(f)
		}
		if d := cmp.Diff(want, scanEventsNamed(t, sse.Bytes())); d != "" {
			t.Errorf("%s → %s: events differ:\n%s", c.ct, c.accept, d)
		}
		up.mu.Lock()
		got, h := up.bodies[len(up.bodies)-1], up.headers[len(up.headers)-1]
		up.mu.Unlock()
		if !sameJSON(got, []byte(body)) {
			t.Errorf("%s: upstream got %s, want %s", c.ct, got, body)
		}
		if h.Get("X-Api-Key") != "sk-secret-key" || h.Get("Anthropic-Version") != "2023-06-01" || h.Get("Anthropic-Beta") != "b1" || h.Get("X-Other") != "" || h.Get("Content-Type") != "application/json" {
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
	if bytes.Contains(logs.Bytes(), []byte("sk-secret-key")) || strings.Count(logs.String(), "POST /v1/messages ") < 6 || !strings.Contains(logs.String(), " anth ") {
		t.Errorf("access log:\n%s", logs.String())
	}
	var js map[string]any
	if json.Unmarshal(got, &js) != nil {
		t.Errorf("the upstream's error body is not passed through whole: %s", got)
	}
}

// scanEventsNamed is scanEvents with each event's data as a JSON value.
func scanEventsNamed(t tb, sse []byte) [][2]string {
	evs := scanEvents(t, sse)
	for i := range evs {
		var v any
		json.Unmarshal([]byte(evs[i][1]), &v)
		b, _ := json.Marshal(v)
		evs[i][1] = string(b)
	}
	return evs
}
