package chat

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/layer0/anth/frame"
)

// TestEdgeStreams: streams in forms the recordings do not have round-trip
// too, and their text reaches a frame client when the chunk can carry it
// typed: CRLF line ends, comments and keep-alives, data split over lines,
// a template too long to keep (EVENT frames continued past 65,535 bytes),
// text with a lone surrogate or bytes that are not UTF-8 (which no frame
// can give back, so the chunk travels whole), a negative tool index and two
// tool calls in one chunk (whole), duplicate keys (whole), a named event,
// and [DONE] after an error.
func TestEdgeStreams(t *testing.T) {
	big := strings.Repeat("x", 100000)
	for _, c := range []struct {
		name, sse string
		text      string // what the frames' text must hold
	}{
		{"crlf", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\r\n\r\ndata: [DONE]\r\n\r\n", "a"},
		{"comments", ": keep-alive\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n: ping\n\n: x\ndata: [DONE]\n\n", "a"},
		{"multi-line data", "data: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n", "a"},
		{"whitespace", "data:  { \"choices\" : [ { \"index\" : 0 , \"delta\" : { \"content\" : \"a b\" } } ] } \n\ndata: [DONE]\n\n", "a b"},
		{"long template", "data: {\"p\":\"" + big + "\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"p\":\"" + big + "\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}\n\ndata: [DONE]\n\n", "ab"},
		{"lone surrogate", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ud800\"}}]}\n\ndata: [DONE]\n\n", ""},
		{"not UTF-8", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff\"}}]}\n\ndata: [DONE]\n\n", ""},
		{"negative tool index", `data: {"id":"test","object":"chat.completion.chunk","created":0,"model":"test","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_123","index":-1,"type":"function","function":{"name":"test_func","arguments":"{}"}}]}}]}` + "\n\ndata: [DONE]\n\n", ""},
		{"two tool calls", `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{"}},{"index":1,"function":{"arguments":"}"}}]}}]}` + "\n\ndata: [DONE]\n\n", ""},
		{"duplicate key", `data: {"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}` + "\n\ndata: [DONE]\n\n", ""},
		{"named event", "event: note\ndata: {\"x\":1}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n", "a"},
		{"done after error", `data: {"error":{"message":"m","type":"server_error","param":null,"code":null}}` + "\n\ndata: [DONE]\n\ndata: {\"late\":true}\n\n", ""},
		// Copies and counts that must not read as holes, and copies that do
		// (§7b.2, items 5 and 6).
		{"empty text copy", `data: {"choices":[{"index":0,"text":"","delta":{"content":"Hi"}}]}` + "\n\ndata: [DONE]\n\n", ""},
		{"other text copy", `data: {"choices":[{"index":0,"text":"x","delta":{"content":"Hi"}}]}` + "\n\ndata: [DONE]\n\n", "Hi"},
		{"escaped text copy", `data: {"choices":[{"index":0,"text":"\u0041","delta":{"content":"A"}}]}` + "\n\ndata: [DONE]\n\n", "A"},
		{"reasoning_details copy", `data: {"choices":[{"index":0,"delta":{"reasoning":"hm","reasoning_details":[{"type":"reasoning.text","text":"hm","index":0}]}}]}` + "\n\ndata: [DONE]\n\n", "hm"},
		{"empty reasoning_details copy", `data: {"choices":[{"index":0,"delta":{"reasoning":"hm","reasoning_details":[{"type":"reasoning.text","text":"","index":0}]}}]}` + "\n\ndata: [DONE]\n\n", ""},
		{"message copy", `data: {"choices":[{"index":0,"message":{"content":"Hi","role":"assistant"},"delta":{"content":"Hi","role":"assistant"}}]}` + "\n\ndata: [DONE]\n\n", "Hi"},
		{"empty message copy", `data: {"choices":[{"index":0,"message":{"content":""},"delta":{"content":"Hi"}}]}` + "\n\ndata: [DONE]\n\n", ""},
		{"message copy twice", `data: {"choices":[{"index":0,"message":{"content":"Hi","content":"Hi"},"delta":{"content":"Hi"}}]}` + "\n\ndata: [DONE]\n\n", "Hi"},
		{"message arguments copy", `data: {"choices":[{"index":0,"message":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}` + "\n\ndata: [DONE]\n\n", "{}"},
		{"message not an object", `data: {"choices":[{"index":0,"message":"Hi","delta":{"content":"Hi"}}]}` + "\n\ndata: [DONE]\n\n", "Hi"},
		{"usage with another total", `data: {"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":5}}` + "\n\ndata: [DONE]\n\n", "a"},
		{"usage twice", `data: {"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":1,"prompt_tokens":2,"completion_tokens":0}}` + "\n\ndata: [DONE]\n\n", "a"},
		{"token_id beside token_ids", `data: {"choices":[{"index":0,"delta":{"content":"a","token_id":3},"token_ids":[3]}]}` + "\n\ndata: [DONE]\n\n", "a"},
		{"token_id null", `data: {"choices":[{"index":0,"delta":{"content":"a","token_id":null}}]}` + "\n\ndata: [DONE]\n\n", "a"},
		{"content and tool call", `data: {"id":"test","choices":[{"index":0,"delta":{"content":"","tool_calls":[{"id":"call_1","index":0,"type":"function","function":{"name":"search","arguments":"{}"}}]}}]}` + "\n\ndata: [DONE]\n\n", "{}"},
	} {
		src := []byte(c.sse)
		anth := toANTH(t, src, DecoderOptions{})
		back := toSSEBytes(t, anth, EncoderOptions{})
		if d := diffEvents(t, src, back); d != "" {
			t.Errorf("%s: SSE → ANTH → SSE differs:\n%s", c.name, d)
		}
		if again := toANTH(t, back, DecoderOptions{}); !bytes.Equal(again, anth) {
			t.Errorf("%s: ANTH → SSE → ANTH differs", c.name)
		}
		var text []byte
		r := frame.NewReader(bytes.NewReader(anth), frame.ReaderOptions{})
		for {
			f, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			switch f.Type {
			case frame.TypeText:
				_, b, _ := f.Text()
				text = append(text, b...)
			case frame.TypeDelta:
				_, _, b, _ := f.Delta()
				text = append(text, b...)
			}
		}
		if string(text) != c.text {
			t.Errorf("%s: frames carry text %q, want %q", c.name, text, c.text)
		}
	}
}

// TestBridgedCutCharacter: in a bridged stream, a character that a TEXT
// frame splits reaches the client whole in the next chunk, and one cut off
// by the end as U+FFFD before [DONE] (SPEC.md §7): never ill-formed UTF-8
// in a JSON string, never dropped.
func TestBridgedCutCharacter(t *testing.T) {
	anth := frame.AppendMagic(nil)
	anth = frame.AppendEvent(anth, frame.EventJSON, []byte("content"), []byte(`{"choices":[{"index":0,"delta":{"content":""}}]}`))
	anth = frame.AppendText(anth, 0, []byte("a\xe4\xbd"))
	anth = frame.AppendText(anth, 0, []byte("\xa0b\xe5"))
	anth = frame.AppendDone(anth, 0, "")
	c := accumulate(t, toSSEBytes(t, anth, EncoderOptions{}))
	if got := c.Choices[0].Content; got != "a你b\uFFFD" || !c.Done {
		t.Errorf("content %q, done %v; want %q", got, c.Done, "a你b\uFFFD")
	}
}

// TestEncoderEOF: an EVENT eof makes the DONE write no [DONE] only when the
// last event written is a chunk a stream may end after (SPEC.md §7b.3), so
// that the SSE reads as whole; ANTH that no Decoder made, with an EVENT eof
// and no such chunk, gets its [DONE] (FuzzEncoder found an EVENT eof alone).
func TestEncoderEOF(t *testing.T) {
	ev := func(b []byte, name, js string) []byte {
		return frame.AppendEvent(b, frame.EventJSON, []byte(name), []byte(js))
	}
	fin := `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	open := `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`
	for _, c := range []struct {
		name   string
		frames []byte
		done   bool // the SSE ends in data: [DONE]
	}{
		{"eof alone", ev(nil, "eof", "null"), true},
		{"after a finish chunk", ev(ev(nil, "chunk", fin), "eof", "null"), false},
		{"after an open chunk", ev(ev(nil, "chunk", open), "eof", "null"), true},
		{"after a named event", ev(ev(ev(nil, "chunk", fin), "event:note", "{}"), "eof", "null"), true},
		{"a template after the finish chunk", ev(ev(ev(nil, "chunk", fin), "content", `{"choices":[{"index":0,"delta":{"content":""}}]}`), "eof", "null"), false},
		{"before the USAGE that writes the usage chunk", frame.AppendUsage(ev(ev(nil, "usage", `{"choices":[],"usage":{}}`), "eof", "null"), frame.Usage{InputTokens: 1, OutputTokens: 1}), false},
		{"after the usage chunk's USAGE", ev(frame.AppendUsage(ev(nil, "usage", `{"choices":[],"usage":{}}`), frame.Usage{InputTokens: 1, OutputTokens: 1}), "eof", "null"), false},
	} {
		anth := frame.AppendDone(append(frame.AppendMagic(nil), c.frames...), frame.StopEndTurn, "")
		sse := toSSEBytes(t, anth, EncoderOptions{})
		if got := bytes.HasSuffix(sse, []byte("data: [DONE]\n\n")); got != c.done {
			t.Errorf("%s: [DONE] written %v, want %v:\n%s", c.name, got, c.done, sse)
		}
		if _, err := io.ReadAll(NewDecoder(bytes.NewReader(sse), DecoderOptions{})); err != nil {
			t.Errorf("%s: the SSE does not decode: %v", c.name, err)
		}
	}
}
