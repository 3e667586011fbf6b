package anthhttp_test

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
)

// TestCoalescedHandlerReturns: a handler made with Coalesce that returns,
// or panics, without Flush leaves frames for the coalescing timer, which
// fires after net/http finished the response. It crashed the process (a nil
// pointer in the ResponseController's Flush, on the timer's goroutine, which
// nothing recovers); now the timer's write fails, and the server goes on.
func TestCoalescedHandlerReturns(t *testing.T) {
	const coalesce = 20 * time.Millisecond
	for _, h := range []struct{ accept, encoding string }{{acceptANTH, ""}, {acceptANTH, "anth-deflate"}, {"text/event-stream", ""}} {
		for _, panics := range []bool{false, true} {
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/alive" {
					io.WriteString(w, "yes")
					return
				}
				fw := NewResponseWriter(w, r, messages.API{}, frame.WriterOptions{Coalesce: coalesce})
				for range 3 {
					// The first goes at once, the rest wait for the timer.
					fw.WriteText(0, []byte("waiting "))
				}
				if panics {
					panic(http.ErrAbortHandler) // net/http recovers it
				}
			}))
			srv.Config.ErrorLog = log.New(io.Discard, "", 0)
			srv.Start()
			req, _ := http.NewRequest("GET", srv.URL, nil)
			req.Header.Set("Accept", h.accept)
			req.Header.Set("Accept-Encoding", h.encoding)
			if resp, err := srv.Client().Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			time.Sleep(10 * coalesce) // the timer has fired
			resp, err := srv.Client().Get(srv.URL + "/alive")
			if err != nil {
				t.Fatalf("%+v, panics %v: the server after the timer: %v", h, panics, err)
			}
			resp.Body.Close()
			srv.Close()
		}
	}
}

// TestResponseWriterClientLeaves: the first write after the client left
// fails, matching context.Canceled, so a handler waiting on a stalled model
// stops at its next frame; it succeeded, into a dead connection's buffers,
// and a handler ran on for seconds after the disconnect.
func TestResponseWriterClientLeaves(t *testing.T) {
	for _, accept := range []string{acceptANTH, "text/event-stream"} {
		result := make(chan error, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fw := NewResponseWriter(w, r, messages.API{}, frame.WriterOptions{})
			if err := fw.WriteText(0, []byte("first")); err != nil {
				result <- err
				return
			}
			<-r.Context().Done() // the model stalls; the client leaves
			result <- fw.WriteText(0, []byte(" second"))
		}))
		clientLeaves(t, srv, accept)
		select {
		case err := <-result:
			wantClientLeft(t, accept+": the write after the client left", err)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the handler did not return", accept)
		}
		srv.Close()
	}
}
