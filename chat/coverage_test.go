package chat

import (
	"bytes"
	"testing"
)

// TestFieldsCovered: every field issue 22 names for the bridge appears in
// at least one stream of testdata/chat, so that the round-trip tests
// (TestRecordingsRoundTrip, TestAccumulatedCompletion) exercise it.
func TestFieldsCovered(t *testing.T) {
	fields := []struct{ what, sub string }{
		{"content", `"delta":{"content":"`},
		{"refusal", `"delta":{"refusal":"I`},
		{"tool call id/type/name", `"id":"call_`},
		{"tool call type and name", `"type":"function","function":{"name":"`},
		{"tool arguments fragments", `"function":{"arguments":"{`},
		{"parallel tool calls", `"tool_calls":[{"index":1,"id":"`},
		{"several choices (n > 1)", `"index":1,"delta":{"content":"`},
		{"content logprobs", `"logprobs":{"content":[{"token":"`},
		{"refusal logprobs", `"refusal":[{"token":"`},
		{"logprob and bytes", `","logprob":-0.0`},
		{"top_logprobs", `"top_logprobs":[{"token":"`},
		{"finish_reason stop", `"finish_reason":"stop"`},
		{"finish_reason length", `"finish_reason":"length"`},
		{"finish_reason tool_calls", `"finish_reason":"tool_calls"`},
		{"finish_reason content_filter", `"finish_reason":"content_filter"`},
		{"finish_reason function_call", `"finish_reason":"function_call"`},
		{"include_usage chunk", `"choices":[],"usage":{"prompt_tokens":`},
		{"cached_tokens", `"prompt_tokens_details":{"cached_tokens":`},
		{"reasoning_tokens", `"completion_tokens_details":{"reasoning_tokens":`},
		{"id", `"id":"chatcmpl-`},
		{"created", `"created":17`},
		{"model", `"model":"gpt-4o`},
		{"system_fingerprint", `"system_fingerprint":"fp_`},
		{"service_tier", `"service_tier":"default"`},
		{"a field that does not exist yet", `"future_field":{`},
		{"reasoning_content", `"reasoning_content":"`},
		{"reasoning", `"reasoning":"`},
		{"token_ids", `"token_ids":[`},
		{"wide token IDs", `"token_ids":[151645]`},
		{"timings", `"timings":{`},
		{"mid-stream error", `data: {"error":{`},
		{"obfuscation", `"obfuscation":"`},
		{"role in every chunk", `"delta":{"role":"assistant","content":"Soft"`},
		{"surrogate-pair escape", `\ud83d`},
	}
	recs := recordings(t)
	for _, f := range fields {
		found := false
		for _, b := range recs {
			if bytes.Contains(b, []byte(f.sub)) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s (%s) is in no recording", f.what, f.sub)
		}
	}
}
