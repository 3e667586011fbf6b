package frame

import (
	"encoding/binary"
	"math/bits"
)

// PPM is the scale of Usage.CacheHitRatio: parts per million, so 1,000,000
// means every input token was read from the prompt cache.
const PPM = 1_000_000

const (
	usageSize      = 12
	cacheUsageSize = 8
	// SizeUsage is the size of a USAGE frame, header included.
	SizeUsage = HeaderSize + usageSize
	// SizeCacheUsage is the size of a CACHE_USAGE frame, header included.
	SizeCacheUsage = HeaderSize + cacheUsageSize
)

// Usage is the payload of a USAGE frame: the seed's three counters.
type Usage struct {
	InputTokens  uint32
	OutputTokens uint32
	// CacheHitRatio is the share of input tokens served from the prompt
	// cache, in parts per million (0 to PPM). Parse rejects larger values.
	CacheHitRatio uint32
}

// CacheUsage is the payload of a CACHE_USAGE frame: the prompt-cache counts
// the Anthropic API reports beside input_tokens. It is a frame of its own,
// and ignorable, so readers of the seed's 12-byte USAGE keep working
// (SPEC.md §3.7).
type CacheUsage struct {
	CacheReadInputTokens     uint32
	CacheCreationInputTokens uint32
}

// AppendUsage appends a USAGE frame. u.CacheHitRatio must be at most PPM:
// larger values make a frame that Parse rejects (Writer.WriteUsage checks).
func AppendUsage(b []byte, u Usage) []byte {
	b = appendHeader(b, TypeUsage, usageSize)
	b = binary.BigEndian.AppendUint32(b, u.InputTokens)
	b = binary.BigEndian.AppendUint32(b, u.OutputTokens)
	return binary.BigEndian.AppendUint32(b, u.CacheHitRatio)
}

// AppendCacheUsage appends a CACHE_USAGE frame.
func AppendCacheUsage(b []byte, u CacheUsage) []byte {
	b = appendHeader(b, TypeCacheUsage, cacheUsageSize)
	b = binary.BigEndian.AppendUint32(b, u.CacheReadInputTokens)
	return binary.BigEndian.AppendUint32(b, u.CacheCreationInputTokens)
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

// CacheUsage returns the payload of a CACHE_USAGE frame.
func (f Frame) CacheUsage() (CacheUsage, error) {
	if f.Type != TypeCacheUsage || len(f.Payload) != cacheUsageSize {
		return CacheUsage{}, f.wrongType("CACHE_USAGE")
	}
	p := f.Payload
	return CacheUsage{
		CacheReadInputTokens:     binary.BigEndian.Uint32(p),
		CacheCreationInputTokens: binary.BigEndian.Uint32(p[4:]),
	}, nil
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
