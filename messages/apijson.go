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
	b = appendUsageCounts(b, u, startInput)
	return append(b, "}}"...)
}

// appendUsageCounts appends the members of a message_delta's usage that
// USAGE and CACHE_USAGE frames carry, in the form u takes (SPEC.md §7a):
// the four counts with cache counts, input and output tokens when the
// input differs from message_start's, else output tokens alone.
func appendUsageCounts(b []byte, u usageState, startInput uint64) []byte {
	for _, k := range usageKeys(u, startInput) {
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, `":`...)
		b = strconv.AppendUint(b, u.count(k), 10)
		b = append(b, ',')
	}
	return b[:len(b)-1]
}

// The usage counts of a message_delta, in the order the API writes them.
var (
	allCounts    = []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"}
	inOutCounts  = []string{"input_tokens", "output_tokens"}
	outputCounts = []string{"output_tokens"}
)

// usageKeys names the counts appendUsageCounts writes for u.
func usageKeys(u usageState, startInput uint64) []string {
	switch {
	case !u.hasUsage:
		return outputCounts
	case u.hasCache:
		return allCounts
	case uint64(u.usage.InputTokens) != startInput:
		return inOutCounts
	}
	return outputCounts
}

// count is the usage count named k.
func (u usageState) count(k string) uint64 {
	switch k {
	case "input_tokens":
		return uint64(u.usage.InputTokens)
	case "cache_creation_input_tokens":
		return uint64(u.cache.CacheCreationInputTokens)
	case "cache_read_input_tokens":
		return uint64(u.cache.CacheReadInputTokens)
	}
	return uint64(u.usage.OutputTokens)
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
