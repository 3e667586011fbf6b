package frame

import "encoding/binary"

const maxTextPerFrame = MaxPayload - 2 // after the u16 block index

// AppendText appends text to content block block as TEXT frames. Text longer
// than fits in one frame continues in further TEXT frames of the same block
// (SPEC.md §4); a frame boundary may fall inside a UTF-8 character, as it may
// between any two TEXT frames (package utf8 reassembles). Empty text appends
// one frame with no text.
func AppendText(b []byte, block uint16, text []byte) []byte {
	for {
		k := min(len(text), maxTextPerFrame)
		b = appendHeader(b, TypeText, 2+k)
		b = append(b, byte(block>>8), byte(block))
		b = append(b, text[:k]...)
		text = text[k:]
		if len(text) == 0 {
			return b
		}
	}
}

// SizeText returns the number of bytes AppendText appends for n bytes of text.
func SizeText(n int) int { return split(n, maxTextPerFrame)*(HeaderSize+2) + n }

// Text returns the content block index and the text of a TEXT frame. The
// text is raw bytes: it may end or start inside a UTF-8 character.
func (f Frame) Text() (block uint16, text []byte, err error) {
	if f.Type != TypeText || len(f.Payload) < 2 {
		return 0, nil, f.wrongType("TEXT")
	}
	return binary.BigEndian.Uint16(f.Payload), f.Payload[2:], nil
}
