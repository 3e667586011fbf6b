package messages

import (
	"sync"

	"github.com/layer0/anth/deflate"
)

// EventDictionary is version 1 of the preset dictionary for EVENT frames
// of encoding frame.EventDeflate (SPEC.md §3.10): compact JSON of the events
// an Anthropic stream sends once per message, so that a message_start with
// its id, model and usage deflates to a few dozen bytes. It is part of the
// wire format: changing a byte of it is a new encoding, never an edit. This
// is its single copy; other implementations (the JavaScript package)
// generate theirs from this file.
const EventDictionary = `{"type":"ping"}` +
	`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` +
	`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}` +
	`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":""}}` +
	`{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[{"type":"web_search_result","title":"","url":"https://","encrypted_content":"","page_age":null}]}}` +
	`{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{}}}` +
	`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":[]}}` +
	`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"","input":{}}}` +
	`{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null},"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0,"server_tool_use":{"web_search_requests":0}}}` +
	`{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":0}}` +
	`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":0}}` +
	`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":0}}` +
	`"model":"claude-3-7-sonnet-20250219""model":"claude-opus-4-1-20250805""model":"claude-haiku-4-5-20251001""model":"claude-opus-4-5-20251101"` +
	`{"type":"message_start","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard"}}}` +
	`{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5-20250929","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard"}}}`

// eventDict is EventDictionary as anth-deflate's preset dictionary (SPEC.md
// §11.3), prepared once.
var eventDict = sync.OnceValue(func() *deflate.Dictionary { return deflate.NewDictionary([]byte(EventDictionary)) })
