package sse

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestAppendEventRoundTrip: whatever data holds, Scanner reads back one
// event with the same name and the data with its line ends as LF.
func TestAppendEventRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.StringMatching(`[a-z_]{0,12}`).Draw(t, "name")
		data := rapid.StringOf(rapid.SampledFrom([]rune{'a', ' ', ':', '\r', '\n', 'é', '{'})).Draw(t, "data")
		b := AppendEvent(nil, []byte(name), []byte(data))
		s := NewScanner(bytes.NewReader(b), 0)
		gotName, gotData, err := s.Next()
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		want := strings.ReplaceAll(strings.ReplaceAll(data, "\r\n", "\n"), "\r", "\n")
		if string(gotName) != name || string(gotData) != want {
			t.Fatalf("%q: got %q %q, want %q %q", b, gotName, gotData, name, want)
		}
		if _, _, err := s.Next(); err != io.EOF {
			t.Fatalf("%q: a second event: %v", b, err)
		}
	})
}
