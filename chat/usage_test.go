package chat

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/sse"
)

// TestEventUsage: the counts of a chunk's usage wherever it is, none for a
// chunk without usage, a null usage or a named event, and no allocation.
func TestEventUsage(t *testing.T) {
	for _, c := range []struct {
		name, data string
		in, out    uint64
		ok         bool
	}{
		{"", `{"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}}`, 4, 2, true},
		{"", `{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":11,"completion_tokens":3,"total_tokens":14}}`, 11, 3, true},
		{"", `{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}`, 0, 0, false},
		{"", `{"choices":[{"index":0,"delta":{"content":"\"usage\""}}]}`, 0, 0, false},
		{"", `[DONE]`, 0, 0, false},
		{"error", `{"usage":{"prompt_tokens":1,"completion_tokens":1}}`, 0, 0, false},
	} {
		in, out, ok := API{}.EventUsage([]byte(c.name), []byte(c.data))
		if in != c.in || out != c.out || ok != c.ok {
			t.Errorf("EventUsage(%q, %s) = %d, %d, %v; want %d, %d, %v", c.name, c.data, in, out, ok, c.in, c.out, c.ok)
		}
	}
	data := []byte(`{"id":"x","choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":11,"completion_tokens":3}}`)
	if n := testing.AllocsPerRun(100, func() { API{}.EventUsage(nil, data) }); n != 0 {
		t.Errorf("EventUsage allocates %v times per event, want 0", n)
	}
}

// TestEventUsageAgrees: over every recording, the last counts EventUsage
// reads before the stream's end (the SSE a gateway relays) are the last
// USAGE frame's (the ANTH it sends), so both clients' streams are counted
// alike.
func TestEventUsageAgrees(t *testing.T) {
	for name, rec := range recordings(t) {
		var in, out uint64
		seen := false
		sc := sse.NewScanner(bytes.NewReader(rec), 1<<20)
		for {
			n, data, err := sc.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if i, o, ok := (API{}).EventUsage(n, data); ok {
				in, out, seen = i, o, true
			}
			if ends, _ := (API{}).CheckEvent(n, data); ends {
				break
			}
		}
		var last frame.Usage
		got := false
		r := frame.NewReader(bytes.NewReader(toANTH(t, rec, DecoderOptions{})), frame.ReaderOptions{})
		for f, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			if f.Type == frame.TypeUsage {
				last, _ = f.Usage()
				got = true
			}
		}
		if seen != got || uint64(last.InputTokens) != in || uint64(last.OutputTokens) != out {
			t.Errorf("%s: EventUsage's last counts %d, %d (%v); the last USAGE's %d, %d (%v)", name, in, out, seen, last.InputTokens, last.OutputTokens, got)
		}
	}
}
