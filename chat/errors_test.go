package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/layer0/anth/frame"
)

func TestErrorMessage(t *testing.T) {
	for _, c := range []struct {
		err  *Error
		want string
	}{
		{&Error{Offset: 12, Err: ErrMalformed, Detail: "x"}, "chat: offset 12: malformed: x"},
		{&Error{Offset: -1, Err: ErrTruncated}, "chat: unexpected EOF"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
		if !errors.Is(c.err, c.err.Err) || !errors.Is(c.err, frame.ErrMalformed) && c.err.Err == ErrMalformed {
			t.Errorf("%v does not unwrap to its kind", c.err)
		}
	}
}

// TestDecoderErrorOffsets: a fault in the SSE is reported at the offset of
// the event that holds it.
func TestDecoderErrorOffsets(t *testing.T) {
	good := textChunk("a")
	for _, c := range []struct {
		name, sse string
		kind      error
		off       int
	}{
		{"not JSON", good + "data: {\"a\":\n\n", ErrMalformed, len(good)},
		{"not JSON after the end", good + "data: [DONE]\n\ndata: nope\n\n", ErrMalformed, len(good) + 14},
		{"no [DONE]", good, ErrTruncated, len(good)},
		{"event over MaxEvent", good + "data: \"" + strings.Repeat("x", 2000) + "\"\n\n", ErrTooLarge, -1},
	} {
		_, err := io.ReadAll(NewDecoder(strings.NewReader(c.sse), DecoderOptions{MaxEvent: 1000}))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, c.kind) || (c.off >= 0 && e.Offset != int64(c.off)) {
			t.Errorf("%s: %v, want %v at %d", c.name, err, c.kind, c.off)
		}
	}
}

// TestEncoderErrorOffsets: ANTH that cannot be a Chat Completions stream is
// reported at the offset of the frame that shows it (SPEC.md §7b.2).
func TestEncoderErrorOffsets(t *testing.T) {
	ev := frame.AppendEvent(nil, frame.EventJSON, []byte("chunk"), []byte(`{"choices":[]}`))
	tpl := frame.AppendEvent(nil, frame.EventJSON, []byte("content"), []byte(`{"choices":[{"index":0,"delta":{"content":""}}]}`))
	for _, c := range []struct {
		name   string
		frames [][]byte
		kind   error
		at     int // the frame the error is at
	}{
		{"text with no template", [][]byte{ev, frame.AppendText(nil, 0, []byte("a"))}, ErrMalformed, 1},
		{"template with text", [][]byte{frame.AppendEvent(nil, frame.EventJSON, []byte("content"), []byte(`{"choices":[{"index":0,"delta":{"content":"a"}}]}`))}, ErrMalformed, 0},
		{"thinking for a content block", [][]byte{tpl, frame.AppendDelta(nil, 0, frame.DeltaThinking, []byte("a"))}, ErrMalformed, 1},
		{"token IDs with no hole", [][]byte{tpl, frame.AppendToken(nil, 7), frame.AppendText(nil, 0, []byte("a"))}, ErrMalformed, 2},
		{"logprob not a number", [][]byte{tpl, frame.AppendEvent(nil, frame.EventJSON, []byte("logprob"), []byte(`"x"`))}, ErrMalformed, 1},
		{"EVENT not JSON", [][]byte{frame.AppendEvent(nil, frame.EventJSON, []byte("chunk"), []byte(`{`))}, ErrMalformed, -1},
	} {
		anth := frame.AppendMagic(nil)
		off := -1
		for i, f := range c.frames {
			if i == c.at {
				off = len(anth)
			}
			anth = append(anth, f...)
		}
		e := NewEncoder(io.Discard, EncoderOptions{})
		_, err := e.Write(anth)
		var ce *Error
		if !errors.As(err, &ce) || !errors.Is(err, c.kind) || (off >= 0 && ce.Offset != int64(off)) {
			t.Errorf("%s: %v, want %v at %d", c.name, err, c.kind, off)
		}
	}
}

// TestNativeStream: frames from a server that never saw SSE become chunks
// an SDK accumulates to their text, and a usage chunk and [DONE] (SPEC.md
// §7b.5); read back, each block's text is the same.
func TestNativeStream(t *testing.T) {
	anth := frame.AppendMagic(nil)
	anth = frame.AppendDelta(anth, 0, frame.DeltaThinking, []byte("hm"))
	anth = frame.AppendText(anth, 1, []byte("Hi \xe4\xbd"))
	anth = frame.AppendText(anth, 1, []byte("\xa0!"))
	anth = frame.AppendDelta(anth, 2, frame.DeltaInputJSON, []byte(`{"a":1}`))
	anth = frame.AppendUsage(anth, frame.Usage{InputTokens: 10, OutputTokens: 3})
	anth = frame.AppendCacheUsage(anth, frame.CacheUsage{CacheReadInputTokens: 4})
	anth = frame.AppendDone(anth, frame.StopToolUse, "")
	out := toSSEBytes(t, anth, EncoderOptions{Model: "m1", Created: 5})
	c := accumulate(t, out)
	ch := c.Choices[0]
	if ch == nil || ch.Reasoning != "hm" || ch.Content != "Hi 你!" || ch.ToolCalls[0] == nil || ch.ToolCalls[0].Arguments != `{"a":1}` ||
		ch.FinishReason != "tool_calls" || c.Model != "m1" || c.Created != "5" || !c.Done ||
		!jsonSame(string(c.Usage), `{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":4}}`) {
		t.Fatalf("accumulated %+v %+v from\n%s", c, ch, out)
	}
	r := frame.NewReader(bytes.NewReader(toANTH(t, out, DecoderOptions{})), frame.ReaderOptions{})
	blocks := map[uint16]string{}
	var usage frame.Usage
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch f.Type {
		case frame.TypeText:
			b, text, _ := f.Text()
			blocks[b] += string(text)
		case frame.TypeDelta:
			b, _, text, _ := f.Delta()
			blocks[b] += string(text)
		case frame.TypeUsage:
			usage, _ = f.Usage()
		}
	}
	if want := map[uint16]string{0: "hm", 1: "Hi 你!", 2: `{"a":1}`}; !reflect.DeepEqual(blocks, want) || usage.InputTokens != 10 || usage.OutputTokens != 3 {
		t.Errorf("read back: blocks %q, usage %+v; want %q", blocks, usage, want)
	}
}

func jsonSame(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}
