package frame

import (
	"encoding/binary"
	"strconv"
)

// ErrorCode classifies an ERROR frame (SPEC.md §3.3). The codes are HTTP
// status codes, so a gateway maps an ERROR to a response status and back
// with no table of its own; package messages maps them to the error types of the
// Anthropic Messages API. Any u16 is valid on the wire.
type ErrorCode uint16

// The error codes SPEC.md §3.3 names: HTTP statuses.
const (
	CodeUnspecified     ErrorCode = 0
	CodeInvalidRequest  ErrorCode = 400
	CodeAuthentication  ErrorCode = 401
	CodeBilling         ErrorCode = 402
	CodePermission      ErrorCode = 403
	CodeNotFound        ErrorCode = 404
	CodeRequestTooLarge ErrorCode = 413
	CodeRateLimit       ErrorCode = 429
	CodeAPI             ErrorCode = 500 // an internal error, or a gateway's upstream failing
	CodeTimeout         ErrorCode = 504
	CodeOverloaded      ErrorCode = 529
)

// String returns the code in decimal ("529").
func (c ErrorCode) String() string { return strconv.Itoa(int(c)) }

// maxMessagePerFrame is the message one ERROR frame carries, after its
// code u16.
const maxMessagePerFrame = MaxPayload - 2

// AppendError appends an ERROR frame with code and message. A message longer
// than fits in one frame is sent as full ERROR frames with the same code and
// then one that is not full, holding the rest, possibly nothing (SPEC.md §4);
// a Reader joins them.
func AppendError(b []byte, code ErrorCode, message string) []byte {
	for {
		k := min(len(message), maxMessagePerFrame)
		b = appendHeader(b, TypeError, 2+k)
		b = append(b, byte(code>>8), byte(code))
		b = append(b, message[:k]...)
		if k < maxMessagePerFrame {
			return b
		}
		message = message[k:]
	}
}

// SizeError returns the number of bytes AppendError appends for a message of
// n bytes.
func SizeError(n int) int { return (n/maxMessagePerFrame+1)*(HeaderSize+2) + n }

// ErrorMessage returns the code and message of an ERROR frame. The message
// is the server's text, unchecked: it may not be valid UTF-8.
func (f Frame) ErrorMessage() (code ErrorCode, message []byte, err error) {
	if f.Type != TypeError || len(f.Payload) < 2 {
		return 0, nil, f.wrongType("ERROR")
	}
	return ErrorCode(binary.BigEndian.Uint16(f.Payload)), f.Payload[2:], nil
}
