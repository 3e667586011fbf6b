package messages

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/frame"
)

// TestNames: each code the API names has exactly its name both ways, and
// every other code, and every other name, has none.
func TestNames(t *testing.T) {
	reasons := map[frame.StopReason]string{
		frame.StopEndTurn:                    "end_turn",
		frame.StopMaxTokens:                  "max_tokens",
		frame.StopSequence:                   "stop_sequence",
		frame.StopToolUse:                    "tool_use",
		frame.StopPauseTurn:                  "pause_turn",
		frame.StopRefusal:                    "refusal",
		frame.StopModelContextWindowExceeded: "model_context_window_exceeded",
	}
	got := map[frame.StopReason]string{}
	for r := range 256 {
		if name := StopReasonName(frame.StopReason(r)); name != "" {
			got[frame.StopReason(r)] = name
		}
	}
	if d := cmp.Diff(reasons, got); d != "" {
		t.Errorf("StopReasonName (-want +got):\n%s", d)
	}
	for r, name := range reasons {
		if back, ok := ParseStopReason(name); !ok || back != r {
			t.Errorf("ParseStopReason(%q) = %v, %v; want %v", name, back, ok, r)
		}
	}
	for _, name := range []string{"", "END_TURN", "end_turn ", "unknown", "error(0)"} {
		if r, ok := ParseStopReason(name); ok || r != 0 {
			t.Errorf("ParseStopReason(%q) = %v, %v; want no code", name, r, ok)
		}
	}

	types := map[frame.ErrorCode]string{
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
	for c := range 1 << 16 {
		code := frame.ErrorCode(c)
		want, named := types[code]
		if !named {
			want = "error(" + strconv.Itoa(c) + ")"
		}
		if got := ErrorTypeName(code); got != want {
			t.Fatalf("ErrorTypeName(%d) = %q, want %q", c, got, want)
		}
	}
	for code, name := range types {
		if back, ok := ParseErrorType(name); !ok || back != code {
			t.Errorf("ParseErrorType(%q) = %v, %v; want %v", name, back, ok, code)
		}
	}
	for _, name := range []string{"", "error", "error(500)", "API_ERROR", "overloaded"} {
		if c, ok := ParseErrorType(name); ok || c != 0 {
			t.Errorf("ParseErrorType(%q) = %v, %v; want no code", name, c, ok)
		}
	}

	for k, d := range deltaTypes {
		if kind, ok := deltaKind(d.typ); !ok || kind != frame.DeltaKind(k) {
			t.Errorf("deltaKind(%q) = %v, %v; want %v", d.typ, kind, ok, k)
		}
	}
	if kind, ok := deltaKind("tool_use_delta"); ok || kind != 0 {
		t.Errorf("deltaKind of an unknown type: %v, %v", kind, ok)
	}
}
