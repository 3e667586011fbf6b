package request

import "sync"

// chatDictionary is version 2 of the extended request's string dictionary
// (SPEC.md §5.5): the keys and the common values of OpenAI Chat Completions
// request JSON, each sent as one byte, its index. It was chosen by counting
// the keys and values of the request bodies in testdata/requests/chat, as
// the OpenAI API reference and the self-hosted servers' documentation
// name them. It is part of the wire format: entries are only ever added at
// the end, in a new version. This is its single copy. No entry is longer
// than 25 bytes, so version 2 expands no more than version 1
// (Limits.MaxOutputSize).
var chatDictionary = [...]string{
	// The request's own fields.
	"model", "messages", "stream", "stream_options", "include_usage",
	"include_obfuscation", "temperature", "top_p", "n", "stop", "max_tokens",
	"max_completion_tokens", "presence_penalty", "frequency_penalty",
	"logit_bias", "logprobs", "top_logprobs", "seed", "user", "tools",
	"tool_choice", "parallel_tool_calls", "response_format", "metadata",
	"store", "service_tier", "modalities", "audio", "voice", "format",
	"prediction", "reasoning_effort", "verbosity", "web_search_options",
	"search_context_size", "user_location", "approximate", "city", "country",
	"region", "timezone", "prompt_cache_key", "prompt_cache_retention",
	"safety_identifier", "functions", "function_call",
	// Messages and their content parts.
	"role", "system", "developer", "assistant", "tool", "content", "name",
	"type", "text", "image_url", "url", "detail", "input_audio", "data",
	"file", "file_data", "file_id", "filename", "refusal", "tool_calls",
	"tool_call_id", "id", "function", "arguments", "annotations",
	"data:image/png;base64,", "data:image/jpeg;base64,",
	"data:image/webp;base64,", "data:image/gif;base64,",
	// Tools, tool_choice and JSON schemas.
	"description", "parameters", "strict", "properties", "required",
	"additionalProperties", "object", "string", "number", "integer",
	"boolean", "array", "null", "items", "enum", "default", "minimum",
	"maximum", "$schema", "$defs", "$ref", "anyOf", "const", "pattern",
	"json_schema", "json_object", "schema", "custom", "grammar", "syntax",
	"definition", "lark", "regex", "allowed_tools", "mode",
	// Common values.
	"auto", "none", "low", "medium", "high", "minimal", "xhigh", "wav", "mp3",
	"flac", "opus", "pcm16", "alloy", "ash", "ballad", "coral", "echo",
	"sage", "shimmer", "verse", "flex", "priority", "scale",
	"in_memory", "24h", "gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini",
	"gpt-5", "gpt-5-mini", "o3", "o4-mini",
	// What vLLM, SGLang, llama.cpp and Ollama add.
	"top_k", "min_p", "repetition_penalty", "chat_template_kwargs",
	"enable_thinking", "stop_token_ids", "return_token_ids",
	"skip_special_tokens", "structured_outputs", "guided_json",
	"continuous_usage_stats", "reasoning", "reasoning_content",
	"cache_prompt", "n_probs", "keep_alive", "options", "num_ctx",
}

// maxChatDictString is the longest string of chatDictionary
// (TestChatDictionary keeps it so).
const maxChatDictString = 23 // "data:image/jpeg;base64,"

// chatDict is version 2: Chat Completions requests (§5.5).
var chatDict = &dictionary{
	version: 2, api: "Chat Completions", reader: "AppendChatJSON",
	words: chatDictionary[:], longest: maxChatDictString, dataURL: true,
	index: sync.OnceValue(func() map[string]byte {
		m := make(map[string]byte, len(chatDictionary))
		for i, s := range chatDictionary {
			m[s] = byte(i) // TestChatDictionary keeps the entries unique
		}
		return m
	}),
}
