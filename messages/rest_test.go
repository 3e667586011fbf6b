package messages

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
)

// deltaStream is a Messages stream whose message_delta has usage, an
// extra field in its delta if extra is set, and a ping before its
// message_stop if ping is set.
func deltaStream(usage, extra string, ping bool) []byte {
	var b strings.Builder
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\n\n")
	fmt.Fprintf(&b, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null%s},\"usage\":%s}\n\n", extra, usage)
	if ping {
		b.WriteString("event: ping\ndata: {\"type\":\"ping\"}\n\n")
	}
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return []byte(b.String())
}

// deltaFrames reads the frames of a bridged message_delta: its USAGE, and
// its EVENT's data inflated, with whether the EVENT came right after the
// USAGE (a rest) or before it (whole).
func deltaFrames(t tb, anth []byte) (u usageState, data []byte, rest bool) {
	t.Helper()
	var r EventReader
	after := false
	for f, err := range frame.NewReader(bytes.NewReader(anth), frame.ReaderOptions{}).All() {
		if err != nil {
			t.Fatalf("reading frames: %v", err)
		}
		switch f.Type {
		case frame.TypeUsage:
			u.usage, _ = f.Usage()
			u.hasUsage, after = true, true
			continue
		case frame.TypeCacheUsage:
			u.cache, _ = f.CacheUsage()
			u.hasCache = true
			continue
		case frame.TypePad:
			continue
		case frame.TypeEvent:
			ev, ok, err := r.Add(f)
			if err != nil {
				t.Fatalf("EVENT: %v", err)
			}
			if ok && string(ev.Name) == "message_delta" {
				data, rest = bytes.Clone(ev.Data), after && u.hasUsage
			}
		}
		after = false
	}
	return u, data, rest
}

// TestMessageDeltaOnce: a message_delta that its frames cannot say all of
// (issue 26: stop_details, iterations, output_tokens_details) sends its
// usage counts once, in USAGE and CACHE_USAGE, and the rest of it in its
// EVENT; it comes back as the same event. Where the rest would not give it
// back, it goes whole, and its USAGE after it.
func TestMessageDeltaOnce(t *testing.T) {
	for _, c := range []struct {
		name, usage, extra string
		ping, rest         bool
	}{
		{"real, with iterations", `{"input_tokens":31,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":547,"output_tokens_details":{"thinking_tokens":0},"iterations":[{"input_tokens":31,"output_tokens":547}]}`, `,"stop_details":null`, false, true},
		{"counts in another order", `{"output_tokens":9,"cache_read_input_tokens":4,"input_tokens":3,"server_tool_use":{"web_search_requests":1},"cache_creation_input_tokens":2}`, ``, false, true},
		{"whitespace", `{ "input_tokens" : 3 , "output_tokens" : 9 , "x" : [ 1 ] }`, ``, false, true},
		{"rest only the counts", `{"input_tokens":3,"output_tokens":9}`, `,"stop_details":{"type":"refusal"}`, false, true},
		{"a ping before message_stop", `{"input_tokens":3,"output_tokens":9}`, ``, true, true},
		{"one cache count", `{"input_tokens":3,"cache_read_input_tokens":4,"output_tokens":9,"x":1}`, ``, false, false},
		{"a count past 32 bits", `{"input_tokens":3,"output_tokens":99999999999,"x":1}`, ``, false, false},
		{"a count as a float", `{"input_tokens":3,"output_tokens":9.0,"x":1}`, ``, false, false},
	} {
		in := deltaStream(c.usage, c.extra, c.ping)
		anth := toANTH(t, in, DecoderOptions{})
		u, data, rest := deltaFrames(t, anth)
		if !u.hasUsage || data == nil {
			t.Errorf("%s: USAGE %v, message_delta EVENT %q: want both", c.name, u.hasUsage, data)
			continue
		}
		if rest != c.rest {
			t.Errorf("%s: EVENT is the rest: %v, want %v", c.name, rest, c.rest)
		}
		if rest {
			u, _ := jsonlex.Field(data, "usage")
			for _, k := range allCounts {
				if v, ok := jsonlex.Field(u, k); ok && strings.Contains(c.usage, `"`+k+`":`+string(v)) {
					t.Errorf("%s: %s sent twice: in USAGE and in the EVENT %s", c.name, k, data)
				}
			}
		}
		back, err := toSSEBytes(anth, 1, EncoderOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := cmp.Diff(events(t, in), events(t, back)); d != "" {
			t.Errorf("%s: events differ (-original +bridged):\n%s", c.name, d)
		}
	}
}

// TestMessageDeltaRest: any usage a message_delta may carry — counts in
// any order, present or not, numbers of any spelling, other members — comes
// back as the same event, and when its EVENT is a rest, no count in it is
// one its frames carry.
func TestMessageDeltaRest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.Permutation(append(allCounts[:len(allCounts):len(allCounts)], "output_tokens_details", "iterations")).Draw(t, "keys")
		var members []string
		for _, k := range keys {
			if !rapid.Bool().Draw(t, k) {
				continue
			}
			v := rapid.SampledFrom([]string{"0", "7", "25", "4294967295", "4294967296", "1.5", "-1", "null", `{"a":1}`}).Draw(t, k+" value")
			members = append(members, fmt.Sprintf("%q:%s", k, v))
		}
		usage := "{" + strings.Join(members, ",") + "}"
		in := deltaStream(usage, rapid.SampledFrom([]string{"", `,"stop_details":null`}).Draw(t, "extra"), rapid.Bool().Draw(t, "ping"))
		anth, err := io.ReadAll(NewDecoder(bytes.NewReader(in), DecoderOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		back, err := toSSEBytes(anth, len(anth), EncoderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(events(t, in), events(t, back)); d != "" {
			t.Fatalf("events differ (-original +bridged):\n%s", d)
		}
		if u, data, rest := deltaFrames(t, anth); rest {
			carried, _ := jsonlex.Field(data, "usage")
			for _, k := range usageKeys(u, 25) {
				if _, ok := jsonlex.Field(carried, k); ok {
					t.Fatalf("%s is in the rest %s, and in its frames", k, data)
				}
			}
		}
	})
}
