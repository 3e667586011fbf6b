package chat

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/layer0/anth/frame"
)

// completion is what a client that accumulates a stream builds, as
// openai-go's ChatCompletionAccumulator and openai-node's
// finalChatCompletion() do: the envelope of the chunks, each choice's text
// fields, logprobs and tool calls joined, its finish_reason, and the
// usage.
type completion struct {
	ID, Model, SystemFingerprint, ServiceTier string
	Created                                   json.Number
	Choices                                   map[int]*choice
	Usage                                     json.RawMessage
	Error                                     json.RawMessage
	Done                                      bool
}

type choice struct {
	Content, Refusal, Reasoning string
	ContentParts                []json.RawMessage // content that is not a string (Mistral's thinking parts), as sent
	FinishReason                string
	Logprobs                    []json.RawMessage // content and refusal tokens, in order
	ToolCalls                   map[int]*toolCall
	FunctionCall                toolCall
	TokenIDs                    []json.Number
}

type toolCall struct{ ID, Type, Name, Arguments string }

type chunkJSON struct {
	ID                string          `json:"id"`
	Model             string          `json:"model"`
	Created           json.Number     `json:"created"`
	SystemFingerprint string          `json:"system_fingerprint"`
	ServiceTier       string          `json:"service_tier"`
	Usage             json.RawMessage `json:"usage"`
	Error             json.RawMessage `json:"error"`
	Choices           []struct {
		Index int `json:"index"`
		Delta struct {
			Content          json.RawMessage `json:"content"`
			Refusal          *string         `json:"refusal"`
			ReasoningContent *string         `json:"reasoning_content"`
			Reasoning        *string         `json:"reasoning"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			FunctionCall *struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function_call"`
		} `json:"delta"`
		Logprobs *struct {
			Content []json.RawMessage `json:"content"`
			Refusal []json.RawMessage `json:"refusal"`
		} `json:"logprobs"`
		FinishReason *string       `json:"finish_reason"`
		TokenIDs     []json.Number `json:"token_ids"`
	} `json:"choices"`
}

// accumulate builds the completion of an SSE stream.
func accumulate(t testing.TB, b []byte) completion {
	t.Helper()
	c := completion{Choices: map[int]*choice{}}
	for _, ev := range eventStrings(t, b) {
		if ev == "[DONE]" {
			c.Done = true
			continue
		}
		var ch chunkJSON
		d := json.NewDecoder(strings.NewReader(ev))
		d.UseNumber()
		if err := d.Decode(&ch); err != nil {
			t.Fatalf("chunk %q: %v", ev, err)
		}
		if ch.Error != nil {
			c.Error = ch.Error
			continue
		}
		c.ID, c.Model, c.Created = ch.ID, ch.Model, ch.Created
		if ch.SystemFingerprint != "" {
			c.SystemFingerprint = ch.SystemFingerprint
		}
		if ch.ServiceTier != "" {
			c.ServiceTier = ch.ServiceTier
		}
		if len(ch.Usage) > 0 && string(ch.Usage) != "null" {
			c.Usage = ch.Usage
		}
		for _, x := range ch.Choices {
			cc := c.Choices[x.Index]
			if cc == nil {
				cc = &choice{ToolCalls: map[int]*toolCall{}}
				c.Choices[x.Index] = cc
			}
			dl := x.Delta
			for _, f := range []struct {
				p   *string
				dst *string
			}{{contentString(dl.Content, &cc.ContentParts), &cc.Content}, {dl.Refusal, &cc.Refusal}, {dl.ReasoningContent, &cc.Reasoning}, {dl.Reasoning, &cc.Reasoning}} {
				if f.p != nil {
					*f.dst += *f.p
				}
			}
			for _, tc := range dl.ToolCalls {
				call := cc.ToolCalls[tc.Index]
				if call == nil {
					call = &toolCall{}
					cc.ToolCalls[tc.Index] = call
				}
				call.ID += tc.ID
				call.Type += tc.Type
				call.Name += tc.Function.Name
				call.Arguments += tc.Function.Arguments
			}
			if fc := dl.FunctionCall; fc != nil {
				cc.FunctionCall.Name += fc.Name
				cc.FunctionCall.Arguments += fc.Arguments
			}
			if x.Logprobs != nil {
				cc.Logprobs = append(append(cc.Logprobs, x.Logprobs.Content...), x.Logprobs.Refusal...)
			}
			if x.FinishReason != nil {
				cc.FinishReason = *x.FinishReason
			}
			cc.TokenIDs = append(cc.TokenIDs, x.TokenIDs...)
		}
	}
	return c
}

// contentString returns content if it is a JSON string, else nil, having
// added content to parts unless it is null or missing: Mistral streams its
// thinking as an array of parts in delta.content.
func contentString(content json.RawMessage, parts *[]json.RawMessage) *string {
	var s string
	if len(content) == 0 || string(content) == "null" {
		return nil
	}
	if json.Unmarshal(content, &s) == nil {
		return &s
	}
	*parts = append(*parts, content)
	return nil
}

// eventStrings returns the data of each event of an SSE stream.
func eventStrings(t testing.TB, b []byte) []string {
	var out []string
	for _, ev := range events(t, b) {
		if s, ok := ev.Data.(string); ok {
			out = append(out, s)
			continue
		}
		js, _ := json.Marshal(ev.Data)
		out = append(out, string(js))
	}
	return out
}

// TestAccumulatedCompletion: the completion a client accumulates is the
// same from each recording and from SSE → ANTH → SSE, and it is not empty
// (so the test can tell).
func TestAccumulatedCompletion(t *testing.T) {
	recs := recordings(t)
	for _, name := range sortedNames(recs) {
		src := recs[name]
		want := accumulate(t, src)
		if len(want.Choices) == 0 && want.Error == nil {
			t.Errorf("%s: accumulates to nothing", name)
		}
		got := accumulate(t, toSSEBytes(t, toANTH(t, src, DecoderOptions{}), EncoderOptions{}))
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: accumulated completion differs (-want +got):\n%s", name, d)
		}
	}
}

// untypedText names the streams whose text no block carries, and why: it
// travels, whole, in their chunks' EVENTs.
var untypedText = map[string]string{
	"layer0-openai-function-call.sse": "the legacy function_call's arguments",
	// §7b.2 numbers a tool call's block by its index, which Mistral's lacks.
	"chat-more/vercel-ai_mistral_mistral-tool-call.sse": "a tool call without an index",
	// §7b.1 types content that is a string; Magistral's is an array of
	// thinking and text parts.
	"chat-more/vercel-ai_mistral_mistral-reasoning.sse": "content as an array of parts",
}

// TestFrameClientText: a client that reads only frames (frame.Reader and
// frame.Text, the README's client) reads each choice's content, refusal,
// reasoning and tool arguments by block, as the SDK accumulates them
// (SPEC.md §7b.1): every block's text is one of the completion's fields,
// and every non-empty field is one block's text.
func TestFrameClientText(t *testing.T) {
	recs := recordings(t)
	for _, name := range sortedNames(recs) {
		src := recs[name]
		comp := accumulate(t, src)
		var fields []string
		for _, c := range comp.Choices {
			for _, s := range []string{c.Content, c.Refusal, c.Reasoning} {
				if s != "" {
					fields = append(fields, s)
				}
			}
			for _, tc := range c.ToolCalls {
				if tc.Arguments != "" {
					fields = append(fields, tc.Arguments)
				}
			}
		}
		r := frame.NewReader(bytes.NewReader(toANTH(t, src, DecoderOptions{})), frame.ReaderOptions{})
		blocks := map[uint16]string{}
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
			}
		}
		var texts []string
		for _, s := range blocks {
			if s != "" {
				texts = append(texts, s)
			}
		}
		if _, ok := untypedText[name]; ok {
			continue
		}
		if len(fields) == 0 {
			t.Errorf("%s: no text fields to compare", name)
		}
		sort.Strings(fields)
		sort.Strings(texts)
		if d := cmp.Diff(fields, texts); d != "" {
			t.Errorf("%s: frames' text by block differs from the completion's fields (-completion +frames):\n%s", name, d)
		}
	}
}
