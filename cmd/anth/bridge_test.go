package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/layer0/anth/sse"
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
	if err := run([]string{"encode"}, strings.NewReader(in[:100]), &bytes.Buffer{}); !errors.Is(err, sse.ErrTruncated) {
		t.Fatalf("cut SSE: %v", err)
	}
	for _, bad := range [][]string{{"encode", "--from", "xml"}, {"decode", "--to", "xml"}, {"stats"}} {
		if err := run(bad, nil, &bytes.Buffer{}); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v", bad, err)
		}
	}
}
