package sse

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/ssejson"
)

// fetch POSTs to srv accepting accept and returns the response and its body.
func fetch(t *testing.T, srv *httptest.Server, accept string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL, nil)
	req.Header.Set("Accept", accept)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestNegotiate(t *testing.T) {
	for accept, want := range map[string]bool{
		"":                                  false,
		"text/event-stream":                 false,
		ContentType:                         true,
		"text/event-stream, " + ContentType: true,
		ContentType + ";q=0":                false,
		ContentType + ";q=0.5, */*;q=0.1":   true,
	} {
		r := httptest.NewRequest("POST", "/v1/messages", nil)
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		if got := Negotiate(r); got != want {
			t.Errorf("Accept %q: %v, want %v", accept, got, want)
		}
	}
}

// TestResponseWriter serves one handler's frames to both kinds of client
// over real HTTP on 127.0.0.1, and reads both back with NewFrameReader.
func TestResponseWriter(t *testing.T) {
	text := "Streaming 文本 over HTTP"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fw := NewResponseWriter(w, r, DecoderOptions{Model: "test-model"})
		for _, piece := range []string{"Streaming ", "文", "本 over", " HTTP"} {
			if err := fw.WriteText(0, []byte(piece)); err != nil {
				t.Error(err)
				return
			}
		}
		_ = fw.WriteUsage(frame.Usage{InputTokens: 3, OutputTokens: 4})
		_ = fw.WriteDone(frame.StopEndTurn, "")
		_ = fw.Flush()
	}))
	defer srv.Close()

	for _, accept := range []string{ContentType, "text/event-stream"} {
		resp, body := fetch(t, srv, accept)
		if accept == "text/event-stream" {
			got, err := ssejson.Decode(bytes.NewReader(body))
			if err != nil || got.Text[0] != text || got.StopReason != "end_turn" || got.OutputTokens != 4 || got.Model != "test-model" {
				t.Fatalf("SSE response: %+v, %v\n%s", got, err, body)
			}
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		var sb strings.Builder
		var reason frame.StopReason
		for f, err := range NewFrameReader(resp).All() {
			if err != nil {
				t.Fatalf("%s: %v", accept, err)
			}
			switch f.Type {
			case frame.TypeText:
				_, b, _ := f.Text()
				sb.Write(b)
			case frame.TypeDone:
				reason, _, _ = f.Done()
			}
		}
		if sb.String() != text || reason != frame.StopEndTurn {
			t.Fatalf("%s: frames give %q, %v", accept, sb.String(), reason)
		}
	}
}

func TestProxy(t *testing.T) {
	upstream := "event: message_start\ndata: {\"type\": \"message_start\", \"message\": {\"id\": \"m1\", \"model\": \"x\", \"usage\": {\"input_tokens\": 1, \"output_tokens\": 1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"proxied\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":2}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := Proxy(w, r, strings.NewReader(upstream), EncoderOptions{}); err != nil {
			t.Error(err)
		}
	}))
	defer srv.Close()
	for _, accept := range []string{ContentType, "text/event-stream"} {
		_, body := fetch(t, srv, accept)
		sse := body
		var err error
		if accept == ContentType {
			if sse, err = io.ReadAll(NewDecoder(bytes.NewReader(body), DecoderOptions{})); err != nil {
				t.Fatal(err)
			}
		}
		got, err := ssejson.Decode(bytes.NewReader(sse))
		if err != nil || got.Text[0] != "proxied" || got.ID != "m1" || got.OutputTokens != 2 {
			t.Fatalf("%s: %+v %v", accept, got, err)
		}
	}
}

// TestSSESinkSplitWrites feeds the SSE conversion frames cut at every byte
// and several frames per write: the events come out the same.
func TestSSESinkSplitWrites(t *testing.T) {
	var stream bytes.Buffer
	fw := frame.NewWriter(&stream, frame.WithPadding(16))
	_ = fw.WriteText(0, []byte("one, "))
	_ = fw.WriteText(0, []byte(strings.Repeat("é", 40000))) // two frames
	_ = fw.WriteDone(frame.StopEndTurn, "")
	want, err := io.ReadAll(NewDecoder(bytes.NewReader(stream.Bytes()), DecoderOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []int{1, 7, 4096, stream.Len()} {
		rec := httptest.NewRecorder()
		sink := &sseSink{out: flusher{w: rec, f: http.NewResponseController(rec)}, conv: newConverter(DecoderOptions{})}
		in := stream.Bytes()
		for i := 0; i < len(in); i += step {
			if _, err := sink.Write(in[i:min(i+step, len(in))]); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		}
		if !bytes.Equal(rec.Body.Bytes(), want) {
			t.Fatalf("step %d: SSE differs from the Decoder's", step)
		}
	}
}
