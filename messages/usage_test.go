package messages

import "testing"

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
