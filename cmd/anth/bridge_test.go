package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

func TestBridgeCommands(t *testing.T) {
	in := "event: message_start\ndata: {\"type\": \"message_start\", \"message\": {\"id\": \"m\", \"usage\": {\"output_tokens\": 1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"你好\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	var anth, text, back, raw bytes.Buffer
	if err := run([]string{"encode"}, strings.NewReader(in), &anth); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"decode", "--to", "text"}, bytes.NewReader(anth.Bytes()), &text); err != nil || text.String() != "你好" {
		t.Fatalf("decode --to text: %q, %v", text.String(), err)
	}
	if err := run([]string{"encode", "--from", "raw"}, bytes.NewReader(anth.Bytes()), &raw); err != nil || !bytes.Equal(raw.Bytes(), anth.Bytes()) {
		t.Fatalf("encode --from raw changed the stream: %v", err)
	}
	if err := run([]string{"decode"}, bytes.NewReader(anth.Bytes()), &back); err != nil || !strings.Contains(back.String(), `"text":"你好"`) {
		t.Fatalf("decode: %v\n%s", err, back.String())
	}
	var jsonl bytes.Buffer
	if err := run([]string{"decode", "--to", "jsonl"}, bytes.NewReader(anth.Bytes()), &jsonl); err != nil || strings.Count(jsonl.String(), "\n") != 6 {
		t.Fatalf("jsonl: %v\n%s", err, jsonl.String())
	}
	// Cut SSE is an error with an offset; bad flags are usage errors.
	if err := run([]string{"encode"}, strings.NewReader(in[:100]), &bytes.Buffer{}); !errors.Is(err, messages.ErrTruncated) {
		t.Fatalf("cut SSE: %v", err)
	}
	for _, bad := range [][]string{{"encode", "--from", "xml"}, {"decode", "--to", "xml"}, {"stats"}} {
		if err := run(bad, nil, &bytes.Buffer{}); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// TestStats: anth stats gives a recording's size as SSE, as ANTH and as
// anth-deflate, the last the bytes a coded Proxy response's body holds.
func TestStats(t *testing.T) {
	name := testdata.Path("sse", "tool_runner_streaming_all.0.sse")
	in, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"stats", name}, nil, &out); err != nil {
		t.Fatal(err)
	}
	anth, _ := io.ReadAll(messages.NewDecoder(bytes.NewReader(in), messages.DecoderOptions{}))
	var sseN, anthN, coded int
	var ratio float64
	fmt.Sscanf(out.String(), "SSE %d bytes\nANTH %d bytes\n", &sseN, &anthN)
	_, err = fmt.Sscanf(out.String()[strings.Index(out.String(), "anth-deflate"):], "anth-deflate %d bytes, %fx the SSE", &coded, &ratio)
	// anth-deflate need not beat ANTH here: with its events deflated at
	// flate-9's size this recording's ANTH (405 bytes) is already below
	// its anth-deflate (410).
	if err != nil || sseN != len(in) || anthN != len(anth) || coded <= 0 || coded >= sseN {
		t.Fatalf("stats: %v\n%s", err, out.String())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An event a Read, as from a live upstream: Proxy writes a record
		// per event then, and gathers events it has already read.
		anthhttp.Proxy(w, r, &testdata.EventReader{Rest: in}, messages.API{}, anthhttp.ProxyOptions{})
	}))
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL, nil)
	req.Header.Set("Accept", anthclient.Accept)
	req.Header.Set("Accept-Encoding", anthhttp.AcceptEncoding)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(body) != coded {
		t.Fatalf("stats says %d bytes as anth-deflate, Proxy sends %d", coded, len(body))
	}
}
