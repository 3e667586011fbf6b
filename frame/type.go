package frame

import "strconv"

// Wire constants of SPEC.md §2.
const (
	// Magic is the 4 bytes that start every ANTH stream and request.
	Magic = "ANTH"
	// HeaderSize is the size of a frame header: type u8, payload length u16.
	// The short token frames have no length: their header is their type
	// byte alone (SPEC.md §2; see ParseHeader).
	HeaderSize = 3
	// MaxPayload is the largest payload one frame can declare. Longer values
	// are split across frames by the rules of SPEC.md §4.
	MaxPayload = 0xFFFF
	// MaxFrameSize is the largest frame, header included.
	MaxFrameSize = HeaderSize + MaxPayload
)

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
	TypeToken   Type = 0x00 // token IDs, u16 each (the seed's TOKEN frame)
	TypeUsage   Type = 0x01 // input, output token counts and cache hit ratio
	TypeError   Type = 0x02 // an error the server reports mid-stream
	TypeDone    Type = 0x03 // end of the response, with an optional stop reason
	TypeToken32 Type = 0x04 // token IDs, u32 each, for vocabularies past 65,536
	TypeText    Type = 0x05 // UTF-8 bytes of one content block
	TypeDelta   Type = 0x06 // tool input JSON, thinking or signature bytes of a block
	TypeBlock   Type = 0x07 // a content block starts or stops
	// The short token frames: one ID each, with no length field, so a
	// token sent alone is a 3-byte frame (SPEC.md §2, §3.1).
	TypeShortToken   Type = 0x08 // one token ID, u16: 3 bytes in all
	TypeShortToken24 Type = 0x09 // one token ID, u24: 4 bytes in all
	// PACKED_TOKEN: token IDs, bit-packed, each one of the stream's recent
	// IDs or a new one (SPEC.md §3.1.1); read with a TokenDecoder.
	TypePackedToken Type = 0x0A
	TypePad         Type = 0x80 // padding that hides frame sizes; ignorable
	TypeCacheUsage  Type = 0x81 // prompt-cache token counts; ignorable
	TypeEvent       Type = 0x82 // an event of a bridged stream, kept whole; ignorable
	TypeVocab       Type = 0x83 // the vocabulary the token frames index; ignorable
)

// typeInfo is what this package knows of a frame type: its name and the
// rules its payload follows. The table below is the only place that knows
// them: Known, String, Parse (both paths), Reader and Writer all read it, so
// a new frame type is one entry (as x/net/http2's frameParsers map is).
type typeInfo struct {
	name string
	// known is false for types this version does not define.
	known bool
	// min and max bound the payload length; mask is the payload length's
	// required alignment minus one (1 for u16 IDs, 3 for u32 IDs).
	min, max, mask int
	// want says, for an error message, what payload lengths are allowed.
	want string
	// check applies the rules that need the payload's bytes. It returns
	// the offset of the fault within the payload and what was expected, or
	// ok.
	//
	// fast marks the types parseFast takes: no check, any length up to
	// MaxPayload past min (TestTypeTable keeps it so).
	check func(p []byte) (at int, detail string, ok bool)
	fast  bool
	// short is the payload size of a type with no length field (SPEC.md
	// §2: the short token frames, which parseShort takes), 0 for a type
	// with one; hdr, which init sets, is the header's size: 1 then,
	// HeaderSize otherwise.
	short, hdr int
}

var types = [256]typeInfo{
	TypeToken:        {name: "TOKEN", known: true, fast: true, min: 2, max: MaxPayload, mask: 1, want: "a positive multiple of 2"},   // §3.1
	TypeUsage:        {name: "USAGE", known: true, min: usageSize, max: usageSize, want: "12", check: checkUsage},                    // §3.2
	TypeError:        {name: "ERROR", known: true, fast: true, min: 2, max: MaxPayload, want: "at least 2"},                          // §3.3
	TypeDone:         {name: "DONE", known: true, min: 0, max: MaxPayload, check: checkDone},                                         // §3.4
	TypeToken32:      {name: "TOKEN32", known: true, fast: true, min: 4, max: MaxPayload, mask: 3, want: "a positive multiple of 4"}, // §3.1
	TypeText:         {name: "TEXT", known: true, fast: true, min: 2, max: MaxPayload, want: "at least 2"},                           // §3.5
	TypeDelta:        {name: "DELTA", known: true, min: 3, max: MaxPayload, want: "at least 3", check: checkDelta},                   // §3.8
	TypeBlock:        {name: "BLOCK", known: true, min: 3, max: 3, want: "3", check: checkBlock},                                     // §3.9
	TypeShortToken:   {name: "SHORT_TOKEN", known: true, min: 2, max: 2, short: 2, want: "2"},                                        // §3.1
	TypeShortToken24: {name: "SHORT_TOKEN24", known: true, min: 3, max: 3, short: 3, want: "3"},                                      // §3.1
	TypePackedToken:  {name: "PACKED_TOKEN", known: true, min: 2, max: MaxPayload, want: "at least 2", check: checkPacked},           // §3.1.1
	TypePad:          {name: "PAD", known: true, fast: true, min: 0, max: MaxPayload},                                                // §3.6
	TypeCacheUsage:   {name: "CACHE_USAGE", known: true, min: cacheUsageSize, max: cacheUsageSize, want: "8"},                        // §3.7
	TypeEvent:        {name: "EVENT", known: true, min: 2, max: MaxPayload, want: "at least 2", check: checkEvent},                   // §3.10
	TypeVocab:        {name: "VOCAB", known: true, min: vocabFixed + 4, max: MaxPayload, want: "at least 39", check: checkVocab},     // §3.13
}

func init() {
	for t := range types {
		types[t].hdr = HeaderSize
		if types[t].short > 0 {
			types[t].hdr = 1
		}
	}
}

// ParseHeader reads the header of the frame b starts with and returns its
// type and the whole frame's size, header included, or ok false when b is
// shorter than the header: one byte for a short token frame, which has no
// length field (SPEC.md §2), HeaderSize for any other. It checks nothing
// else: Parse does. It is for code that walks frames it has already
// checked, as a relay cutting a stream at frame boundaries does.
func ParseHeader(b []byte) (t Type, size int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	ti := &types[b[0]]
	if ti.short > 0 {
		return Type(b[0]), 1 + ti.short, true
	}
	if len(b) < HeaderSize {
		return 0, 0, false
	}
	return Type(b[0]), HeaderSize + (int(b[1])<<8 | int(b[2])), true
}

// IsToken reports whether t is one of the token frames, whose payload is
// token IDs: TOKEN, TOKEN32, SHORT_TOKEN, SHORT_TOKEN24 and PACKED_TOKEN
// (SPEC.md §3.1). TokenDecoder reads them all; Frame.Tokens all but
// PACKED_TOKEN, whose IDs depend on the frames before it.
func (t Type) IsToken() bool {
	return t <= TypePackedToken && (t == TypeToken || t == TypeToken32 || t >= TypeShortToken)
}

// Ignorable reports whether a reader that does not know t may skip it.
func (t Type) Ignorable() bool { return t >= 0x80 }

// Known reports whether this package knows the layout of t's payload.
func (t Type) Known() bool { return types[t].known }

// String returns the type's name as SPEC.md spells it, or "TYPE(0xNN)" for
// types this package does not know.
func (t Type) String() string {
	if types[t].known {
		return types[t].name
	}
	return "TYPE(0x" + hex2(uint8(t)) + ")"
}

func hex2(v uint8) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[v>>4], digits[v&0xF]})
}

// checkHeader applies the rules that the header alone decides, so a Reader
// can fail before it reads (or makes room for) the payload.
func checkHeader(t Type, n int, base int64) *Error {
	ti := &types[t]
	if !ti.known {
		if t.Ignorable() {
			return nil // SPEC.md §3: skipped by its length
		}
		return frameErr(base, t, ErrUnknownType, "types 0x00-0x7F must be understood")
	}
	if n < ti.min || n > ti.max || n&ti.mask != 0 {
		return frameErr(base+1, t, ErrMalformed, "payload length "+strconv.Itoa(n)+", want "+ti.want)
	}
	return nil
}

// checkPayload applies the rules that need the payload's bytes.
func checkPayload(t Type, p []byte, base int64) *Error {
	if check := types[t].check; check != nil {
		if at, detail, ok := check(p); !ok {
			return frameErr(base+int64(types[t].hdr)+int64(at), t, ErrMalformed, detail)
		}
	}
	return nil
}

// checkFrame applies every rule of f's type, as Parse does.
func checkFrame(f Frame, base int64) *Error {
	if len(f.Payload) > MaxPayload {
		return frameErr(base, f.Type, ErrTooLarge, "payload of "+strconv.Itoa(len(f.Payload))+" bytes, want at most 65535")
	}
	if e := checkHeader(f.Type, len(f.Payload), base); e != nil {
		return e
	}
	return checkPayload(f.Type, f.Payload, base)
}
