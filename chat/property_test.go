package chat

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
)

// member is one key and raw JSON value of an object being generated.
type member struct{ k, v string }

// object writes members as a JSON object, in a drawn order when shuffle
// is set (servers differ in their key order).
func object(t *rapid.T, shuffle bool, ms ...member) string {
	if shuffle {
		ms = rapid.Permutation(ms).Draw(t, "order")
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(m.k))
		b.WriteByte(':')
		b.WriteString(m.v)
	}
	b.WriteByte('}')
	return b.String()
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// textGen draws the text of a delta: ASCII, accents, CJK, emoji, controls
// and quotes, possibly empty.
var textGen = rapid.StringOfN(rapid.SampledFrom([]rune("ab Z.,\"\\\n\té中😀\u2028/")), 0, 12, -1)

// logprobText draws a logprob as a server might write it: a float32 in
// the layout of SPEC.md §3.10 (the OpenAI API's), the same float written
// by other rules (Go's, with an exponent, with more digits than the
// shortest), or a decimal of any length that is no float32's shortest.
var logprobText = rapid.Custom(func(t *rapid.T) string {
	bits := rapid.OneOf(rapid.Uint32(), rapid.Uint32Range(0xB0000000, 0xC1000000)).Draw(t, "bits") // any, or -1e-9 to -8
	if bits&0x7F800000 == 0x7F800000 {
		bits &^= 0x40000000
	}
	f := float64(math.Float32frombits(bits))
	switch rapid.IntRange(0, 5).Draw(t, "layout") {
	case 0, 1:
		return string(jsonlex.AppendBinary32(nil, float32(f)))
	case 2:
		return strconv.FormatFloat(f, rapid.SampledFrom([]byte("egf")).Draw(t, "fmt"), -1, 32)
	case 3:
		return strconv.FormatFloat(f, 'g', -1, 64) // the float32's value as float64 digits
	case 4:
		return string(jsonlex.AppendBinary32(nil, float32(f))) + "0"
	}
	return rapid.StringMatching(`-?(0|[1-9][0-9]{0,3})(\.[0-9]{1,9})?([eE][-+]?[0-9]{1,2})?`).Draw(t, "decimal")
})

// genStream draws a Chat Completions stream: chunks of 1–3 choices of
// content, refusal, reasoning, tool calls, logprobs, token IDs, role,
// obfuscation and unknown fields, in drawn key orders, then perhaps a
// finish chunk, a usage chunk, an error, and [DONE].
func genStream(t *rapid.T) []byte {
	shuffle := rapid.Bool().Draw(t, "shuffle")
	env := []member{{"id", jsonString("chatcmpl-" + rapid.StringMatching(`[a-zA-Z0-9]{0,8}`).Draw(t, "id"))},
		{"object", `"chat.completion.chunk"`}, {"created", strconv.Itoa(rapid.IntRange(0, 2e9).Draw(t, "created"))},
		{"model", jsonString(rapid.SampledFrom([]string{"gpt-4o", "Qwen/Qwen3-8B", "llama3.2", ""}).Draw(t, "model"))}}
	if rapid.Bool().Draw(t, "fingerprint") {
		env = append(env, member{"system_fingerprint", `"fp_x"`})
	}
	withObf := rapid.Bool().Draw(t, "obfuscation")
	withUsageNull := rapid.Bool().Draw(t, "usage null")
	role := rapid.Bool().Draw(t, "role every chunk")
	var out strings.Builder
	chunk := func(choices string, extra ...member) {
		ms := append(append([]member(nil), env...), member{"choices", choices})
		if withUsageNull {
			ms = append(ms, member{"usage", "null"})
		}
		ms = append(ms, extra...)
		if withObf {
			ms = append(ms, member{"obfuscation", jsonString(rapid.StringMatching(`[A-Za-z0-9]{0,6}`).Draw(t, "obf"))})
		}
		out.WriteString("data: " + object(t, shuffle, ms...) + "\n\n")
	}
	n := rapid.IntRange(0, 30).Draw(t, "chunks")
	for range n {
		index := strconv.Itoa(rapid.IntRange(0, 2).Draw(t, "choice"))
		text := textGen.Draw(t, "text")
		var delta []member
		if role {
			delta = append(delta, member{"role", `"assistant"`})
		}
		field := rapid.SampledFrom([]string{"content", "refusal", "reasoning_content", "reasoning", "tool", "empty", "null content"}).Draw(t, "field")
		switch field {
		case "tool":
			call := []member{{"index", strconv.Itoa(rapid.IntRange(0, 2).Draw(t, "tool"))}}
			fn := []member{{"arguments", jsonString(text)}}
			if rapid.Bool().Draw(t, "tool start") {
				call = append(call, member{"id", `"call_1"`}, member{"type", `"function"`})
				fn = append([]member{{"name", `"f"`}}, fn...)
			}
			call = append(call, member{"function", object(t, shuffle, fn...)})
			delta = append(delta, member{"tool_calls", "[" + object(t, shuffle, call...) + "]"})
		case "empty":
		case "null content":
			delta = append(delta, member{"content", "null"}, member{"reasoning_content", jsonString(text)})
		default:
			delta = append(delta, member{field, jsonString(text)})
		}
		ch := []member{{"index", index}, {"delta", object(t, shuffle, delta...)}}
		switch rapid.IntRange(0, 3).Draw(t, "logprobs") {
		case 1:
			ch = append(ch, member{"logprobs", "null"})
		case 2:
			bs, _ := json.Marshal([]byte(text))
			if len(text) == 0 {
				bs = []byte("[]")
			} else {
				var ints []int
				for _, c := range []byte(text) {
					ints = append(ints, int(c))
				}
				bs, _ = json.Marshal(ints)
			}
			lp := `[{"token":` + jsonString(text) + `,"logprob":` + logprobText.Draw(t, "lp") + `,"bytes":` + string(bs) + `,"top_logprobs":[]}]`
			ch = append(ch, member{"logprobs", `{"content":` + lp + `,"refusal":null}`})
		case 3:
			ch = append(ch, member{"logprobs", `{"content":[],"refusal":null}`})
		}
		if rapid.Bool().Draw(t, "token_ids") {
			ids := rapid.SliceOfN(rapid.Uint32Range(0, 200000), 0, 3).Draw(t, "ids")
			js, _ := json.Marshal(ids)
			if len(ids) == 0 {
				js = []byte("[]")
			}
			ch = append(ch, member{"token_ids", string(js)})
		}
		ch = append(ch, member{"finish_reason", "null"})
		var extra []member
		if rapid.IntRange(0, 9).Draw(t, "unknown") == 0 {
			extra = append(extra, member{"x_future", `{"a":[1,2.50,"b"]}`})
		}
		chunk("["+object(t, shuffle, ch...)+"]", extra...)
	}
	if rapid.Bool().Draw(t, "finish") {
		reason := rapid.SampledFrom([]string{"stop", "length", "tool_calls", "content_filter", "function_call", "other"}).Draw(t, "reason")
		chunk(`[{"index":0,"delta":{},"logprobs":null,"finish_reason":"` + reason + `"}]`)
	}
	if rapid.Bool().Draw(t, "usage") {
		u := []member{{"prompt_tokens", strconv.Itoa(rapid.IntRange(0, 5000).Draw(t, "prompt"))},
			{"completion_tokens", strconv.Itoa(rapid.IntRange(0, 5000).Draw(t, "completion"))}, {"total_tokens", "7"}}
		if rapid.Bool().Draw(t, "details") {
			u = append(u, member{"prompt_tokens_details", object(t, shuffle, member{"cached_tokens", strconv.Itoa(rapid.IntRange(0, 6000).Draw(t, "cached"))}, member{"audio_tokens", "0"})})
		}
		ms := append(append([]member(nil), env...), member{"choices", "[]"}, member{"usage", object(t, shuffle, u...)})
		out.WriteString("data: " + object(t, shuffle, ms...) + "\n\n")
	}
	switch rapid.IntRange(0, 4).Draw(t, "end") {
	case 0:
		out.WriteString(`data: {"error":{"message":` + jsonString(textGen.Draw(t, "msg")) + `,"type":"` + rapid.SampledFrom([]string{"server_error", "invalid_request_error", "odd"}).Draw(t, "type") + `","param":null,"code":null}}` + "\n\n")
	case 1:
		out.WriteString(`data: {"error":{"object":"error","message":"m","type":"BadRequestError","param":null,"code":400}}` + "\n\ndata: [DONE]\n\n")
	default:
		out.WriteString("data: [DONE]\n\n")
	}
	return []byte(out.String())
}

// TestRoundTripProperty: a drawn stream, SSE → ANTH → SSE, gives the same
// events, the same completion, and the same ANTH when decoded again (the
// Encoder's chunks are what its twin maps to the same frames).
func TestRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src := genStream(t)
		raw := rapid.Bool().Draw(t, "raw events")
		anth := toANTH(t, src, DecoderOptions{RawEvents: raw})
		back := toSSEBytes(t, anth, EncoderOptions{})
		if d := diffEvents(t, src, back); d != "" {
			t.Fatalf("SSE → ANTH → SSE differs:\n%s\nsource:\n%s", d, src)
		}
		if again := toANTH(t, back, DecoderOptions{RawEvents: raw}); !bytes.Equal(again, anth) {
			t.Fatalf("ANTH → SSE → ANTH differs:\n% X\n% X", anth, again)
		}
	})
}

// TestLogprobProperty: a chunk's logprob, however it is written, comes
// back as the same text through SSE → ANTH → SSE, and it travels as 4
// bytes of binary32 exactly when the text is the layout of SPEC.md §3.10
// of the float32 it reads as (jsonlex's tests check that layout).
func TestLogprobProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lp := logprobText.Draw(t, "logprob")
		src := []byte(`data: {"choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":` + lp +
			`,"bytes":[72,105],"top_logprobs":[]}],"refusal":null}}]}` + "\n\ndata: [DONE]\n\n")
		anth := toANTH(t, src, DecoderOptions{})
		back := toSSEBytes(t, anth, EncoderOptions{})
		if !bytes.Equal(back, src) {
			t.Fatalf("SSE → ANTH → SSE:\n%s\nwant\n%s", back, src)
		}
		want := byte(frame.EventJSON)
		if v, err := strconv.ParseFloat(lp, 32); err == nil && lp == string(jsonlex.AppendBinary32(nil, float32(v))) {
			want = frame.EventBinary32
		}
		r := frame.NewReader(bytes.NewReader(anth), frame.ReaderOptions{RawFrames: true})
		for {
			f, err := r.Next()
			if err != nil {
				t.Fatalf("no EVENT logprob: %v", err)
			}
			if ev, err := f.Event(); err == nil && string(ev.Name) == "logprob" {
				if ev.Encoding != want {
					t.Fatalf("logprob %s as encoding %d, want %d", lp, ev.Encoding, want)
				}
				return
			}
		}
	})
}
