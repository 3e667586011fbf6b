package tiling

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"pgregory.net/rapid"
)

// TestHashChain: a tile's hash changes when any earlier token changes, and
// hashing in pieces (carrying the parent) equals hashing at once.
func TestHashChain(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := Layout{TileShift: uint8(rapid.IntRange(0, 8).Draw(t, "shift"))}
		tokens := rapid.SliceOfN(rapid.Uint32(), l.Size(), 6*l.Size()).Draw(t, "tokens")
		root := Root([]byte(rapid.String().Draw(t, "salt")))
		hs := AppendTileHashes(nil, l, root, tokens)
		if len(hs) != len(tokens)>>l.TileShift {
			t.Fatalf("%d hashes for %d tokens", len(hs), len(tokens))
		}
		// In two calls, split at a tile boundary.
		k := rapid.IntRange(0, len(hs)).Draw(t, "split") << l.TileShift
		parent := root
		part := AppendTileHashes(nil, l, root, tokens[:k])
		if len(part) > 0 {
			parent = part[len(part)-1]
		}
		part = AppendTileHashes(part, l, parent, tokens[k:])
		for i := range hs {
			if part[i] != hs[i] {
				t.Fatalf("hash %d differs when hashed in two calls", i)
			}
		}
		// Change one token: its tile's hash and every later one change,
		// earlier ones do not.
		pos := rapid.IntRange(0, len(hs)<<l.TileShift-1).Draw(t, "pos")
		changed := append([]uint32(nil), tokens...)
		changed[pos] ^= 1 + uint32(rapid.IntRange(0, 1<<30).Draw(t, "delta"))
		hc := AppendTileHashes(nil, l, root, changed)
		for i := range hs {
			if (hc[i] == hs[i]) != (i < pos>>l.TileShift) {
				t.Fatalf("tile %d hash equal=%v after changing token %d", i, hc[i] == hs[i], pos)
			}
		}
	})
}

// TestHashStable pins the hash, so that a change of scheme shows: these
// values name caches on other machines.
func TestHashStable(t *testing.T) {
	hs := AppendTileHashes(nil, Layout{TileShift: 2}, Root(nil), []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9})
	got := hex.EncodeToString(hs[1][:])
	// Recompute by the documented rule with no code of this package.
	want := hex.EncodeToString(chainByHand())
	if len(hs) != 2 || got != want {
		t.Fatalf("hash %s, documented rule gives %s", got, want)
	}
	if Root([]byte("a")) == Root([]byte("b")) || Root(nil) == (Hash{}) {
		t.Fatal("salts do not separate roots")
	}
}

// chainByHand computes the second tile hash of tokens 1..8 in tiles of 4
// from the rule as documented: root = SHA-256(domain || salt), then
// h = SHA-256(parent || big-endian u32 token IDs).
func chainByHand() []byte {
	root := sha256.Sum256([]byte("layer0 tiling tile hash v1\x00"))
	h1 := sha256.Sum256(append(root[:], 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4))
	h2 := sha256.Sum256(append(h1[:], 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0, 8))
	return h2[:]
}
