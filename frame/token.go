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

// AppendShortToken appends one ID in the smallest frame that holds it
// alone (SPEC.md §3.1): a SHORT_TOKEN (3 bytes) when it fits in 16 bits, a
// SHORT_TOKEN24 (4 bytes) when it fits in 24, as every current vocabulary's
// IDs do, and a TOKEN32 frame otherwise. It is how a server that flushes
// each token as it samples it sends it: 40 % fewer bytes than a TOKEN
// frame's 5, and less than the token's text in anth-deflate.
func AppendShortToken(b []byte, id uint32) []byte {
	switch {
	case id <= 0xFFFF:
		return append(b, byte(TypeShortToken), byte(id>>8), byte(id))
	case id <= 0xFFFFFF:
		return append(b, byte(TypeShortToken24), byte(id>>16), byte(id>>8), byte(id))
	}
	return AppendToken(b, id)
}

// SizeShortToken returns the number of bytes AppendShortToken appends for
// id.
func SizeShortToken(id uint32) int {
	switch {
	case id <= 0xFFFF:
		return 3
	case id <= 0xFFFFFF:
		return 4
	}
	return HeaderSize + 4
}

// AppendTokenRuns appends ids as AppendToken does, but split into runs
// (SPEC.md §3.1): a TOKEN frame for each run of IDs below 65,536 and a
// TOKEN32 frame for each run of wider ones, a narrow run between wide IDs
// staying inside the TOKEN32 frame when its own frame's 3-byte header and
// the second TOKEN32 frame's it would make cost more than the 2 bytes an ID
// saves (a run of 1 or 2). AppendToken widens the whole call instead: one
// wide ID among 16 o200k IDs doubles that frame. Inside anth-deflate, whose
// measurements chose this rule over the split fewest in raw bytes (which
// also takes a narrow ID at either end of a TOKEN32 frame in, 1 byte less
// raw and 1 % more coded on o200k at 16 IDs a flush), a batch of 16 costs
// 5–7 % less than AppendToken's. Frame.Tokens reads the IDs back in order.
// No IDs append nothing.
func AppendTokenRuns(b []byte, ids ...uint32) []byte {
	for len(ids) > 0 {
		n := narrowRun(ids)
		if n == 0 {
			// A TOKEN32 frame: wide IDs, and the narrow runs between them
			// too short to pay for two headers.
			for n < len(ids) {
				if ids[n] > 0xFFFF {
					n++
					continue
				}
				m := narrowRun(ids[n:])
				if n+m == len(ids) || 2*m >= 2*HeaderSize {
					break
				}
				n += m
			}
		}
		b = AppendToken(b, ids[:n]...)
		ids = ids[n:]
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
// slice. It reads the four token frames whose IDs are their own alike
// (TOKEN, TOKEN32, SHORT_TOKEN, SHORT_TOKEN24); a PACKED_TOKEN frame's
// depend on the frames before it, so TokenDecoder reads it, and Tokens
// returns ErrWrongType.
func (f Frame) Tokens(dst []uint32) ([]uint32, error) {
	p := f.Payload
	switch f.Type {
	case TypeShortToken:
		if len(p) == 2 {
			dst = append(dst, uint32(p[0])<<8|uint32(p[1]))
		}
	case TypeShortToken24:
		if len(p) == 3 {
			dst = append(dst, uint32(p[0])<<16|uint32(p[1])<<8|uint32(p[2]))
		}
	case TypeToken:
		for i := 0; i+1 < len(p); i += 2 {
			dst = append(dst, uint32(p[i])<<8|uint32(p[i+1]))
		}
	case TypeToken32:
		for i := 0; i+3 < len(p); i += 4 {
			dst = append(dst, binary.BigEndian.Uint32(p[i:]))
		}
	case TypePackedToken:
		return dst, &Error{Offset: -1, Type: f.Type, Err: ErrWrongType, Detail: "its IDs depend on the PACKED_TOKEN frames before it: read it with a TokenDecoder", hasType: true}
	default:
		return dst, f.wrongType("a token frame")
	}
	return dst, nil
}

// TokenCount returns the number of token IDs in a token frame (1 in a
// short one; in a PACKED_TOKEN frame, those of its codes that precede a
// fault in its layout), and 0 for frames of other types.
func (f Frame) TokenCount() int {
	switch f.Type {
	case TypeToken:
		return len(f.Payload) / 2
	case TypeToken32:
		return len(f.Payload) / 4
	case TypeShortToken, TypeShortToken24:
		return 1
	case TypePackedToken:
		if len(f.Payload) >= 2 {
			n, _, _, _, _ := scanPacked(f.Payload, RecentTokens)
			return n
		}
	}
	return 0
}

// narrowRun returns how many of ids' leading IDs fit in 16 bits.
func narrowRun(ids []uint32) int {
	for i, id := range ids {
		if id > 0xFFFF {
			return i
		}
	}
	return len(ids)
}
