package messages

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/internal/jsonlex"
)

// TestEventUsage: the token counts of message_start and message_delta, as
// a gateway relaying SSE reads them (bridge.Usage), without allocating.
func TestEventUsage(t *testing.T) {
	for _, c := range []struct {
		name, data string
		in, out    uint64
		ok         bool
	}{
		{"message_start", `{"type":"message_start","message":{"id":"m","usage":{"input_tokens":12,"cache_read_input_tokens":5,"output_tokens":1}}}`, 12, 1, true},
		{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":40}}`, 0, 40, true},
		{"message_delta", `{"type":"message_delta","usage":{"input_tokens":12,"cache_creation_input_tokens":0,"output_tokens":41}}`, 12, 41, true},
		{"message_delta", `{"type":"message_delta","delta":{}}`, 0, 0, false},
		{"content_block_delta", `{"type":"content_block_delta","usage":{"output_tokens":9}}`, 0, 0, false},
		{"message_start", `not json`, 0, 0, false},
	} {
		in, out, ok := API{}.EventUsage([]byte(c.name), []byte(c.data))
		if in != c.in || out != c.out || ok != c.ok {
			t.Errorf("%s %s: %d, %d, %v; want %d, %d, %v", c.name, c.data, in, out, ok, c.in, c.out, c.ok)
		}
	}
	if raceEnabled {
		return // the race detector's instrumentation allocates
	}
	name, data := []byte("message_delta"), []byte(`{"type":"message_delta","usage":{"output_tokens":40}}`)
	if n := testing.AllocsPerRun(100, func() { API{}.EventUsage(name, data) }); n != 0 {
		t.Errorf("EventUsage allocates %v times per event, want 0", n)
	}
}

// TestEventUsagePaths: EventUsage reads the usage object once and its
// counts in it, which must give what reading each count by its whole path
// gives, for any nesting, duplicate keys and values that are not counts.
func TestEventUsagePaths(t *testing.T) {
	// Keys drawn the more often the nearer they make a path of EventUsage's.
	keys := []*rapid.Generator[string]{
		rapid.SampledFrom([]string{"message", "message", "usage", "usage", "x"}),
		rapid.SampledFrom([]string{"usage", "usage", "input_tokens", "output_tokens", "x"}),
		rapid.SampledFrom([]string{"input_tokens", "output_tokens", "usage", "x"}),
	}
	var value func(t *rapid.T, depth int) string
	value = func(t *rapid.T, depth int) string {
		if depth > 3 || depth > 0 && rapid.IntRange(0, 3).Draw(t, "leaf") == 0 {
			return rapid.SampledFrom([]string{"0", "7", "-1", "1.5", `"9"`, "null", "[]", "18446744073709551616"}).Draw(t, "scalar")
		}
		var members []string
		for range rapid.IntRange(0, 4).Draw(t, "members") {
			members = append(members, `"`+keys[min(depth, 2)].Draw(t, "key")+`": `+value(t, depth+1))
		}
		return "{" + strings.Join(members, ", ") + "}"
	}
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]string{"message_start", "message_delta", "ping"}).Draw(t, "name")
		data := []byte(value(t, 0))
		var path []string
		switch name {
		case "message_start":
			path = []string{"message", "usage"}
		case "message_delta":
			path = []string{"usage"}
		}
		var want [3]any
		if path != nil {
			in, inOK := jsonlex.Uint(data, append(path, "input_tokens")...)
			out, outOK := jsonlex.Uint(data, append(path, "output_tokens")...)
			want = [3]any{in, out, inOK || outOK}
		} else {
			want = [3]any{uint64(0), uint64(0), false}
		}
		in, out, ok := API{}.EventUsage([]byte(name), data)
		if diff := cmp.Diff(want, [3]any{in, out, ok}); diff != "" {
			t.Fatalf("%s %s (-by whole paths +EventUsage):\n%s", name, data, diff)
		}
	})
}
