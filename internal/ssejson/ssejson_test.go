package ssejson

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestRecording decodes a real recording of the API, when the shared data
// is present.
func TestRecording(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "data", "sse", "docs-basic.sse"))
	if err != nil {
		t.Skip("shared test data absent:", err)
	}
	got, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got.Text[0] != "Hello!" || got.StopReason != "end_turn" || got.OutputTokens != 15 || got.InputTokens != 25 {
		t.Fatalf("decoded %+v", got)
	}
}
