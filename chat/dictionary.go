package chat

import (
	"sync"

	"github.com/layer0/anth/deflate"
)

// EventDictionary is version 1 of the preset dictionary of the Chat
// Completions bridge's EVENT frames of encoding frame.EventDeflate, and of
// its anth-deflate bodies (SPEC.md §7b.6, §11.3): compact chunk JSON as the
// OpenAI API, vLLM, SGLang, llama.cpp's server and Ollama write it, so that
// a chunk's envelope, a finish_reason chunk or a usage chunk deflates to a
// few dozen bytes. The most common shapes come last, where DEFLATE's
// distances are shortest. It is part of the wire format: changing a byte of
// it is a new encoding, never an edit. This is its single copy; other
// implementations generate theirs from this file.
const EventDictionary = `{"error":{"object":"error","message":"","type":"BadRequestError","param":null,"code":400}}` +
	`{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}` +
	`"timings":{"cache_n":0,"prompt_n":0,"prompt_ms":0.0,"prompt_per_token_ms":0.0,"prompt_per_second":0.0,"predicted_n":0,"predicted_ms":0.0,"predicted_per_token_ms":0.0,"predicted_per_second":0.0}` +
	`"model":"Qwen/Qwen3-8B""model":"meta-llama/Llama-3.1-8B-Instruct""model":"deepseek-ai/DeepSeek-R1""model":"llama3.2""model":"gpt-oss:20b","system_fingerprint":"fp_ollama"` +
	`"prompt_token_ids":[],"kv_transfer_params":null,"stop_reason":null,"token_ids":[]` +
	`{"index":0,"delta":{"reasoning_content":""},"logprobs":null,"finish_reason":null}` +
	`{"index":0,"delta":{"role":"assistant","content":"","reasoning":""},"finish_reason":null}` +
	`"logprobs":{"content":[{"token":"","logprob":-0.0,"bytes":[],"top_logprobs":[{"token":"","logprob":-0.0,"bytes":[]}]}],"refusal":null}` +
	`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_","type":"function","function":{"name":"","arguments":""}}]},"logprobs":null,"finish_reason":null}` +
	`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]},"logprobs":null,"finish_reason":null}` +
	`{"index":0,"delta":{},"logprobs":null,"finish_reason":"content_filter"}` +
	`{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}` +
	`{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}` +
	`"usage":{"total_tokens":0,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}` +
	`{"id":"chatcmpl-","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_","choices":[],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}` +
	`{"id":"chatcmpl-","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null,"obfuscation":""}` +
	`{"id":"chatcmpl-","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":""}`

// eventDict is EventDictionary prepared once, for EVENT data and as
// anth-deflate's preset dictionary.
var eventDict = sync.OnceValue(func() *deflate.Dictionary { return deflate.NewDictionary([]byte(EventDictionary)) })
