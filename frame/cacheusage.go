package frame

import "encoding/binary"

const (
	cacheUsageSize = 8
	// SizeCacheUsage is the size of a CACHE_USAGE frame, header included.
	SizeCacheUsage = HeaderSize + cacheUsageSize
)

// CacheUsage is the payload of a CACHE_USAGE frame: the prompt-cache counts
// reported beside the input tokens. It is a frame of its own, and
// ignorable, so readers of the seed's 12-byte USAGE keep working (SPEC.md
// §3.7).
type CacheUsage struct {
	CacheReadInputTokens     uint32
	CacheCreationInputTokens uint32
}

// AppendCacheUsage appends a CACHE_USAGE frame.
func AppendCacheUsage(b []byte, u CacheUsage) []byte {
	b = appendHeader(b, TypeCacheUsage, cacheUsageSize)
	b = binary.BigEndian.AppendUint32(b, u.CacheReadInputTokens)
	return binary.BigEndian.AppendUint32(b, u.CacheCreationInputTokens)
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
