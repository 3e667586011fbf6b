package kvdelta

import (
	"bytes"
	"crypto/sha256"
	"strconv"

	"github.com/layer0/anth/tiling"
)

// Snapshot is a sequence's KV cache at one moment: Tokens tokens laid out
// in tiles by Geometry, tile i (positions i<<TileShift and on) at
// Data[i*TileBytes:(i+1)*TileBytes]. The last tile may be partial; its
// unused part is carried like the rest, so a snapshot round-trips bit for
// bit whatever it holds there.
//
// Hashes, if not nil, holds tiling's chained hash of each full tile's token
// IDs (len = Tokens >> TileShift). With hashes, Encode finds the tiles a
// receiver already has by hash, without reading them, so the cost of a delta
// does not grow with the context; equal hashes must then mean equal bytes (a
// deterministic model behind one salt), and a full tile must not change once
// hashed. Without hashes Encode compares tile bytes.
type Snapshot struct {
	Geometry tiling.Geometry
	Tokens   int
	Data     []byte
	Hashes   []tiling.Hash
}

// Tiles returns the number of tiles the snapshot holds.
func (s *Snapshot) Tiles() int { return s.Geometry.Layout().Tiles(s.Tokens) }

// Tile returns tile i's bytes, aliasing Data.
func (s *Snapshot) Tile(i int) []byte {
	n := s.Geometry.TileBytes()
	return s.Data[i*n : (i+1)*n : (i+1)*n]
}

// Check reports whether s is consistent.
func (s *Snapshot) Check() error {
	if err := s.Geometry.Check(); err != nil {
		return inputErr("geometry: " + err.Error())
	}
	if s.Tokens < 0 || s.Tokens > maxTokens {
		return inputErr("token count " + strconv.Itoa(s.Tokens))
	}
	if want := s.Tiles() * s.Geometry.TileBytes(); len(s.Data) != want {
		return inputErr("data of " + strconv.Itoa(len(s.Data)) + " bytes, want " + strconv.Itoa(want))
	}
	if s.Hashes != nil && len(s.Hashes) != s.Tokens>>s.Geometry.TileShift {
		return inputErr(strconv.Itoa(len(s.Hashes)) + " hashes for " + strconv.Itoa(s.Tokens>>s.Geometry.TileShift) + " full tiles")
	}
	return nil
}

// Equal reports whether a and b hold the same snapshot: geometry, tokens,
// bytes and hashes.
func Equal(a, b *Snapshot) bool {
	if a.Geometry != b.Geometry || a.Tokens != b.Tokens || !bytes.Equal(a.Data, b.Data) || len(a.Hashes) != len(b.Hashes) {
		return false
	}
	for i := range a.Hashes {
		if a.Hashes[i] != b.Hashes[i] {
			return false
		}
	}
	return true
}

// identity names a base: the chain hash of its last full tile when it has
// hashes (which names its whole prefix), else SHA-256 of its bytes. The
// partial last tile, if any, is not covered; the CRC32C of every tile
// decoded against it is.
func identity(s *Snapshot) [32]byte {
	if s.Hashes != nil {
		if len(s.Hashes) == 0 {
			return [32]byte{}
		}
		return s.Hashes[len(s.Hashes)-1]
	}
	return sha256.Sum256(s.Data)
}
