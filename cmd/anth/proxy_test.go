package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/request"
)

// TestProxyCommand runs the built anth proxy in front of a stand-in API:
// an ANTH request comes back as an ANTH stream, the access log names the
// request but not its key, and SIGTERM drains a stream in flight and exits 0.
func TestProxyCommand(t *testing.T) {
	sseBody := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n"
	release := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseBody)
		w.(http.Flusher).Flush()
		<-release // a stream still in flight when the proxy is told to stop
		io.WriteString(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}))
	defer upstream.Close()

	cmd, addr, logs := startProxy(t, upstream.URL, "5s")
	defer cmd.Process.Kill()

	body, _ := request.AppendANTH(nil, []byte(`{"model":"m","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	resp, fr := streamThrough(t, addr, body)
	cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(200 * time.Millisecond) // the proxy is draining: the stream goes on
	close(release)
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
	if string(text) != "hi" {
		t.Fatalf("text %q", text)
	}
	log := waitExit(t, cmd, logs)
	if !strings.Contains(log, "method=POST path=/v1/messages status=200 kind=anth ") || strings.Contains(log, "sk-do-not-log") {
		t.Fatalf("access log:\n%s", log)
	}
}

// TestProxyDrainDeadline: a stream still in flight when the drain time is
// up ends with an ERROR frame of overloaded_error saying the server is
// shutting down, and the log says so; it was cut with nothing said, and
// logged as "the client left".
func TestProxyDrainDeadline(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // a model that never finishes
	}))
	defer upstream.Close()
	defer upstream.CloseClientConnections()
	cmd, addr, logs := startProxy(t, upstream.URL, "300ms")
	defer cmd.Process.Kill()
	body, _ := request.AppendANTH(nil, []byte(`{"model":"m","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	resp, fr := streamThrough(t, addr, body)
	defer resp.Body.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	f, err := fr.Next()
	if err != nil || f.Type != frame.TypeError {
		t.Fatalf("after the drain deadline: %v, %v; want an ERROR frame", f.Type, err)
	}
	code, msg, _ := f.ErrorMessage()
	if code != frame.CodeOverloaded || !strings.Contains(string(msg), "shutting down") {
		t.Errorf("ERROR frame %d %q, want overloaded_error saying the server is shutting down", code, msg)
	}
	log := waitExit(t, cmd, logs)
	if !strings.Contains(log, "shutting down") || strings.Contains(log, "client left") {
		t.Errorf("log:\n%s", log)
	}
}

// startProxy starts the built anth proxy in front of upstream and returns
// it, the address it listens on, and a function that returns its log once
// it has exited.
func startProxy(t *testing.T, upstream, drain string) (*exec.Cmd, string, func() string) {
	t.Helper()
	cmd := exec.Command(anthBin, "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream, "--drain", drain)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	var addr string
	for lines.Scan() {
		if _, after, ok := strings.Cut(lines.Text(), "listening on "); ok {
			addr = strings.TrimSuffix(strings.Fields(after)[0], ",")
			break
		}
	}
	if addr == "" {
		cmd.Process.Kill()
		t.Fatal("anth proxy did not say where it listens")
	}
	var log strings.Builder
	done := make(chan struct{})
	go func() {
		for lines.Scan() {
			log.WriteString(lines.Text() + "\n")
		}
		close(done)
	}()
	// The log is read once the proxy has exited and closed standard error.
	return cmd, addr, func() string { <-done; return log.String() }
}

// streamThrough sends an ANTH request to the proxy at addr and reads the
// stream's first frame, an EVENT.
func streamThrough(t *testing.T, addr string, body []byte) (*http.Response, *frame.Reader) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+addr+"/v1/messages", bytes.NewReader(body))
	req.Header.Set("Content-Type", anthhttp.ContentType)
	req.Header.Set("Accept", anthhttp.Accept)
	req.Header.Set("X-Api-Key", "sk-do-not-log")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := anthhttp.NewFrameReader(resp, messages.API{})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := fr.Next(); err != nil || f.Type != frame.TypeEvent {
		t.Fatalf("first frame: %v, %v", f.Type, err)
	}
	return resp, fr
}

// waitExit waits for the proxy to exit 0 after SIGTERM and returns its log.
func waitExit(t *testing.T, cmd *exec.Cmd, logs func() string) string {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("anth proxy exited with %v after SIGTERM\n%s", err, logs())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("anth proxy did not exit after SIGTERM\n%s", logs())
	}
	return logs()
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
}
