package frame

import "encoding/binary"

const (
	maxToken16PerFrame = MaxPayload / 2 // 32,767 IDs
	maxToken32PerFrame = MaxPayload / 4 // 16,383 IDs
)

// AppendToken appends ids as token frames and returns the extended slice.
// When every ID fits in 16 bits it writes TOKEN frames (2 bytes an ID, so one
// ID is a 5-byte frame); otherwise TOKEN32 frames (4 bytes an ID). More IDs
// than fit in one frame continue in further frames of the same type
// (SPEC.md §4). No IDs append nothing.
func AppendToken(b []byte, ids ...uint32) []byte {
	if wide(ids) {
		for len(ids) > 0 {
			k := min(len(ids), maxToken32PerFrame)
			b = appendHeader(b, TypeToken32, 4*k)
			for _, id := range ids[:k] {
				b = binary.BigEndian.AppendUint32(b, id)
			}
			ids = ids[k:]
		}
		return b
	}
	for len(ids) > 0 {
		k := min(len(ids), maxToken16PerFrame)
		b = appendHeader(b, TypeToken, 2*k)
		for _, id := range ids[:k] {
			b = append(b, byte(id>>8), byte(id))
		}
		ids = ids[k:]
	}
	return b
}

// SizeToken returns the number of bytes AppendToken appends for ids.
func SizeToken(ids ...uint32) int {
	n := len(ids)
	if n == 0 {
		return 0
	}
	per, width := maxToken16PerFrame, 2
	if wide(ids) {
		per, width = maxToken32PerFrame, 4
	}
	frames := (n + per - 1) / per
	return frames*HeaderSize + n*width
}

func wide(ids []uint32) bool {
	for _, id := range ids {
		if id > 0xFFFF {
			return true
		}
	}
	return false
}

// Tokens appends the frame's token IDs to dst and returns the extended
// slice. It reads TOKEN and TOKEN32 frames alike.
func (f Frame) Tokens(dst []uint32) ([]uint32, error) {
	p := f.Payload
	switch f.Type {
	case TypeToken:
		for i := 0; i+1 < len(p); i += 2 {
			dst = append(dst, uint32(p[i])<<8|uint32(p[i+1]))
		}
	case TypeToken32:
		for i := 0; i+3 < len(p); i += 4 {
			dst = append(dst, binary.BigEndian.Uint32(p[i:]))
		}
	default:
		return dst, f.wrongType("TOKEN or TOKEN32")
	}
	return dst, nil
}

// TokenCount returns the number of token IDs in a TOKEN or TOKEN32 frame,
// and 0 for frames of other types.
func (f Frame) TokenCount() int {
	switch f.Type {
	case TypeToken:
		return len(f.Payload) / 2
	case TypeToken32:
		return len(f.Payload) / 4
	}
	return 0
}
