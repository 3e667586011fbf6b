package anthhttp_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/resume"
)

// dropOnce is a network whose first response's connection drops after
// 40 bytes.
type dropOnce struct{ dropped bool }

func (d *dropOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && !d.dropped {
		d.dropped = true
		resp.Body = &dropAfter{resp.Body, 40}
	}
	return resp, err
}

type dropAfter struct {
	io.ReadCloser
	left int
}

func (d *dropAfter) Read(p []byte) (int, error) {
	if d.left == 0 {
		d.ReadCloser.Close()
		return 0, errors.New("connection reset by peer")
	}
	n, err := d.ReadCloser.Read(p[:min(len(p), d.left)])
	d.left -= n
	return n, err
}

// A gateway with a store names each stream it keeps in Anth-Resume-Id; a
// client whose connection drops resumes from the last whole frame it read,
// and reads the response unbroken.
func ExampleGatewayOptions_resume() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", world"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":4}}

event: message_stop
data: {"type":"message_stop"}

`)
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	store := resume.NewMemory(resume.MemoryOptions{})
	defer store.Close()
	gw := httptest.NewServer(anthhttp.NewGateway(messages.API{}, anthhttp.GatewayOptions{Upstream: u, Resume: store}))
	defer gw.Close()

	net := &dropOnce{}
	req, _ := http.NewRequest("POST", gw.URL+"/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`))
	req.Header.Set("Accept", anthclient.Accept)
	resp, err := (&http.Client{Transport: net}).Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	fr, err := anthclient.NewFrameReaderOptions(resp, messages.API{}, anthclient.ResumeOptions{Transport: net})
	if err != nil {
		log.Fatal(err)
	}
	var text strings.Builder
	for f, err := range fr.All() {
		if err != nil {
			log.Fatal(err)
		}
		if f.Type == frame.TypeText {
			_, t, _ := f.Text()
			text.Write(t)
		}
	}
	fmt.Println(text.String())
	// Output: Hello, world
}
