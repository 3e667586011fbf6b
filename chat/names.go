package chat

import (
	"github.com/layer0/anth/frame"
)

// The Chat Completions API's names for what frames carry as numbers: the one
// place that knows how the chunks spell them (SPEC.md §7b.3).

// finishReasons maps a finish_reason to the DONE reason it gives. "stop"
// gives StopSequence instead when the choice names the stop string (vLLM's
// stop_reason).
var finishReasons = map[string]frame.StopReason{
	"stop":           frame.StopEndTurn,
	"length":         frame.StopMaxTokens,
	"tool_calls":     frame.StopToolUse,
	"function_call":  frame.StopToolUse,
	"content_filter": frame.StopRefusal,
}

// FinishReason returns the DONE reason of a finish_reason (SPEC.md §7b.3):
// frame.StopUnspecified for names it does not know.
func FinishReason(name string) frame.StopReason { return finishReasons[name] }

// FinishReasonName returns the finish_reason an Encoder writes for a DONE
// reason in a stream with no chunks of its own (SPEC.md §7b.5).
func FinishReasonName(r frame.StopReason) string {
	switch r {
	case frame.StopMaxTokens, frame.StopModelContextWindowExceeded:
		return "length"
	case frame.StopToolUse:
		return "tool_calls"
	case frame.StopRefusal:
		return "content_filter"
	}
	return "stop"
}

var errorTypes = map[frame.ErrorCode]string{
	frame.CodeInvalidRequest: "invalid_request_error",
	frame.CodeAuthentication: "authentication_error",
	frame.CodePermission:     "permission_error",
	frame.CodeNotFound:       "not_found_error",
	frame.CodeRateLimit:      "rate_limit_error",
	frame.CodeAPI:            "server_error",
}

// ErrorTypeName returns the error type the bridge writes for an ERROR
// frame's code (SPEC.md §7b.3): "error" for codes the table does not name.
func ErrorTypeName(c frame.ErrorCode) string {
	if n, ok := errorTypes[c]; ok {
		return n
	}
	return "error"
}

// ParseErrorType returns the code of an error type, and false for types the
// table does not name.
func ParseErrorType(name string) (frame.ErrorCode, bool) {
	for c, n := range errorTypes {
		if n == name {
			return c, true
		}
	}
	return 0, false
}
