package anthhttp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

// flushCounter is a ResponseWriter that keeps the body, cut at its
// flushes, and signals each flush.
type flushCounter struct {
	*httptest.ResponseRecorder
	cuts    []int
	flushed chan struct{}
}

func (f *flushCounter) Flush() {
	f.cuts = append(f.cuts, f.Body.Len())
	if f.flushed != nil {
		f.flushed <- struct{}{}
	}
}

var wires = []struct{ name, accept, encoding string }{
	{"SSE", "text/event-stream", ""},
	{"ANTH", anthclient.Accept, ""},
	{"anth-deflate", anthclient.Accept, AcceptEncoding},
}

// TestRelayGathers: events the upstream has already sent go to the client
// in one write and one flush, as a plain proxy writes what it has read
// (issue 26: the gateway's CPU went to a write per event); the body is the
// same as when they arrive one at a time, flushed one at a time.
func TestRelayGathers(t *testing.T) {
	for name, in := range testdata.SSE(t) {
		for _, wire := range wires {
			serve := func(up io.Reader) *flushCounter {
				r := httptest.NewRequest("POST", "/v1/messages", nil)
				r.Header.Set("Accept", wire.accept)
				if wire.encoding != "" {
					r.Header.Set("Accept-Encoding", wire.encoding)
				}
				w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
				Proxy(w, r, io.NopCloser(up), messages.API{}, ProxyOptions{})
				return w
			}
			whole, apart := serve(bytes.NewReader(in)), serve(&testdata.EventReader{Rest: in})
			events := len(testdata.Events(t, in))
			if len(whole.cuts) > 2 || len(apart.cuts) < events/2 {
				t.Errorf("%s, %s: %d flushes for the stream read at once, %d for it read an event at a time (%d events)", name, wire.name, len(whole.cuts), len(apart.cuts), events)
			}
			a, b := whole.Body.Bytes(), apart.Body.Bytes()
			if wire.encoding != "" {
				a, b = inflateAll(t, a), inflateAll(t, b)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s, %s: the body differs when its events come at once", name, wire.name)
			}
		}
	}
}

// TestRelayWaitsForNothing: an event is written and flushed as soon as it
// arrives; the relay gathers only what it has already read, never waiting
// for the next event. The upstream sends an event only once the client has
// the one before.
func TestRelayWaitsForNothing(t *testing.T) {
	in := testdata.SSE(t)["tool_runner_streaming_all.0.sse"]
	for _, wire := range wires {
		pr, pw := io.Pipe()
		w := &flushCounter{ResponseRecorder: httptest.NewRecorder(), flushed: make(chan struct{})}
		r := httptest.NewRequest("POST", "/v1/messages", nil)
		r.Header.Set("Accept", wire.accept)
		if wire.encoding != "" {
			r.Header.Set("Accept-Encoding", wire.encoding)
		}
		done := make(chan struct{})
		go func() {
			Proxy(w, r, pr, messages.API{}, ProxyOptions{})
			close(done)
		}()
		for _, ev := range bytes.SplitAfter(in, []byte("\n\n")) {
			if len(ev) == 0 {
				continue
			}
			pw.Write(ev)
			select {
			case <-w.flushed:
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: an event written upstream was not flushed to the client", wire.name)
			}
		}
		pw.Close()
		for {
			select {
			case <-w.flushed:
				continue
			case <-done:
			}
			break
		}
	}
}

func inflateAll(t *testing.T, body []byte) []byte {
	t.Helper()
	fr, err := anthclient.NewFrameReader(&http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ContentType}, "Content-Encoding": {"anth-deflate"}}, Body: io.NopCloser(bytes.NewReader(body))}, messages.API{})
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for f, err := range fr.All() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, byte(f.Type))
		out = append(out, f.Payload...)
	}
	return out
}
