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

// dictionary is one version of the extended request (SPEC.md §5.4, §5.5):
// the version byte after the magic "ANTX" names the API whose request it
// is, its string dictionary, and whether its data-URL tag is in use. One
// codec reads and writes both versions through it, so a request is never
// read with another API's dictionary.
type dictionary struct {
	version byte
	api     string // the API, as errors name it
	reader  string // the function that reads this version, as errors name it
	words   []string
	longest int                    // the longest entry, in bytes: longer strings need no look-up
	index   func() map[string]byte // each entry's index, built on first use
	dataURL bool                   // tag 0B, a data URL as its bytes (§5.5)
}

// messagesDict is version 1: Messages API requests (§5.4).
var messagesDict = &dictionary{
	version: 1, api: "Messages", reader: "AppendJSON",
	words: requestDictionary[:], longest: maxDictString, index: requestDictIndex,
}

// lookup returns the index of s in d, if it is there.
func (d *dictionary) lookup(s []byte) (byte, bool) {
	if len(s) > d.longest {
		return 0, false
	}
	i, ok := d.index()[string(s)]
	return i, ok
}

// dictionaryOf returns the dictionary of an extended request's version
// byte, or nil for a version this package does not know.
func dictionaryOf(version byte) *dictionary {
	switch version {
	case messagesDict.version:
		return messagesDict
	case chatDict.version:
		return chatDict
	}
	return nil
}
