package frame

import "strconv"

// Type is the frame type: the first byte of every frame.
//
// Types 0x00–0x7F are must-understand: a reader that meets one it does not
// know must stop with ErrUnknownType, because skipping it could change the
// meaning of the stream. Types 0x80–0xFF are ignorable: a reader skips the
// ones it does not know (SPEC.md §3). The same split is used by the snappy
// framing format for its chunk types.
type Type uint8

// The frame types of SPEC.md §3.
const (
	TypeToken      Type = 0x00 // token IDs, u16 each (the seed's TOKEN frame)
	TypeUsage      Type = 0x01 // input, output token counts and cache hit ratio
	TypeError      Type = 0x02 // an error the server reports mid-stream
	TypeDone       Type = 0x03 // end of the response, with an optional stop reason
	TypeToken32    Type = 0x04 // token IDs, u32 each, for vocabularies past 65,536
	TypeText       Type = 0x05 // UTF-8 bytes of one content block
	TypeDelta      Type = 0x06 // tool input JSON, thinking or signature bytes of a block
	TypeBlock      Type = 0x07 // a content block starts or stops
	TypePad        Type = 0x80 // padding that hides frame sizes; ignorable
	TypeCacheUsage Type = 0x81 // prompt-cache token counts; ignorable
	TypeEvent      Type = 0x82 // an event of a bridged stream (SSE), kept whole; ignorable
)

// Ignorable reports whether a reader that does not know t may skip it.
func (t Type) Ignorable() bool { return t >= 0x80 }

// Known reports whether this package knows the layout of t's payload.
func (t Type) Known() bool {
	switch t {
	case TypeToken, TypeUsage, TypeError, TypeDone, TypeToken32, TypeText, TypeDelta, TypeBlock, TypePad, TypeCacheUsage, TypeEvent:
		return true
	}
	return false
}

// String returns the type's name as SPEC.md spells it, or "TYPE(0xNN)" for
// types this package does not know.
func (t Type) String() string {
	switch t {
	case TypeToken:
		return "TOKEN"
	case TypeUsage:
		return "USAGE"
	case TypeError:
		return "ERROR"
	case TypeDone:
		return "DONE"
	case TypeToken32:
		return "TOKEN32"
	case TypeText:
		return "TEXT"
	case TypeDelta:
		return "DELTA"
	case TypeBlock:
		return "BLOCK"
	case TypeEvent:
		return "EVENT"
	case TypePad:
		return "PAD"
	case TypeCacheUsage:
		return "CACHE_USAGE"
	}
	return "TYPE(0x" + hex2(uint8(t)) + ")"
}

func hex2(v uint8) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[v>>4], digits[v&0xF]})
}

// Wire constants of SPEC.md §2.
const (
	// Magic is the 4 bytes that start every ANTH stream and request.
	Magic = "ANTH"
	// HeaderSize is the size of a frame header: type u8, payload length u16.
	HeaderSize = 3
	// MaxPayload is the largest payload one frame can declare. Longer values
	// are split across frames by the rules of SPEC.md §4.
	MaxPayload = 0xFFFF
	// MaxFrameSize is the largest frame, header included.
	MaxFrameSize = HeaderSize + MaxPayload
)

// StopReason says why the model stopped (SPEC.md §3.4). Values this package
// does not name are carried through unchanged, so a newer server's reasons
// reach the application.
type StopReason uint8

// The stop reasons of the Anthropic Messages API, with their wire codes.
const (
	StopUnspecified                StopReason = 0 // the seed's empty DONE
	StopEndTurn                    StopReason = 1
	StopMaxTokens                  StopReason = 2
	StopSequence                   StopReason = 3
	StopToolUse                    StopReason = 4
	StopPauseTurn                  StopReason = 5
	StopRefusal                    StopReason = 6
	StopModelContextWindowExceeded StopReason = 7
)

var stopNames = [...]string{
	StopUnspecified:                "",
	StopEndTurn:                    "end_turn",
	StopMaxTokens:                  "max_tokens",
	StopSequence:                   "stop_sequence",
	StopToolUse:                    "tool_use",
	StopPauseTurn:                  "pause_turn",
	StopRefusal:                    "refusal",
	StopModelContextWindowExceeded: "model_context_window_exceeded",
}

// String returns the API's name for r ("end_turn", …), "" for
// StopUnspecified, or "stop_reason(N)" for a code this package does not name.
func (r StopReason) String() string {
	if int(r) < len(stopNames) {
		return stopNames[r]
	}
	return "stop_reason(" + strconv.Itoa(int(r)) + ")"
}

// ParseStopReason returns the code for an API stop reason name. It reports
// false for names that have no code; "" is not a name.
func ParseStopReason(name string) (StopReason, bool) {
	for i, n := range stopNames {
		if i > 0 && n == name {
			return StopReason(i), true
		}
	}
	return 0, false
}

// ErrorCode classifies an ERROR frame (SPEC.md §3.3). The codes are the HTTP
// status codes the Anthropic API pairs with each error type, so a gateway can
// map both ways without a table of its own. Any u16 is valid on the wire.
type ErrorCode uint16

// The error codes of the Anthropic Messages API.
const (
	CodeUnspecified     ErrorCode = 0
	CodeInvalidRequest  ErrorCode = 400 // invalid_request_error
	CodeAuthentication  ErrorCode = 401 // authentication_error
	CodeBilling         ErrorCode = 402 // billing_error
	CodePermission      ErrorCode = 403 // permission_error
	CodeNotFound        ErrorCode = 404 // not_found_error
	CodeRequestTooLarge ErrorCode = 413 // request_too_large
	CodeRateLimit       ErrorCode = 429 // rate_limit_error
	CodeAPI             ErrorCode = 500 // api_error
	CodeTimeout         ErrorCode = 504 // timeout_error
	CodeOverloaded      ErrorCode = 529 // overloaded_error
)

var codeNames = map[ErrorCode]string{
	CodeInvalidRequest:  "invalid_request_error",
	CodeAuthentication:  "authentication_error",
	CodeBilling:         "billing_error",
	CodePermission:      "permission_error",
	CodeNotFound:        "not_found_error",
	CodeRequestTooLarge: "request_too_large",
	CodeRateLimit:       "rate_limit_error",
	CodeAPI:             "api_error",
	CodeTimeout:         "timeout_error",
	CodeOverloaded:      "overloaded_error",
}

// String returns the API's error type name for c ("overloaded_error", …),
// or "error(N)" for a code this package does not name.
func (c ErrorCode) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return "error(" + strconv.Itoa(int(c)) + ")"
}

// ParseErrorCode returns the code for an API error type name.
func ParseErrorCode(name string) (ErrorCode, bool) {
	for c, n := range codeNames {
		if n == name {
			return c, true
		}
	}
	return 0, false
}
