package frame

import (
	"encoding/binary"
	"math/bits"
	"strconv"
)

// PPM is the scale of Usage.CacheHitRatio: parts per million, so 1,000,000
// means every input token was read from the prompt cache.
const PPM = 1_000_000

const (
	usageSize = 12
	// SizeUsage is the size of a USAGE frame, header included.
	SizeUsage = HeaderSize + usageSize
)

// Usage is the payload of a USAGE frame: the seed's three counters.
type Usage struct {
	InputTokens  uint32
	OutputTokens uint32
	// CacheHitRatio is the share of input tokens served from the prompt
	// cache, in parts per million (0 to PPM). Parse rejects larger values.
	CacheHitRatio uint32
}

// AppendUsage appends a USAGE frame. u.CacheHitRatio must be at most PPM:
// larger values make a frame that Parse rejects (Writer.WriteUsage checks).
func AppendUsage(b []byte, u Usage) []byte {
	b = appendHeader(b, TypeUsage, usageSize)
	b = binary.BigEndian.AppendUint32(b, u.InputTokens)
	b = binary.BigEndian.AppendUint32(b, u.OutputTokens)
	return binary.BigEndian.AppendUint32(b, u.CacheHitRatio)
}

// Usage returns the payload of a USAGE frame.
func (f Frame) Usage() (Usage, error) {
	if f.Type != TypeUsage || len(f.Payload) != usageSize {
		return Usage{}, f.wrongType("USAGE")
	}
	p := f.Payload
	return Usage{
		InputTokens:   binary.BigEndian.Uint32(p),
		OutputTokens:  binary.BigEndian.Uint32(p[4:]),
		CacheHitRatio: binary.BigEndian.Uint32(p[8:]),
	}, nil
}

// checkUsage: SPEC.md §3.2, "cache_hit_ratio is in parts per million".
func checkUsage(p []byte) (int, string, bool) {
	if r := binary.BigEndian.Uint32(p[8:]); r > PPM {
		return 8, "cache_hit_ratio " + strconv.FormatUint(uint64(r), 10) + ", want at most 1000000", false
	}
	return 0, "", true
}

// CacheHitRatio returns the ratio, in parts per million, of cached input
// tokens to all input tokens. It rounds down and is 0 when there was no input.
func CacheHitRatio(cached, input uint64) uint32 {
	if input == 0 {
		return 0
	}
	if cached >= input {
		return PPM
	}
	// A 128-bit product keeps it exact for any counts; hi < input because
	// cached < input, so the division cannot overflow.
	hi, lo := bits.Mul64(cached, PPM)
	q, _ := bits.Div64(hi, lo, input)
	return uint32(q)
}
