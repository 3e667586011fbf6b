package ssejson

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/internal/testdata"
)

func TestRoundTrip(t *testing.T) {
	want := Response{ID: "msg_1", Model: "m", Text: []string{"Hello, 世界", "second"},
		InputTokens: 5, OutputTokens: 7, CacheRead: 3, StopReason: "stop_sequence", StopSequence: "##"}
	b := AppendResponse(nil, want, [][]string{{"Hello", ", ", "世界"}, {"sec", "ond"}})
	got, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	// Cut before message_stop: truncated, not a shorter response.
	if _, err := Decode(bytes.NewReader(b[:len(b)-10])); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut stream: %v", err)
	}
}

// TestRecording decodes a real recording of the API (the official
// TypeScript SDK's fixture, testdata/sse).
func TestRecording(t *testing.T) {
	b, ok := testdata.SSE(t)["tests_lib_fixtures_basic_response.txt"]
	if !ok {
		t.Fatal("testdata/sse/tests_lib_fixtures_basic_response.txt is missing")
	}
	got, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Text) != 1 || got.Text[0] != "Hello there!" || got.StopReason != "end_turn" || got.OutputTokens != 6 || got.InputTokens != 11 {
		t.Fatalf("decoded %+v", got)
	}
}
