package frame

import (
	"encoding/binary"
	"strconv"
)

// Frame is one parsed frame. Payload aliases the bytes it was parsed from:
// the slice given to Parse, or the Reader's buffer until the next call to
// Next. Copy it to keep it longer.
//
// The typed accessors (Tokens, Usage, Text, …) read the payload; they fail
// with ErrWrongType when called on a frame of another type, and never fail on
// a frame that Parse or Next returned with its own type.
type Frame struct {
	Type    Type
	Payload []byte
}

// Size returns the frame's encoded size, header included.
func (f Frame) Size() int { return HeaderSize + len(f.Payload) }

// Append appends f exactly as it travels on the wire. It does not check the
// payload; it is the inverse of Parse for every frame Parse returns.
func (f Frame) Append(b []byte) []byte {
	b = appendHeader(b, f.Type, len(f.Payload))
	return append(b, f.Payload...)
}

func appendHeader(b []byte, t Type, n int) []byte {
	return append(b, byte(t), byte(n>>8), byte(n))
}

// Parse parses one frame from the start of b and returns it with the number
// of bytes it used. It does not expect Magic: call ParseMagic first on the
// start of a stream. Frames of unknown ignorable types (0x80–0xFF) are
// returned like any other, so a caller can skip or forward them.
//
// Errors are *Error with the offset in b. A b that holds only part of a frame
// gives ErrTruncated: more input may complete it. Parse does not allocate
// unless it returns an error.
func Parse(b []byte) (f Frame, n int, err error) {
	if f, n, ok := parseFast(b); ok {
		return f, n, nil
	}
	f, n, e := parse(b, 0)
	if e != nil {
		return Frame{}, 0, e
	}
	return f, n, nil
}

// parseFast parses the frames that carry a response's content (TOKEN,
// TOKEN32, TEXT) when they are complete and valid, and reports false for
// anything else, which parse then handles. It is the per-token path: small
// enough to inline, one branch per rule.
func parseFast(b []byte) (Frame, int, bool) {
	if len(b) < HeaderSize {
		return Frame{}, 0, false
	}
	t, n := Type(b[0]), int(b[1])<<8|int(b[2])
	end := HeaderSize + n
	if len(b) < end {
		return Frame{}, 0, false
	}
	switch {
	case t == TypeToken && n != 0 && n&1 == 0,
		t == TypeText && n >= 2,
		t == TypeToken32 && n != 0 && n&3 == 0:
		return Frame{Type: t, Payload: b[HeaderSize:end:end]}, end, true
	}
	return Frame{}, 0, false
}

// parse is Parse with offsets reported from base. It returns *Error rather
// than error so callers can keep it without an interface conversion.
func parse(b []byte, base int64) (Frame, int, *Error) {
	if len(b) < HeaderSize {
		return Frame{}, 0, errAt(base+int64(len(b)), ErrTruncated, "frame header needs 3 bytes, have "+strconv.Itoa(len(b)))
	}
	t := Type(b[0])
	n := int(b[1])<<8 | int(b[2])
	if e := checkHeader(t, n, base); e != nil {
		return Frame{}, 0, e
	}
	end := HeaderSize + n
	if len(b) < end {
		return Frame{}, 0, frameErr(base+int64(len(b)), t, ErrTruncated, "payload of "+strconv.Itoa(n)+" bytes, have "+strconv.Itoa(len(b)-HeaderSize))
	}
	p := b[HeaderSize:end:end]
	if e := checkPayload(t, p, base); e != nil {
		return Frame{}, 0, e
	}
	return Frame{Type: t, Payload: p}, end, nil
}

// checkHeader applies the rules that the header alone decides, so a Reader
// can fail before it reads (or makes room for) the payload.
func checkHeader(t Type, n int, base int64) *Error {
	bad := func(want string) *Error {
		return frameErr(base+1, t, ErrBadPayload, "payload length "+strconv.Itoa(n)+", want "+want)
	}
	switch t {
	case TypeToken: // SPEC.md §3.1: one or more u16 IDs.
		if n == 0 || n%2 != 0 {
			return bad("a positive multiple of 2")
		}
	case TypeToken32: // SPEC.md §3.1: one or more u32 IDs.
		if n == 0 || n%4 != 0 {
			return bad("a positive multiple of 4")
		}
	case TypeUsage: // SPEC.md §3.2: exactly 12 bytes, as the seed.
		if n != usageSize {
			return bad("12")
		}
	case TypeCacheUsage: // SPEC.md §3.7
		if n != cacheUsageSize {
			return bad("8")
		}
	case TypeError: // SPEC.md §3.3: code u16, then the message.
		if n < 2 {
			return bad("at least 2")
		}
	case TypeText: // SPEC.md §3.5: block index u16, then the text.
		if n < 2 {
			return bad("at least 2")
		}
	case TypeDelta: // SPEC.md §3.8: block index u16, kind u8, then the bytes.
		if n < 3 {
			return bad("at least 3")
		}
	case TypeBlock: // SPEC.md §3.9: block index u16, op u8.
		if n != 3 {
			return bad("3")
		}
	case TypeEvent: // SPEC.md §3.10: encoding u8, name length u8, name, data.
		if n < 2 {
			return bad("at least 2")
		}
	case TypeDone, TypePad:
	default:
		if !t.Ignorable() {
			return frameErr(base, t, ErrUnknownType, "types 0x00-0x7F must be understood")
		}
	}
	return nil
}

// checkPayload applies the rules that need the payload's bytes.
func checkPayload(t Type, p []byte, base int64) *Error {
	switch t {
	case TypeUsage:
		// SPEC.md §3.2: "cache_hit_ratio is in parts per million".
		if r := binary.BigEndian.Uint32(p[8:]); r > PPM {
			return frameErr(base+HeaderSize+8, t, ErrBadPayload, "cache_hit_ratio "+strconv.FormatUint(uint64(r), 10)+", want at most 1000000")
		}
	case TypeDone:
		// SPEC.md §3.4: "an unspecified reason with no stop sequence is the
		// empty payload", so each DONE has one encoding.
		if len(p) == 1 && p[0] == 0 {
			return frameErr(base+HeaderSize, t, ErrBadPayload, "reason 0 with no stop sequence, want an empty payload")
		}
	case TypeDelta:
		if k := p[2]; k < byte(DeltaInputJSON) || k > byte(DeltaCitation) {
			return frameErr(base+HeaderSize+2, t, ErrBadPayload, "delta kind "+strconv.Itoa(int(k))+", want 1 to 4")
		}
	case TypeBlock:
		if op := p[2]; op > byte(BlockStartThinking) {
			return frameErr(base+HeaderSize+2, t, ErrBadPayload, "block op "+strconv.Itoa(int(op))+", want 0 to 2")
		}
	case TypeEvent:
		if enc := p[0] &^ eventMore; enc > EventDeflate {
			return frameErr(base+HeaderSize, t, ErrBadPayload, "event encoding "+strconv.Itoa(int(enc))+", want 0 or 1")
		}
		if 2+int(p[1]) > len(p) {
			return frameErr(base+HeaderSize+1, t, ErrBadPayload, "event name of "+strconv.Itoa(int(p[1]))+" bytes past the payload")
		}
	}
	return nil
}

func (f Frame) wrongType(want string) error {
	return &Error{Offset: -1, Type: f.Type, Err: ErrWrongType, Detail: "accessor for " + want, hasType: true}
}
