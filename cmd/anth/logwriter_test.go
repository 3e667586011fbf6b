package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes records each Write it is given, whole.
type writes struct {
	mu sync.Mutex
	w  []string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.w = append(w.w, string(p))
	return len(p), nil
}

func (w *writes) got() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.w...)
}

// TestLogWriterBatches: a line after a quiet interval goes out at once;
// the lines that follow within the interval go out together at its end,
// in order, nothing lost; after a quiet interval the next goes at once
// again.
func TestLogWriterBatches(t *testing.T) {
	const every = 50 * time.Millisecond
	var w writes
	l := newLogWriter(&w, every)
	defer l.Close()
	var want strings.Builder
	for i := range 100 {
		line := fmt.Sprintf("line %d\n", i)
		want.WriteString(line)
		if n, err := l.Write([]byte(line)); n != len(line) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", line, n, err)
		}
		if i == 0 {
			if got := w.got(); len(got) != 1 || got[0] != line {
				t.Fatalf("the first line is not out at once: writes %q", got)
			}
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(w.got()) < 2 && time.Now().Before(deadline) {
		time.Sleep(every / 5)
	}
	got := w.got()
	if len(got) != 2 || strings.Join(got, "") != want.String() {
		t.Fatalf("100 lines in an interval: %d writes %q; want the first, then the other 99 in one", len(got), got)
	}
	// Quiet for more than two intervals: the next line is out at once.
	time.Sleep(3 * every)
	l.Write([]byte("after\n"))
	if got := w.got(); len(got) != 3 || got[2] != "after\n" {
		t.Fatalf("a line after a quiet interval waits: writes %q", got)
	}
}

// TestLogWriterClose: Close writes the lines held, and later lines go out
// at once; a burst past maxLogBatch goes out without waiting.
func TestLogWriterClose(t *testing.T) {
	var w writes
	l := newLogWriter(&w, time.Hour)
	l.Write([]byte("a\n"))
	l.Write([]byte("b\n"))
	if got := w.got(); len(got) != 1 {
		t.Fatalf("before Close: writes %q, want the first line alone", got)
	}
	big := bytes.Repeat([]byte("x"), maxLogBatch)
	l.Write(big)
	if got := w.got(); len(got) != 2 || got[1] != "b\n"+string(big) {
		t.Fatalf("past maxLogBatch the lines held wait: %d writes", len(got))
	}
	l.Write([]byte("c\n"))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l.Write([]byte("d\n"))
	if got := w.got(); len(got) != 4 || got[2] != "c\n" || got[3] != "d\n" {
		t.Fatalf("after Close: writes %q", got[2:])
	}
}

// TestLogWriterConcurrent: lines from many goroutines come out whole and
// every one of them once (run under -race).
func TestLogWriterConcurrent(t *testing.T) {
	var w writes
	l := newLogWriter(&w, time.Millisecond)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				l.Write(fmt.Appendf(nil, "g%d line %d\n", g, i))
			}
		})
	}
	wg.Wait()
	l.Close()
	seen := map[string]int{}
	for _, line := range strings.SplitAfter(strings.Join(w.got(), ""), "\n") {
		if line != "" {
			seen[line]++
		}
	}
	for g := range 8 {
		for i := range 200 {
			if line := fmt.Sprintf("g%d line %d\n", g, i); seen[line] != 1 {
				t.Fatalf("%q written %d times", line, seen[line])
			}
		}
	}
	if len(seen) != 8*200 {
		t.Fatalf("%d distinct lines, want %d", len(seen), 8*200)
	}
}

func TestLogFlushFlag(t *testing.T) {
	if _, errOut, code := runAnth(t, nil, "proxy", "--upstream", "http://127.0.0.1:1", "--log-flush", "-1s"); code != 2 || !bytes.Contains(errOut, []byte("--log-flush")) {
		t.Errorf("--log-flush -1s: exit %d, stderr %q; want exit 2 naming the flag", code, errOut)
	}
}

// TestProxyLogFlush: anth proxy's log goes through a logWriter. With
// --log-flush 10m, the listening line is out at once, the request lines
// that follow it within the interval wait, and SIGTERM writes them out,
// each whole, before the proxy exits.
func TestProxyLogFlush(t *testing.T) {
	upstream := textUpstream(t)
	p := startProxy(t, nil, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--log-format", "json", "--log-flush", "10m")
	const n = 3
	for range n {
		resp, err := testClient.Post("http://"+p.addr+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	select {
	case m := <-p.lines:
		t.Fatalf("a line within --log-flush of the one before is out at once: %v", m)
	case <-time.After(200 * time.Millisecond):
	}
	p.stop()
	requests := 0
	for len(p.lines) > 0 {
		if m := <-p.lines; m["msg"] == "request" && m["status"] == 200.0 {
			requests++
		}
	}
	if requests != n {
		t.Fatalf("%d request lines after SIGTERM, want %d:\n%s", requests, n, p.logs())
	}
}
