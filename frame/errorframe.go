package frame

import "encoding/binary"

const maxMessagePerFrame = MaxPayload - 2 // after the u16 code

// AppendError appends an ERROR frame with code and message. A message longer
// than fits in one frame continues in further ERROR frames with the same code
// (SPEC.md §4), which a receiver joins into one error.
func AppendError(b []byte, code ErrorCode, message string) []byte {
	for {
		k := min(len(message), maxMessagePerFrame)
		b = appendHeader(b, TypeError, 2+k)
		b = append(b, byte(code>>8), byte(code))
		b = append(b, message[:k]...)
		message = message[k:]
		if len(message) == 0 {
			return b
		}
	}
}

// SizeError returns the number of bytes AppendError appends for a message of
// n bytes.
func SizeError(n int) int { return split(n, maxMessagePerFrame)*(HeaderSize+2) + n }

// Error returns the code and message of an ERROR frame. The message is the
// server's UTF-8 text, unchecked.
func (f Frame) Error() (code ErrorCode, message []byte, err error) {
	if f.Type != TypeError || len(f.Payload) < 2 {
		return 0, nil, f.wrongType("ERROR")
	}
	return ErrorCode(binary.BigEndian.Uint16(f.Payload)), f.Payload[2:], nil
}
