package jsonlex

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The events the bridge reads most: a text delta, once per token, and the
// message_delta and message_start of every response.
var (
	benchDelta        = []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello, world"}}`)
	benchMessageDelta = []byte(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":15}}`)
	benchStart        = []byte(`{"type": "message_start", "message": {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}`)
)

// BenchmarkField: one field of an event, here the usage's output_tokens
// of a message_delta, against encoding/json decoding the event into the
// struct a bridge would declare.
func BenchmarkField(b *testing.B) {
	b.Run("jsonlex", func(b *testing.B) {
		b.SetBytes(int64(len(benchMessageDelta)))
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := Uint(benchMessageDelta, "usage", "output_tokens"); !ok {
				b.Fatal("no field")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(benchMessageDelta)))
		b.ReportAllocs()
		for b.Loop() {
			var v struct {
				Usage struct {
					OutputTokens uint64 `json:"output_tokens"`
				} `json:"usage"`
			}
			if err := json.Unmarshal(benchMessageDelta, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCompact: an event with the whitespace the API writes, compacted
// as the bridge copies it, against encoding/json.Compact.
func BenchmarkCompact(b *testing.B) {
	var dst []byte
	b.Run("jsonlex", func(b *testing.B) {
		b.SetBytes(int64(len(benchStart)))
		b.ReportAllocs()
		for b.Loop() {
			var ok bool
			if dst, ok = AppendCompact(dst[:0], benchStart); !ok {
				b.Fatal("not JSON")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		var buf bytes.Buffer
		b.SetBytes(int64(len(benchStart)))
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := json.Compact(&buf, benchStart); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkValid: whether an event is JSON, as a relay that passes it on
// checks it, against encoding/json.Valid.
func BenchmarkValid(b *testing.B) {
	b.Run("jsonlex", func(b *testing.B) {
		b.SetBytes(int64(len(benchStart)))
		b.ReportAllocs()
		for b.Loop() {
			if !Valid(benchStart) {
				b.Fatal("not JSON")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(benchStart)))
		b.ReportAllocs()
		for b.Loop() {
			if !json.Valid(benchStart) {
				b.Fatal("not JSON")
			}
		}
	})
}

// BenchmarkEqual: whether a delta event is the JSON the bridge would write
// back (what decides that it can travel as a typed frame alone), against
// decoding both into values and comparing them.
func BenchmarkEqual(b *testing.B) {
	other := []byte(`{"index":0,"type":"content_block_delta","delta":{"text":"Hello, world","type":"text_delta"}}`)
	b.Run("jsonlex", func(b *testing.B) {
		b.SetBytes(int64(len(benchDelta)))
		b.ReportAllocs()
		for b.Loop() {
			if eq, sure := Equal(benchDelta, other); !eq || !sure {
				b.Fatal("not equal")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(benchDelta)))
		b.ReportAllocs()
		for b.Loop() {
			var x, y any
			if json.Unmarshal(benchDelta, &x) != nil || json.Unmarshal(other, &y) != nil {
				b.Fatal("not JSON")
			}
		}
	})
}
