package request

import "sync"

// requestDictionary is version 1 of the extended request's string
// dictionary (SPEC.md §5.4): the keys and the common values of the Messages
// API's request JSON, each sent as one byte, its index. It is part of the
// wire format: entries are only ever added at the end, in a new version.
// This is its single copy.
var requestDictionary = [...]string{
	// The request's own fields.
	"model", "messages", "max_tokens", "system", "stream", "metadata", "user_id",
	"stop_sequences", "temperature", "top_p", "top_k", "tools", "tool_choice",
	"thinking", "budget_tokens", "service_tier", "container", "mcp_servers",
	"context_management", "output_format", "betas",
	// Messages and their content blocks.
	"role", "user", "assistant", "content", "type", "text", "image", "document",
	"source", "media_type", "data", "base64", "url", "file", "file_id",
	"tool_use", "tool_result", "id", "name", "input", "tool_use_id", "is_error",
	"redacted_thinking", "signature", "citations", "title", "context",
	"enabled", "disabled", "search_result", "server_tool_use",
	"web_search_tool_result", "cache_control", "ephemeral", "ttl", "5m", "1h",
	"image/jpeg", "image/png", "image/gif", "image/webp", "application/pdf",
	"text/plain", "char_location", "page_location", "content_block_location",
	"cited_text", "document_index", "document_title", "start_char_index",
	"end_char_index", "start_page_number", "end_page_number",
	// Tools and their JSON schemas.
	"description", "input_schema", "properties", "required", "object", "string",
	"number", "integer", "boolean", "array", "null", "items", "enum",
	"additionalProperties", "default", "format", "minimum", "maximum", "$schema",
	"auto", "any", "tool", "none", "disable_parallel_tool_use",
	"web_search_20250305", "web_search", "max_uses", "allowed_domains",
	"blocked_domains", "user_location", "approximate", "city", "region",
	"country", "timezone", "bash_20250124", "bash", "text_editor_20250124",
	"str_replace_editor", "computer_20250124", "computer", "code_execution_20250522",
	"code_execution", "display_width_px", "display_height_px", "display_number",
	"standard_only", "priority",
}

// maxDictString is the longest string of the dictionary (TestRequestDictionary
// keeps it so): longer strings need no look-up.
const maxDictString = 25 // "disable_parallel_tool_use"

// requestDictIndex maps each dictionary string to its index, built once.
var requestDictIndex = sync.OnceValue(func() map[string]byte {
	m := make(map[string]byte, len(requestDictionary))
	for i, s := range requestDictionary {
		m[s] = byte(i) // TestRequestDictionary keeps the entries unique
	}
	return m
})
