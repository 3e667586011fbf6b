package messages

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/frame"
)

// TestMessageDelta: a message_delta's usage becomes frames, and only the
// forms the Encoder writes back travel without an EVENT.
func TestMessageDelta(t *testing.T) {
	const head = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":`
	for _, c := range []struct {
		usage      string
		startInput uint64
		want       usageState
		typedOnly  bool
	}{
		{`{"output_tokens":15}`, 25, usageState{usage: frame.Usage{InputTokens: 25, OutputTokens: 15}, hasUsage: true}, true},
		{`{"output_tokens":0}`, 25, usageState{usage: frame.Usage{InputTokens: 25}, hasUsage: true}, true},
		{`{"output_tokens":0}`, 0, usageState{}, true},
		{`{"input_tokens":7,"output_tokens":3}`, 25, usageState{usage: frame.Usage{InputTokens: 7, OutputTokens: 3}, hasUsage: true}, true},
		{`{"input_tokens":25,"output_tokens":3}`, 25, usageState{usage: frame.Usage{InputTokens: 25, OutputTokens: 3}, hasUsage: true}, false},
		{`{"input_tokens":10,"cache_creation_input_tokens":20,"cache_read_input_tokens":70,"output_tokens":3}`, 0,
			usageState{usage: frame.Usage{InputTokens: 10, OutputTokens: 3, CacheHitRatio: 700_000}, cache: frame.CacheUsage{CacheReadInputTokens: 70, CacheCreationInputTokens: 20}, hasUsage: true, hasCache: true}, true},
		{`{"output_tokens":3,"output_tokens_details":{"thinking_tokens":1}}`, 5, usageState{usage: frame.Usage{InputTokens: 5, OutputTokens: 3}, hasUsage: true}, false},
		{`{"output_tokens":99999999999}`, 5, usageState{usage: frame.Usage{InputTokens: 5, OutputTokens: 1<<32 - 1}, hasUsage: true}, false},
	} {
		js := []byte(head + c.usage + "}")
		u, reason, _ := parseMessageDelta(js, c.startInput, nil)
		if reason != frame.StopEndTurn || !cmp.Equal(u, c.want, cmp.AllowUnexported(usageState{})) {
			t.Errorf("%s: %+v, %v; want %+v", c.usage, u, reason, c.want)
		}
		m := toFrames{startInput: c.startInput}
		out := m.messageDelta(nil, js)
		if typedOnly := !bytes.Contains(out, []byte("message_delta")) && m.deferring; typedOnly != c.typedOnly {
			t.Errorf("%s: carried by typed frames alone: %v, want %v", c.usage, typedOnly, c.typedOnly)
		}
	}
}

// TestFastPathAgrees: the fast paths (the API's key order byte by byte,
// and any other order) give the frames the general path gives, for every
// delta they take, and take every delta the general path takes.
func TestFastPathAgrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		kind := frame.DeltaKind(rapid.IntRange(0, 4).Draw(t, "kind"))
		text := rapid.String().Draw(t, "text")
		block := rapid.IntRange(0, 0x10000).Draw(t, "block")
		s, _ := json.Marshal(text)
		value := string(s)
		if kind == frame.DeltaCitation {
			value = `{"type":"char_location","cited_text":` + value + `}`
		}
		// The API's order, or any other: an upstream that re-encodes the
		// JSON writes its own (issue 26).
		another := rapid.Bool().Draw(t, "another order")
		inner := []string{`"type":"` + deltaTypes[kind].typ + `"`, `"` + deltaTypes[kind].field + `":` + value}
		if another {
			inner = rapid.Permutation(inner).Draw(t, "inner")
		}
		top := []string{`"type":"content_block_delta"`, `"index":` + strconv.Itoa(block), `"delta":{` + strings.Join(inner, ",") + `}`}
		if another {
			top = rapid.Permutation(top).Draw(t, "top")
		}
		js := []byte("{" + strings.Join(top, ",") + "}")
		var scratch []byte
		fast, ok := fastDelta(nil, js, &scratch)
		var m toFrames
		general, gok := m.delta(nil, js)
		if ok && (!gok || !bytes.Equal(fast, general)) {
			t.Fatalf("%s: fast path % X, general path % X (%v)", js, fast, general, gok)
		}
		if block <= 0xFFFF && kind != frame.DeltaCitation && gok && !ok {
			t.Fatalf("%s: the general path takes a delta the fast path does not", js)
		}
		if block <= 0xFFFF && !ok && !gok {
			t.Fatalf("%s: neither path takes a valid delta", js)
		}
	})
	// Keys the fast paths do not read as the API's go to the general path,
	// never to a frame of their own.
	for _, js := range []string{
		`{"index":0,"type":"content_block_delta","delta":{"text":"a","type":"text_delta"},"x":1}`,
		`{"index":0,"type":"content_block_delta","delta":{"text":"a","type":"text_delta","text":"b"}}`,
		`{"index":0,"index":1,"type":"content_block_delta","delta":{"text":"a","type":"text_delta"}}`,
		`{"index":0,"type":"content_block_delta","delta":{"text":"a","type":"thinking_delta"}}`,
		`{"index":0,"t\u0079pe":"content_block_delta","delta":{"text":"a","type":"text_delta"}}`,
		`{"index":"0","type":"content_block_delta","delta":{"text":"a","type":"text_delta"}}`,
		`{"index":01,"type":"content_block_delta","delta":{"text":"a","type":"text_delta"}}`,
	} {
		var scratch []byte
		if out, ok := anyOrderDelta(nil, []byte(js), &scratch); ok {
			t.Errorf("%s: taken by the fast path as % X", js, out)
		}
	}
}

// TestUnquote: toFrames.unquote gives what encoding/json decodes a JSON
// string to, for any string: escapes, surrogates lone or paired, invalid
// UTF-8, and values that are not strings.
func TestUnquote(t *testing.T) {
	pieces := []string{"a", "é", "\xff", "\xe2\x82", `\"`, `\\`, `\/`, `\n`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\ude00`, `\u0000`, " ", "\x7f"}
	rapid.Check(t, func(t *rapid.T) {
		raw := `"`
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 12).Draw(t, "pieces") {
			raw += p
		}
		raw += `"`
		if rapid.Bool().Draw(t, "number") {
			raw = "12"
		}
		var want string
		werr := json.Unmarshal([]byte(raw), &want)
		var m toFrames
		buf := []byte("stale")
		got, ok := m.unquote(&buf, []byte(raw))
		if ok != (werr == nil) {
			t.Fatalf("%q: unquote %v, encoding/json %v", raw, ok, werr)
		}
		if diff := cmp.Diff(want, string(got)); ok && diff != "" {
			t.Fatalf("%q: unquote differs from encoding/json (-want +got):\n%s", raw, diff)
		}
	})
}

// TestFastDeltaEdited: the fast paths, which read JSON by hand as it
// comes (and validDelta, an event-stream client's check), never panic on a delta in any key order, padded as the API pads
// it or not, with one edit (a byte deleted, a structural byte or a space
// inserted, the tail cut off); every delta they take is one JSON value,
// and gives the frames the general path gives for it compacted (go-cmp).
// Padding alone (spaces before the last brace, as the API sends) is taken.
func TestFastDeltaEdited(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		kind := frame.DeltaKind(rapid.IntRange(0, 3).Draw(t, "kind"))
		s, _ := json.Marshal(rapid.StringN(0, 8, -1).Draw(t, "text"))
		inner := []string{`"type":"` + deltaTypes[kind].typ + `"`, `"` + deltaTypes[kind].field + `":` + string(s)}
		top := []string{`"type":"content_block_delta"`, `"index":` + strconv.Itoa(rapid.IntRange(0, 12).Draw(t, "block")), ""}
		apiOrder := rapid.Bool().Draw(t, "API order")
		if !apiOrder {
			inner = rapid.Permutation(inner).Draw(t, "inner")
		}
		top[2] = `"delta":{` + strings.Join(inner, ",") + `}`
		if !apiOrder {
			top = rapid.Permutation(top).Draw(t, "top")
		}
		pad := strings.Repeat(" ", rapid.IntRange(0, 15).Draw(t, "padding"))
		js := []byte("{" + strings.Join(top, ",") + pad + "}")
		var scratch []byte
		if _, ok := fastDelta(nil, js, &scratch); apiOrder && !ok {
			if _, gok := (&toFrames{}).delta(nil, compacted(js)); gok {
				t.Fatalf("%s: a padded delta in the API's order is not taken", js)
			}
		}
		if (apiOrder || pad == "") && !validDelta(js) {
			t.Fatalf("%s: a delta padded in the API's order, or compact, is not checked by validDelta", js)
		}
		at := rapid.IntRange(0, len(js)).Draw(t, "at")
		switch rapid.IntRange(0, 3).Draw(t, "edit") {
		case 0:
			if at < len(js) {
				js = append(js[:at:at], js[at+1:]...)
			}
		case 1:
			c := rapid.SampledFrom([]byte("{}[],:\"\\ \n0a-")).Draw(t, "byte")
			js = append(js[:at:at], append([]byte{c}, js[at:]...)...)
		case 2:
			js = js[:at]
		}
		// The event-stream check agrees with jsonlex.Valid, which
		// validDelta stands in for on the deltas it takes.
		if validDelta(js) && !json.Valid(js) {
			t.Fatalf("%q: not JSON, passed by validDelta", js)
		}
		if _, err := (API{}).CheckEvent([]byte("content_block_delta"), js); (err == nil) != json.Valid(js) {
			t.Fatalf("%q: CheckEvent says %v, encoding/json.Valid %v", js, err, json.Valid(js))
		}
		fast, ok := fastDelta(nil, js, &scratch)
		if !ok {
			return
		}
		if !json.Valid(js) {
			t.Fatalf("%q: not JSON, taken by the fast path as % X", js, fast)
		}
		var m toFrames
		general, gok := m.delta(nil, compacted(js))
		if !gok {
			t.Fatalf("%s: taken by the fast path as % X, not by the general path", js, fast)
		}
		if diff := cmp.Diff(general, fast); diff != "" {
			t.Fatalf("%s: the fast path's frames differ from the general path's (-general +fast):\n%s", js, diff)
		}
	})
}

// compacted is js compacted by encoding/json, as the Decoder compacts what
// its fast paths do not take.
func compacted(js []byte) []byte {
	var c bytes.Buffer
	json.Compact(&c, js)
	return c.Bytes()
}
