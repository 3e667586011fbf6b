package anthhttp_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/sse"
)

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
	mw := (&anthclient.Transport{API: messages.API{}}).Middleware
	req, _ := http.NewRequest("POST", "http://api.test/v1/messages", strings.NewReader(`{"model":"m","stream":true}`))
	resp, err := mw(req, func(*http.Request) (*http.Response, error) {
		h := http.Header{}
		h.Set("Content-Type", ContentType)
		h.Set("Content-Encoding", deflate.Encoding)
		return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(bytes.NewReader(in))}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.Copy(io.Discard, resp.Body)
	t.Logf("%d bytes of anth-deflate: %d bytes of SSE (%.1fx), %v", len(in), out, float64(out)/float64(len(in)), err)
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("reading the body: %v, want ErrMalformed", err)
	}
	// What came before the refusal is the stream's start: no event.
	if out > int64(len(in)) {
		t.Errorf("%d bytes of anth-deflate gave %d bytes of SSE before the refusal", len(in), out)
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

// TestResponseWriterRawEvents: a handler that writes deflated EVENTs (as a
// Decoder makes them) to a client of anth-deflate has them sent raw, so the
// client, which refuses a deflated EVENT there, reads the same events.
func TestResponseWriterRawEvents(t *testing.T) {
	js := []byte(`{"type":"message_start","message":{"id":"msg_1","model":"m","content":[]}}`)
	long := []byte(`{"type":"x","pad":"` + strings.Repeat("ab", 70_000) + `"}`) // continues over frames
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fw := NewResponseWriter(w, r, messages.API{}, frame.WriterOptions{})
		fw.WriteEvent(frame.EventDeflate, []byte("message_start"), deflated(js))
		fw.WriteEvent(frame.EventJSON, []byte("x"), long)
		fw.WriteText(0, []byte("hi"))
		fw.WriteDone(frame.StopEndTurn, "")
		fw.Flush()
	}))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("Accept", anthclient.Accept)
	req.Header.Set("Accept-Encoding", deflate.Encoding)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != deflate.Encoding {
		t.Fatalf("Content-Encoding %q", ce)
	}
	fr, err := anthclient.NewFrameReader(resp, messages.API{})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	events := messages.EventReader{RawOnly: true, MaxEvent: 1 << 20}
	for f, err := range fr.All() {
		if err != nil {
			t.Fatal(err)
		}
		if f.Type == frame.TypeEvent {
			e, whole, err := events.Add(f)
			if err != nil {
				t.Fatal(err)
			}
			if whole {
				got = append(got, bytes.Clone(e.Data))
			}
		}
	}
	if len(got) != 2 || !bytes.Equal(got[0], js) || !bytes.Equal(got[1], long) {
		t.Fatalf("events %d: %.80q", len(got), got)
	}
}
