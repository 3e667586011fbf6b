package chatsse

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestAppendResponse: the stream is the pieces' text in content chunks,
// every chunk with the envelope, the finish reason, the usage, then
// [DONE]; obfuscation in every chunk when asked, 1 to 16 letters or digits.
func TestAppendResponse(t *testing.T) {
	pieces := []string{"Hello", ", ", "wörld", "\n\"quoted\""}
	for _, obf := range []bool{false, true} {
		r := Response{ID: ID(3), Model: "gpt-4o", SystemFingerprint: "fp_1", ServiceTier: "default", Created: 1, PromptTokens: 10, CompletionTokens: 4, CachedTokens: 2, Obfuscation: obf, Usage: true}
		events := bytes.Split(bytes.TrimSuffix(AppendResponse(nil, r, pieces, 1), []byte("\n\n")), []byte("\n\n"))
		if got := string(events[len(events)-1]); got != "data: [DONE]" {
			t.Fatalf("last event %q, want data: [DONE]", got)
		}
		var text strings.Builder
		var finish string
		var usage map[string]any
		for _, ev := range events[:len(events)-1] {
			var c struct {
				ID, Object, Model, Obfuscation string
				Choices                        []struct {
					Delta struct {
						Role    string
						Content *string
					}
					FinishReason *string `json:"finish_reason"`
				}
				Usage map[string]any
			}
			if err := json.Unmarshal(bytes.TrimPrefix(ev, []byte("data: ")), &c); err != nil {
				t.Fatalf("%s: %v", ev, err)
			}
			if c.ID != r.ID || c.Object != "chat.completion.chunk" || c.Model != "gpt-4o" {
				t.Errorf("envelope of %s", ev)
			}
			if n := len(c.Obfuscation); obf != (n > 0) || n > 16 || strings.Trim(c.Obfuscation, alnum) != "" {
				t.Errorf("obfuscation %q, asked %v", c.Obfuscation, obf)
			}
			for _, ch := range c.Choices {
				if ch.Delta.Content != nil {
					text.WriteString(*ch.Delta.Content)
				}
				if ch.FinishReason != nil {
					finish = *ch.FinishReason
				}
			}
			if c.Usage != nil {
				usage = c.Usage
			}
		}
		if text.String() != strings.Join(pieces, "") || finish != "stop" || usage["total_tokens"] != 14.0 {
			t.Errorf("text %q, finish %q, usage %v", text.String(), finish, usage)
		}
	}
}
