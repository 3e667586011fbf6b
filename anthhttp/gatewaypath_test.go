package anthhttp_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/messages"
)

// TestGatewayPaths: the caller's query reaches the upstream on
// /v1/messages as on every other path (POST /v1/messages?beta=true went up
// as /v1/messages); a path with a dot segment is refused and never joined to
// the upstream's base path (GET /v1/../admin reached /base/admin); and a
// path's decoded control characters never start an access-log line of their
// own (%0A forged one).
func TestGatewayPaths(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.RequestURI)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"message"}`)
	}))
	defer up.Close()
	base, _ := url.Parse(up.URL + "/base")
	var logs bytes.Buffer
	gw := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: base, Logger: jsonLogger(&logs)}))
	defer gw.Close()
	raw := func(method, target, body string) int {
		c, err := net.Dial("tcp", gw.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, method+" "+target+" HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	cases := []struct {
		method, target string
		status         int
		upstream       string // what the upstream saw, "" for nothing
	}{
		{"POST", "/v1/messages?beta=true", 200, "POST /base/v1/messages?beta=true"},
		{"GET", "/v1/models?limit=2", 200, "GET /base/v1/models?limit=2"},
		{"GET", "/v1/../admin", 400, ""},
		{"GET", "/v1/%2e%2e/admin", 400, ""},
		{"GET", "/v1/./models", 400, ""},
		{"POST", "/v1/messages/..", 400, ""},
		{"GET", "/v1/x%0AGET%20/forged%20200%20proxy", 200, "GET /base/v1/x%0AGET%20/forged%20200%20proxy"},
	}
	for _, c := range cases {
		mu.Lock()
		seen = nil
		mu.Unlock()
		status := raw(c.method, c.target, `{"model":"m","max_tokens":1,"messages":[]}`)
		mu.Lock()
		got := strings.Join(seen, ", ")
		mu.Unlock()
		if status != c.status || got != c.upstream {
			t.Errorf("%s %s: %d, upstream saw %q; want %d, %q", c.method, c.target, status, got, c.status, c.upstream)
		}
	}
	gw.Close()                  // every handler has logged its line
	lines := logLines(t, &logs) // each a JSON object, or it fails
	if len(lines) != len(cases) {
		t.Errorf("%d requests made %d access-log lines:\n%s", len(cases), len(lines), logs.String())
	}
	// A line is written as its handler returns, after its client has the
	// response: the order is the handlers'.
	var logged, want []string
	for i, l := range lines {
		logged = append(logged, fmt.Sprint(l["path"]))
		want = append(want, mustUnescape(t, cases[i%len(cases)].target))
	}
	slices.Sort(logged)
	slices.Sort(want)
	if !slices.Equal(logged, want) {
		t.Errorf("the log names paths %q, want %q", logged, want)
	}
}

// mustUnescape is target's path as net/http decodes it.
func mustUnescape(t *testing.T, target string) string {
	t.Helper()
	u, err := url.ParseRequestURI(target)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}
