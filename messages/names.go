package messages

import (
	"strconv"

	"github.com/layer0/anth/frame"
)

// The Anthropic Messages API's names for what frames carry as numbers: the
// one place that knows how the JSON API spells them (SPEC.md §7a).

var stopReasonNames = [...]string{
	frame.StopEndTurn:                    "end_turn",
	frame.StopMaxTokens:                  "max_tokens",
	frame.StopSequence:                   "stop_sequence",
	frame.StopToolUse:                    "tool_use",
	frame.StopPauseTurn:                  "pause_turn",
	frame.StopRefusal:                    "refusal",
	frame.StopModelContextWindowExceeded: "model_context_window_exceeded",
}

// StopReasonName returns the API's stop_reason for r ("end_turn", …), or
// "" for frame.StopUnspecified and reasons the API does not name.
func StopReasonName(r frame.StopReason) string {
	if int(r) < len(stopReasonNames) {
		return stopReasonNames[r]
	}
	return ""
}

// ParseStopReason returns the code of an API stop_reason. It reports false
// for names that have no code; "" is not a name.
func ParseStopReason(name string) (frame.StopReason, bool) {
	for i, n := range stopReasonNames {
		if n != "" && n == name {
			return frame.StopReason(i), true
		}
	}
	return 0, false
}

var errorTypes = map[frame.ErrorCode]string{
	frame.CodeInvalidRequest:  "invalid_request_error",
	frame.CodeAuthentication:  "authentication_error",
	frame.CodeBilling:         "billing_error",
	frame.CodePermission:      "permission_error",
	frame.CodeNotFound:        "not_found_error",
	frame.CodeRequestTooLarge: "request_too_large",
	frame.CodeRateLimit:       "rate_limit_error",
	frame.CodeAPI:             "api_error",
	frame.CodeTimeout:         "timeout_error",
	frame.CodeOverloaded:      "overloaded_error",
}

// ErrorTypeName returns the API's error type for an ERROR frame's code
// ("overloaded_error", …), or "error(N)" for a code the API does not pair
// with a type (SPEC.md §3.3).
func ErrorTypeName(c frame.ErrorCode) string {
	if n, ok := errorTypes[c]; ok {
		return n
	}
	return "error(" + strconv.Itoa(int(c)) + ")"
}

// ParseErrorType returns the code the API pairs with an error type.
func ParseErrorType(name string) (frame.ErrorCode, bool) {
	for c, n := range errorTypes {
		if n == name {
			return c, true
		}
	}
	return 0, false
}

// deltaTypes is the JSON of each delta a content_block_delta carries: its
// "type" and the field that holds its bytes, by DELTA kind (0 is text, which
// travels in TEXT frames). Both directions of the bridge read it.
var deltaTypes = [...]struct{ typ, field string }{
	0:                    {"text_delta", "text"},
	frame.DeltaInputJSON: {"input_json_delta", "partial_json"},
	frame.DeltaThinking:  {"thinking_delta", "thinking"},
	frame.DeltaSignature: {"signature_delta", "signature"},
	frame.DeltaCitation:  {"citations_delta", "citation"},
}

// deltaKind returns the DELTA kind of a JSON delta type (0 for text).
func deltaKind(typ string) (frame.DeltaKind, bool) {
	for k, d := range deltaTypes {
		if d.typ == typ {
			return frame.DeltaKind(k), true
		}
	}
	return 0, false
}
