package main

import (
	"unicode"
	"unicode/utf8"

	"github.com/layer0/anth/internal/ssejson"
)

// sampleText is the demo's response: English and Chinese, as a model might
// answer a bilingual question.
const sampleText = "Streaming an answer token by token is cheap for the model and costly on the wire: " +
	"each token travels in a JSON event of about 120 bytes. " +
	"流式输出时，每个词元都被包成一个完整的 JSON 事件。" +
	" ANTH sends the same text in frames of a few bytes, and 中文 stays intact."

// sampleResponse is the rest of the response: what usage and stop reason the
// server reports.
var sampleResponse = ssejson.Response{
	ID:            "msg_01DemoAnthLayer0Sample",
	Model:         "claude-sonnet-4-5",
	InputTokens:   212,
	OutputTokens:  61,
	CacheRead:     1024,
	CacheCreation: 0,
	StopReason:    "end_turn",
}

// samplePieces splits text the way a tokenizer's output arrives: a word with
// its leading space, a punctuation mark, or one CJK character per delta.
func samplePieces(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		if i == start {
			continue
		}
		prev, _ := utf8.DecodeLastRuneInString(text[:i])
		cut := r == ' ' || unicode.Is(unicode.Han, r) || unicode.Is(unicode.Han, prev) ||
			unicode.IsPunct(r) || unicode.IsPunct(prev) && prev != '\''
		if cut {
			out = append(out, text[start:i])
			start = i
		}
	}
	return append(out, text[start:])
}
