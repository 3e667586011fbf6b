package anthclient

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/sse"
)

// deflated is js deflated against the Messages API's EVENT dictionary, as
// an EVENT frame of encoding 1 carries it (SPEC.md §3.10).
func deflated(js []byte) []byte {
	var b bytes.Buffer
	z, _ := flate.NewWriterDict(&b, flate.BestCompression, []byte(messages.EventDictionary))
	z.Write(js)
	z.Close()
	return b.Bytes()
}

// nestedBomb is the worst input for a client of anth-deflate whose frames
// carry deflated EVENTs: n EVENT frames, each of whose data inflates to
// MaxEvent bytes of JSON, coded with anth-deflate, in which every EVENT
// after the first is a few bytes of match.
func nestedBomb(n int) []byte {
	js := `{"type":"x","pad":"` + strings.Repeat(" ", sse.DefaultMaxEvent-30) + `"}`
	z := deflated([]byte(js))
	var body bytes.Buffer
	dw := deflate.NewWriter(&body, messages.API{}.Dictionary())
	fw := frame.NewWriter(dw, frame.WriterOptions{})
	for range n {
		fw.WriteEvent(frame.EventDeflate, []byte("x"), z)
	}
	fw.WriteDone(frame.StopEndTurn, "")
	fw.Flush()
	dw.Flush()
	return body.Bytes()
}

// TestNestedAmplification: an anth-deflate response whose EVENTs inflate
// again is refused at its first deflated EVENT (SPEC.md §11.2: EVENT data
// travels raw inside the coding), through Transport and an Encoder
// told the stream was coded. Before, 13 KB of such a body made 1,000 MiB
// of SSE (79,097x): the two ratios multiplied.
func TestNestedAmplification(t *testing.T) {
	in := nestedBomb(64)
	mw := (&Transport{API: messages.API{}}).Middleware
	// The coding named by Content-Encoding, or by the media type's
	// parameter, a browser's form (SPEC.md §11.1): either is coded.
	for name, h := range map[string]http.Header{
		"Content-Encoding": {"Content-Type": {anthhttp.ContentType}, "Content-Encoding": {deflate.Encoding}},
		"coding parameter": {"Content-Type": {anthhttp.ContentType + "; " + anthhttp.CodingParam + "=" + deflate.Encoding}},
	} {
		req, _ := http.NewRequest("POST", "http://api.test/v1/messages", strings.NewReader(`{"model":"m","stream":true}`))
		resp, err := mw(req, func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(bytes.NewReader(in))}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.Copy(io.Discard, resp.Body)
		t.Logf("%s: %d bytes of anth-deflate: %d bytes of SSE (%.1fx), %v", name, len(in), out, float64(out)/float64(len(in)), err)
		if !errors.Is(err, anthhttp.ErrMalformed) {
			t.Errorf("%s: reading the body: %v, want ErrMalformed", name, err)
		}
		// What came before the refusal is the stream's start: no event.
		if out > int64(len(in)) {
			t.Errorf("%s: %d bytes of anth-deflate gave %d bytes of SSE before the refusal", name, len(in), out)
		}
	}
	// Plain ANTH may carry deflated EVENTs: each inflates to at most
	// MaxEvent, at most 1,032 bytes a byte of its data (DEFLATE's limit).
	var plain bytes.Buffer
	enc := messages.NewEncoder(&plain, messages.EncoderOptions{})
	fw := frame.NewWriter(enc, frame.WriterOptions{})
	z := deflated([]byte(`{"type":"x","pad":"` + strings.Repeat(" ", 1000) + `"}`))
	fw.WriteEvent(frame.EventDeflate, []byte("x"), z)
	fw.WriteDone(frame.StopEndTurn, "")
	if err := fw.Flush(); err != nil {
		t.Fatalf("a deflated EVENT in plain ANTH: %v", err)
	}
	if !bytes.Contains(plain.Bytes(), []byte(`"type":"x"`)) {
		t.Errorf("a deflated EVENT in plain ANTH did not reach the SSE: %q", plain.Bytes())
	}
}
