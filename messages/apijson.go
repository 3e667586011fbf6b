package messages

import (
	"strconv"

	"github.com/layer0/anth/internal/jsonlex"

	"github.com/layer0/anth/frame"
)

// The Messages API's event JSON as the bridge writes it from typed frames:
// compact, in the API's key order. Writing SSE uses these; reading SSE
// maps an event to typed frames only if these give back the same JSON
// value (SPEC.md §7a), so the bridge is lossless by construction.

// appendDeltaJSON appends a content_block_delta. text is valid UTF-8, or
// for a citation one JSON object.
func appendDeltaJSON(b []byte, block uint16, kind frame.DeltaKind, text []byte) []byte {
	b = append(b, `{"type":"content_block_delta","index":`...)
	b = strconv.AppendUint(b, uint64(block), 10)
	b = append(b, `,"delta":{"type":"`...)
	b = append(b, deltaTypes[kind].typ...)
	b = append(b, `","`...)
	b = append(b, deltaTypes[kind].field...)
	b = append(b, `":`...)
	if kind == frame.DeltaCitation {
		b = append(b, text...)
	} else {
		b = append(b, '"')
		b = jsonlex.AppendEscaped(b, text)
		b = append(b, '"')
	}
	return append(b, "}}"...)
}

// appendBlockStartJSON appends the content_block_start of an empty text or
// thinking block.
func appendBlockStartJSON(b []byte, block uint16, op frame.BlockOp) []byte {
	b = append(b, `{"type":"content_block_start","index":`...)
	b = strconv.AppendUint(b, uint64(block), 10)
	if op == frame.BlockStartThinking {
		return append(b, `,"content_block":{"type":"thinking","thinking":"","signature":""}}`...)
	}
	return append(b, `,"content_block":{"type":"text","text":""}}`...)
}

func appendBlockStopJSON(b []byte, block uint16) []byte {
	b = append(b, `{"type":"content_block_stop","index":`...)
	b = strconv.AppendUint(b, uint64(block), 10)
	return append(b, '}')
}

// appendMessageStartJSON appends the message_start of a stream that has
// none of its own (ANTH from a server that never saw SSE).
func appendMessageStartJSON(b []byte, id, model string) []byte {
	b = append(b, `{"type":"message_start","message":{"id":`...)
	b = jsonlex.AppendString(b, []byte(id))
	b = append(b, `,"type":"message","role":"assistant","content":[],"model":`...)
	b = jsonlex.AppendString(b, []byte(model))
	return append(b, `,"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`...)
}

// usageState is what a message_delta's usage says, as USAGE and
// CACHE_USAGE frames carry it.
type usageState struct {
	usage    frame.Usage
	cache    frame.CacheUsage
	hasUsage bool // a USAGE frame
	hasCache bool // a CACHE_USAGE frame
}

// appendMessageDeltaJSON appends the message_delta of a response that stops
// for reason (with seq, for StopSequence) with usage u. startInput is the
// input_tokens of the message's message_start. The usage object takes one
// of four forms, chosen by what the frames hold:
//
//	no USAGE                   {"output_tokens":0}
//	CACHE_USAGE                {"input_tokens":…,"cache_creation_input_tokens":…,"cache_read_input_tokens":…,"output_tokens":…}
//	input as in message_start  {"output_tokens":…}
//	otherwise                  {"input_tokens":…,"output_tokens":…}
func appendMessageDeltaJSON(b []byte, reason frame.StopReason, seq []byte, u usageState, startInput uint64) []byte {
	b = append(b, `{"type":"message_delta","delta":{"stop_reason":`...)
	if name := StopReasonName(reason); name != "" {
		b = jsonlex.AppendString(b, []byte(name))
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"stop_sequence":`...)
	if reason == frame.StopSequence {
		b = jsonlex.AppendString(b, seq)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `},"usage":{`...)
	switch {
	case !u.hasUsage:
	case u.hasCache:
		b = append(b, `"input_tokens":`...)
		b = strconv.AppendUint(b, uint64(u.usage.InputTokens), 10)
		b = append(b, `,"cache_creation_input_tokens":`...)
		b = strconv.AppendUint(b, uint64(u.cache.CacheCreationInputTokens), 10)
		b = append(b, `,"cache_read_input_tokens":`...)
		b = strconv.AppendUint(b, uint64(u.cache.CacheReadInputTokens), 10)
		b = append(b, ',')
	case uint64(u.usage.InputTokens) != startInput:
		b = append(b, `"input_tokens":`...)
		b = strconv.AppendUint(b, uint64(u.usage.InputTokens), 10)
		b = append(b, ',')
	}
	b = append(b, `"output_tokens":`...)
	b = strconv.AppendUint(b, uint64(u.usage.OutputTokens), 10)
	return append(b, "}}"...)
}

const messageStopJSON = `{"type":"message_stop"}`

// appendErrorJSON appends an error event's JSON.
func appendErrorJSON(b []byte, code frame.ErrorCode, message []byte) []byte {
	b = append(b, `{"type":"error","error":{"type":`...)
	b = jsonlex.AppendString(b, []byte(ErrorTypeName(code)))
	b = append(b, `,"message":`...)
	b = jsonlex.AppendString(b, message)
	return append(b, "}}"...)
}

// appendEvent appends one SSE event: its name (none when empty, so the
// client sees the default type, as it did upstream) and its JSON, which
// must hold no line break.
func appendEvent(b []byte, name, js []byte) []byte {
	if len(name) > 0 {
		b = append(b, "event: "...)
		b = append(b, name...)
		b = append(b, '\n')
	}
	b = append(b, "data: "...)
	b = append(b, js...)
	return append(b, "\n\n"...)
}
