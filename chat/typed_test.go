package chat

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/layer0/anth/frame"
)

// TestTypedFrames: what the typed frames say of each recording is what its
// chunks say (SPEC.md §7b.3), so that the Decoder's exactness checks, which
// send a chunk whole when its typed frames would not give it back, cannot
// quietly leave a frame client without them: one USAGE per chunk with usage
// counts (the include_usage chunk, a last chunk of text that carries them,
// Perplexity's running counts), the DONE reason of choice 0's last finish_reason,
// an ERROR for an error chunk, and text frames for most chunks.
func TestTypedFrames(t *testing.T) {
	recs := recordings(t)
	for _, name := range sortedNames(recs) {
		src := recs[name]
		comp := accumulate(t, src)
		r := frame.NewReader(bytes.NewReader(toANTH(t, src, DecoderOptions{})), frame.ReaderOptions{})
		var usages, texts, events int
		var done *frame.StopReason
		var errCode *frame.ErrorCode
		var last frame.Usage
		for {
			f, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			switch f.Type {
			case frame.TypeUsage:
				usages++
				last, _ = f.Usage()
			case frame.TypeText, frame.TypeDelta:
				texts++
			case frame.TypeEvent:
				if ev, _ := f.Event(); string(ev.Name) != "logprob" {
					events++
				}
			case frame.TypeDone:
				reason, _, _ := f.Done()
				done = &reason
			case frame.TypeError:
				code, _, _ := f.ErrorMessage()
				errCode = &code
			}
		}
		if want := usageChunks(t, src); usages != want {
			t.Errorf("%s: %d USAGE frames for %d usage chunks", name, usages, want)
		}
		if usages > 0 && last.InputTokens == 0 && last.OutputTokens == 0 {
			t.Errorf("%s: the last USAGE is empty", name)
		}
		if comp.Error != nil {
			if errCode == nil {
				t.Errorf("%s: an error chunk and no ERROR frame", name)
			}
		} else if c0 := comp.Choices[0]; done == nil || *done != FinishReason(c0.FinishReason) {
			t.Errorf("%s: DONE %v, finish_reason %q", name, done, c0.FinishReason)
		}
		chunks := bytes.Count(src, []byte("data: {"))
		if strings.HasPrefix(name, "chat-more/vercel-ai_") {
			// Other servers send chunks no typed frame says, which travel
			// whole by design: Mistral's thinking as parts in content,
			// Perplexity's citations and running usage in every chunk.
			continue
		}
		switch name {
		case "layer0-openai-function-call.sse":
			continue // the legacy function_call delta is no block: it travels whole
		case "chat-more/openllmetry_writer_streaming_chat_tool_call_request.sse":
			// Six chunks, two of them arguments: Writer starts its tool
			// call with arguments null, no block, so that chunk travels
			// whole.
			continue
		case "layer0-openai-logprobs-top.sse":
			// top_logprobs change every chunk's template: an EVENT each, and a
			// TEXT each too
			if texts != chunks-1 {
				t.Errorf("%s: %d text frames for %d chunks", name, texts, chunks)
			}
			continue
		}
		// Half the chunks or more typed as text; EVENTs for at most one chunk
		// in three besides four: the role's chunk, the first text's (a new
		// template), the finish and the usage, which a short stream is
		// mostly made of.
		if texts*2 < chunks || events*3 > chunks+12 {
			t.Errorf("%s: %d text frames and %d EVENTs for %d chunks: too few chunks typed", name, texts, events, chunks)
		}
	}
}

// usageChunks counts the chunks of an SSE stream, up to its error if it
// ends in one, that §7b.2 and §7b.3 type as usage: prompt_tokens and
// completion_tokens in usage, whatever else the chunk holds.
func usageChunks(t *testing.T, src []byte) int {
	n := 0
	for _, ev := range eventStrings(t, src) {
		var c struct {
			Usage *struct {
				Prompt     *uint32 `json:"prompt_tokens"`
				Completion *uint32 `json:"completion_tokens"`
			} `json:"usage"`
			Error map[string]any `json:"error"`
		}
		if json.Unmarshal([]byte(ev), &c) != nil {
			continue
		}
		if len(c.Error) > 0 {
			break
		}
		if c.Usage != nil && c.Usage.Prompt != nil && c.Usage.Completion != nil {
			n++
		}
	}
	return n
}
