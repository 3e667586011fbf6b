package request

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"

	"github.com/layer0/anth/frame"
)

// Role says who wrote a message of a Seed.
type Role uint8

// The roles of SPEC.md §5, with their wire values.
const (
	RoleUser      Role = 0
	RoleAssistant Role = 1
	RoleSystem    Role = 2
)

// String returns the role's name ("User", …) or "Role(N)".
func (r Role) String() string {
	switch r {
	case RoleUser:
		return "User"
	case RoleAssistant:
		return "Assistant"
	case RoleSystem:
		return "System"
	}
	return "Role(" + strconv.Itoa(int(r)) + ")"
}

// Message is one message of a Seed. Content is UTF-8 and may be any
// length: on the wire, content past 65,535 bytes continues in further parts
// (SPEC.md §5.2).
type Message struct {
	Role    Role
	Content string
}

// Seed is the binary request of SPEC.md §5: the model, the conversation
// and the output budget.
type Seed struct {
	Model     string // UTF-8, at most 255 bytes
	Messages  []Message
	MaxTokens uint32
}

// Wire details of the request (SPEC.md §5).
const (
	maxModel      = 0xFF
	partMax       = 0xFFFF // content bytes in one part
	roleContinued = 0x80   // flag on a part whose content continues in the next
	countEscape   = 0xFF   // u8 part count that announces a u16 count
	tokensEscape  = 0xFFFF // u16 max_tokens that announces a u32
	maxParts      = 0xFFFF
)

// checkRequest checks that req can be encoded, and returns its part count.
// The error's Offset is where the bad field would be written.
func checkRequest(req Seed) (parts int, err *Error) {
	if len(req.Model) > maxModel {
		return 0, errAt(int64(len(frame.Magic)), ErrTooLarge, "model name of "+strconv.Itoa(len(req.Model))+" bytes, want at most 255")
	}
	if !utf8.ValidString(req.Model) {
		return 0, errAt(int64(len(frame.Magic)+1), ErrMalformed, "model name is not valid UTF-8")
	}
	for _, m := range req.Messages {
		parts += split(len(m.Content), partMax)
	}
	if parts > maxParts {
		return 0, errAt(int64(len(frame.Magic)+1+len(req.Model)), ErrTooLarge, strconv.Itoa(parts)+" message parts, want at most 65535")
	}
	off := len(frame.Magic) + 2 + len(req.Model)
	if parts >= countEscape {
		off += 2
	}
	for i, m := range req.Messages {
		if m.Role > RoleSystem {
			return 0, errAt(int64(off), ErrMalformed, "message "+strconv.Itoa(i)+": role "+strconv.Itoa(int(m.Role))+", want 0, 1 or 2")
		}
		if !utf8.ValidString(m.Content) {
			return 0, errAt(int64(off+3), ErrMalformed, "message "+strconv.Itoa(i)+": content is not valid UTF-8")
		}
		off += 3*split(len(m.Content), partMax) + len(m.Content)
	}
	return parts, nil
}

// Size returns the number of bytes Append appends for req,
// or the error Append would return.
func Size(req Seed) (int, error) {
	parts, e := checkRequest(req)
	if e != nil {
		return 0, e
	}
	n := len(frame.Magic) + 1 + len(req.Model) + 1
	for _, m := range req.Messages {
		n += 3*split(len(m.Content), partMax) + len(m.Content)
	}
	if parts >= countEscape {
		n += 2
	}
	n += 2
	if req.MaxTokens >= tokensEscape {
		n += 4
	}
	return n, nil
}

// Append appends req in the binary request format. It fails, with
// b unchanged, if the model name is longer than 255 bytes, a role is not one
// of the three, a string is not valid UTF-8, or there are more than 65,535
// parts; it never truncates. The error's Offset is where the bad field would
// have been written, counted from the start of the request.
func Append(b []byte, req Seed) ([]byte, error) {
	parts, e := checkRequest(req)
	if e != nil {
		return b, e
	}
	b = frame.AppendMagic(b)
	b = append(b, byte(len(req.Model)))
	b = append(b, req.Model...)
	if parts < countEscape {
		b = append(b, byte(parts))
	} else {
		b = append(b, countEscape, byte(parts>>8), byte(parts))
	}
	for _, m := range req.Messages {
		c := m.Content
		for len(c) > partMax {
			b = append(b, byte(m.Role)|roleContinued, partMax>>8, partMax&0xFF)
			b = append(b, c[:partMax]...)
			c = c[partMax:]
		}
		b = append(b, byte(m.Role), byte(len(c)>>8), byte(len(c)))
		b = append(b, c...)
	}
	if req.MaxTokens < tokensEscape {
		return binary.BigEndian.AppendUint16(b, uint16(req.MaxTokens)), nil
	}
	b = binary.BigEndian.AppendUint16(b, tokensEscape)
	return binary.BigEndian.AppendUint32(b, req.MaxTokens), nil
}

// split returns how many parts carry n bytes, at most per in each, where
// empty content still takes one part.
func split(n, per int) int {
	if n == 0 {
		return 1
	}
	return (n + per - 1) / per
}
