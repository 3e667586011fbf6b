package anthclient_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
)

// A client reads a streaming response of either kind as frames. HTTP
// errors, and responses cut short, are errors it can tell apart.
func ExampleNewFrameReader() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(529)
		io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	}))
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL, nil)
	req.Header.Set("Accept", anthhttp.ContentType+", text/event-stream;q=0.9")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	fr, err := anthclient.NewFrameReader(resp, messages.API{})
	var status *anthclient.StatusError
	if errors.As(err, &status) {
		fmt.Println(status.StatusCode, status.Type, status.Message)
		return
	}
	defer resp.Body.Close()
	for f, err := range fr.All() {
		if errors.Is(err, frame.ErrTruncated) {
			log.Fatal("the response was cut short: ", err)
		}
		_ = f
	}
	// Output: 529 overloaded_error Overloaded
}

// A Transport lets code that reads the API's SSE — here a plain
// http.Client and a line scanner, as an SDK would — receive ANTH: it asks
// for it, and turns the ANTH response back into the API's events.
func ExampleTransport() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fw := anthhttp.NewResponseWriter(w, r, messages.API{}, frame.WriterOptions{})
		fw.WriteText(0, []byte("Hello"))
		fw.WriteDone(frame.StopEndTurn, "")
	}))
	defer srv.Close()
	client := &http.Client{Transport: &anthclient.Transport{API: messages.API{}}}
	resp, err := client.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[]}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	sse, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	for line := range strings.SplitSeq(string(sse), "\n") {
		if strings.HasPrefix(line, "event: ") {
			fmt.Println(line)
		}
	}
	// Output:
	// event: message_start
	// event: content_block_start
	// event: content_block_delta
	// event: content_block_stop
	// event: message_delta
	// event: message_stop
}
