// Package chatsse writes OpenAI Chat Completions streams as the OpenAI API
// sends them — `data:`-only Server-Sent Events, one chunk of JSON each,
// ending in `data: [DONE]` — for the benchmarks and the comparisons that
// set ANTH against them. It models text responses of one choice; the
// bridge itself is package chat's.
package chatsse

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
)

// Response is a streamed text response and the envelope every chunk of it
// repeats.
type Response struct {
	ID, Model, SystemFingerprint, ServiceTier string
	Created                                   int64
	PromptTokens, CompletionTokens            int
	CachedTokens                              int
	FinishReason                              string
	// Obfuscation adds the API's `obfuscation` field to every chunk: a
	// random string of 1 to 16 letters and digits against length side
	// channels (stream_options.include_obfuscation, on by default).
	Obfuscation bool
	// Usage adds the `include_usage` chunk before `[DONE]`.
	Usage bool
}

type chunk struct {
	ID                string   `json:"id"`
	Object            string   `json:"object"`
	Created           int64    `json:"created"`
	Model             string   `json:"model"`
	ServiceTier       string   `json:"service_tier,omitempty"`
	SystemFingerprint string   `json:"system_fingerprint,omitempty"`
	Choices           []choice `json:"choices"`
	Usage             *usage   `json:"usage,omitempty"`
	Obfuscation       string   `json:"obfuscation,omitempty"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        any     `json:"delta"`
	Logprobs     *int    `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
}

// firstDelta is the first chunk's delta; later ones carry content alone.
type firstDelta struct {
	Role    string  `json:"role"`
	Content string  `json:"content"`
	Refusal *string `json:"refusal"`
}

type delta struct {
	Content string `json:"content"`
}

type usage struct {
	PromptTokens            int            `json:"prompt_tokens"`
	CompletionTokens        int            `json:"completion_tokens"`
	TotalTokens             int            `json:"total_tokens"`
	PromptTokensDetails     map[string]int `json:"prompt_tokens_details"`
	CompletionTokensDetails map[string]int `json:"completion_tokens_details"`
}

// AppendResponse appends r as the OpenAI API streams it: a first chunk
// with the role and empty content (and a null refusal), a chunk per piece
// of text, a chunk with the finish reason, the usage chunk if r asks for
// it, and `data: [DONE]`. seed makes the obfuscation strings.
func AppendResponse(b []byte, r Response, pieces []string, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 0xC4A7))
	c := chunk{ID: r.ID, Object: "chat.completion.chunk", Created: r.Created, Model: r.Model, ServiceTier: r.ServiceTier, SystemFingerprint: r.SystemFingerprint}
	emit := func(ch []choice, u *usage) {
		c.Choices, c.Usage = ch, u
		if r.Obfuscation {
			c.Obfuscation = obfuscation(rng)
		}
		js, _ := json.Marshal(c)
		b = append(b, "data: "...)
		b = append(b, js...)
		b = append(b, "\n\n"...)
	}
	emit([]choice{{Delta: firstDelta{Role: "assistant"}}}, nil)
	for _, p := range pieces {
		emit([]choice{{Delta: delta{Content: p}}}, nil)
	}
	reason := r.FinishReason
	if reason == "" {
		reason = "stop"
	}
	emit([]choice{{Delta: struct{}{}, FinishReason: &reason}}, nil)
	if r.Usage {
		emit([]choice{}, &usage{
			PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens, TotalTokens: r.PromptTokens + r.CompletionTokens,
			PromptTokensDetails:     map[string]int{"cached_tokens": r.CachedTokens, "audio_tokens": 0},
			CompletionTokensDetails: map[string]int{"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
		})
	}
	return append(b, "data: [DONE]\n\n"...)
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func obfuscation(rng *rand.Rand) string {
	s := make([]byte, 1+rng.IntN(16))
	for i := range s {
		s[i] = alnum[rng.IntN(len(alnum))]
	}
	return string(s)
}

// ID returns a chat completion ID of the API's form, from n.
func ID(n uint64) string {
	s := strconv.FormatUint(n*0x9E3779B97F4A7C15, 36)
	for len(s) < 29 {
		s += s
	}
	return "chatcmpl-" + s[:29]
}
