package sse

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
)

// TestClientMiddleware: streaming calls ask for ANTH, and an ANTH response
// reaches the SDK as the SSE the Encoder writes; everything else passes
// untouched; a cut response is an error.
func TestClientMiddleware(t *testing.T) {
	mw := ClientMiddleware(ClientOptions{})
	anth, _ := os.ReadFile(testdata.Path("golden", "layer0-basic.anth"))
	wantSSE, _ := os.ReadFile(testdata.Path("golden", "layer0-basic.sse"))
	call := func(body string, status int, ct string, payload []byte) (*http.Request, *http.Response, []byte, error) {
		req, _ := http.NewRequest("POST", "http://api.test/v1/messages", strings.NewReader(body))
		req.Header.Set("Accept", "application/json")
		var sent *http.Request
		resp, err := mw(req, func(r *http.Request) (*http.Response, error) {
			sent = r
			return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(bytes.NewReader(payload))}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, rerr := io.ReadAll(resp.Body)
		return sent, resp, got, rerr
	}
	sent, resp, got, err := call(`{"model":"m","stream": true}`, 200, ContentType, anth)
	if err != nil || sent.Header.Get("Accept") != Accept || resp.Header.Get("Content-Type") != "text/event-stream" || !bytes.Equal(got, wantSSE) {
		t.Fatalf("streaming call: Accept %q, Content-Type %q, %v, body equal %v", sent.Header.Get("Accept"), resp.Header.Get("Content-Type"), err, bytes.Equal(got, wantSSE))
	}
	for name, c := range map[string]struct {
		body, ct string
		status   int
		accept   string
	}{
		"not streaming": {`{"model":"m","stream":false}`, "application/json", 200, "application/json"},
		"SSE answer":    {`{"stream":true}`, "text/event-stream", 200, Accept},
		"error status":  {`{"stream":true}`, ContentType, 529, Accept},
		"a string true": {`{"stream":"true"}`, "application/json", 200, "application/json"},
		"nested stream": {`{"x":{"stream":true}}`, "application/json", 200, "application/json"},
	} {
		payload := []byte("untouched")
		sent, resp, got, err := call(c.body, c.status, c.ct, payload)
		if err != nil || sent.Header.Get("Accept") != c.accept || resp.Header.Get("Content-Type") != c.ct || !bytes.Equal(got, payload) {
			t.Errorf("%s: Accept %q, Content-Type %q, body %q, %v", name, sent.Header.Get("Accept"), resp.Header.Get("Content-Type"), got, err)
		}
	}
	// A cut stream reads as an error after what it carried.
	_, _, got, err = call(`{"stream":true}`, 200, ContentType, anth[:len(anth)-3])
	if !errors.Is(err, frame.ErrTruncated) || !bytes.Contains(got, []byte("content_block_delta")) {
		t.Fatalf("cut stream: %v after %d bytes", err, len(got))
	}
}
