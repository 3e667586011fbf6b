package tiling

import (
	"crypto/sha256"
	"encoding/binary"
)

// Hash names a prefix of tokens: the hash of a full tile chained to the
// hash of everything before it. Equal hashes mean equal prefixes (for a
// given salt), on any machine and in any process, so a cache can dedup tiles
// by it and kvdelta can refer to tiles a receiver already has.
//
// It is SHA-256, not a fast non-cryptographic hash: a prefix cache shared
// between tenants must not let one craft a collision with another's prefix
// (vLLM changed its block hash for this reason, CVE-2025-25183).
type Hash [32]byte

// hashDomain starts every chain, so these hashes never equal another
// scheme's SHA-256 of the same bytes.
const hashDomain = "layer0 tiling tile hash v1\x00"

// Root returns the hash a chain starts from. Sequences whose caches may be
// shared use the same salt; a per-tenant salt keeps tenants' prefixes apart.
func Root(salt []byte) Hash {
	h := sha256.New()
	h.Write([]byte(hashDomain))
	h.Write(salt)
	var r Hash
	h.Sum(r[:0])
	return r
}

// AppendTileHashes appends the chained hash of each full tile of tokens to
// dst and returns the extended slice: the first is the hash of parent and
// the first tile's token IDs, each next one chains to the one before. A
// partial last tile gets no hash: its content can still change. parent is
// Root(salt) for tokens that start a sequence, or the hash of the tile just
// before tokens. It panics if l fails Check.
func AppendTileHashes(dst []Hash, l Layout, parent Hash, tokens []uint32) []Hash {
	size := l.Size()
	h := sha256.New()
	var buf [256]byte
	for len(tokens) >= size {
		h.Reset()
		h.Write(parent[:])
		for tile := tokens[:size]; len(tile) > 0; {
			k := min(len(tile), len(buf)/4)
			for i, id := range tile[:k] {
				binary.BigEndian.PutUint32(buf[4*i:], id)
			}
			h.Write(buf[:4*k])
			tile = tile[k:]
		}
		h.Sum(parent[:0])
		dst = append(dst, parent)
		tokens = tokens[size:]
	}
	return dst
}
