package frame

import "strconv"

// Frame is one parsed frame. Payload aliases the bytes it was parsed from:
// the slice given to Parse, or the Reader's buffer until the next call to
// Next. Copy it to keep it longer.
//
// The typed accessors (Tokens, Usage, Text, …) read the payload; they fail
// with ErrWrongType when called on a frame of another type, and never fail on
// a frame that Parse or Next returned with its own type. A DONE or ERROR
// frame that a Reader joined from continuation frames (SPEC.md §4) has a
// payload longer than MaxPayload; the accessors read it the same way.
type Frame struct {
	Type    Type
	Payload []byte
}

// Size returns the frame's encoded size, header included (the type byte
// alone for a short token frame, SPEC.md §2).
func (f Frame) Size() int { return types[f.Type].hdr + len(f.Payload) }

// Append appends f exactly as it travels on the wire. It does not check the
// payload; it is the inverse of Parse for every frame Parse returns. A
// short token frame has no length field (SPEC.md §2): its payload follows
// its type, and must be the type's size for a reader to find the next
// frame.
func (f Frame) Append(b []byte) []byte {
	if types[f.Type].short > 0 {
		b = append(b, byte(f.Type))
	} else {
		b = appendHeader(b, f.Type, len(f.Payload))
	}
	return append(b, f.Payload...)
}

// AppendValue appends f as a writer of a response sends it: a DONE or
// ERROR whose value fills a frame or more (as a Reader joins it) as its
// continuation frames (SPEC.md §4), any other frame as Append does. The
// pieces of such a value that a Reader made with ReaderOptions.RawFrames returns go back
// with Append instead.
func (f Frame) AppendValue(b []byte) []byte {
	if len(f.Payload) >= MaxPayload {
		if code, msg, err := f.ErrorMessage(); err == nil {
			return AppendError(b, code, string(msg))
		}
		if reason, seq, err := f.Done(); err == nil {
			return AppendDone(b, reason, string(seq))
		}
	}
	return f.Append(b)
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
// gives ErrTruncated: more input may complete it. A header that no payload
// can make valid (an unknown must-understand type, a length the type does
// not allow) is an error at once, however little of the payload b holds.
// Parse does not allocate unless it returns an error.
func Parse(b []byte) (f Frame, n int, err error) {
	if f, n, ok := parseFast(b); ok {
		return f, n, nil
	}
	if f, n, ok := parseShort(b); ok {
		return f, n, nil
	}
	f, n, e := parse(b, 0)
	if e != nil {
		return Frame{}, 0, e
	}
	return f, n, nil
}

// parseFast parses the frames whose validity their header decides (TOKEN,
// TEXT, … : the types with a length field and no payload check) when they
// are complete, and reports false for anything else, which parseShort or
// parse then handles. It is the per-token path: small enough to inline,
// one table lookup.
func parseFast(b []byte) (Frame, int, bool) {
	if len(b) < HeaderSize {
		return Frame{}, 0, false
	}
	ti := &types[b[0]]
	n := int(b[1])<<8 | int(b[2])
	end := HeaderSize + n
	if !ti.fast || len(b) < end || n < ti.min || n&ti.mask != 0 {
		return Frame{}, 0, false
	}
	return Frame{Type: Type(b[0]), Payload: b[HeaderSize:end:end]}, end, true
}

// parseShort parses a complete short token frame (SHORT_TOKEN, 3 bytes, or
// SHORT_TOKEN24, 4: SPEC.md §2, no length field, any ID valid) and reports
// false for anything else. It is the per-token path of a stream that
// sends a token at a time, beside parseFast rather than in it: one branch
// more there cost every frame 10-25 % in Parse (BenchmarkParse, 8 pairs).
func parseShort(b []byte) (Frame, int, bool) {
	if len(b) == 0 {
		return Frame{}, 0, false
	}
	t := Type(b[0])
	end := int(t-TypeShortToken) + 3 // 3, 4, or past any frame for other types
	if end > 4 || len(b) < end {
		return Frame{}, 0, false
	}
	return Frame{Type: t, Payload: b[1:end:end]}, end, true
}

// parse is Parse with offsets reported from base. It returns *Error rather
// than error so callers can keep it without an interface conversion.
func parse(b []byte, base int64) (Frame, int, *Error) {
	t, size, ok := ParseHeader(b)
	if !ok {
		return Frame{}, 0, errAt(base+int64(len(b)), ErrTruncated, "frame header needs 3 bytes, have "+strconv.Itoa(len(b)))
	}
	h := types[t].hdr
	n := size - h
	if e := checkHeader(t, n, base); e != nil {
		return Frame{}, 0, e
	}
	if len(b) < size {
		return Frame{}, 0, frameErr(base+int64(len(b)), t, ErrTruncated, "payload of "+strconv.Itoa(n)+" bytes, have "+strconv.Itoa(len(b)-h))
	}
	end := size
	p := b[h:end:end]
	if e := checkPayload(t, p, base); e != nil {
		return Frame{}, 0, e
	}
	return Frame{Type: t, Payload: p}, end, nil
}

func (f Frame) wrongType(want string) error {
	return &Error{Offset: -1, Type: f.Type, Err: ErrWrongType, Detail: "accessor for " + want, hasType: true}
}

// split returns how many frames carry n bytes, at most per in each, where an
// empty value still takes one frame.
func split(n, per int) int {
	if n == 0 {
		return 1
	}
	return (n + per - 1) / per
}
