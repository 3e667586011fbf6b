package kvdelta

import (
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/layer0/anth/tiling"
)

// TestSnapshotCheck: Check names what is wrong with a snapshot; a token
// count of up to 2^40 is in range (§10.2's bound), whatever else is wrong.
func TestSnapshotCheck(t *testing.T) {
	s := hashed(vectorSnapshot(3))
	g := s.Geometry
	for _, c := range []struct {
		name string
		s    Snapshot
		want string // "": no error
	}{
		{"good", *s, ""},
		{"no hashes", Snapshot{Geometry: g, Tokens: 3, Data: s.Data}, ""},
		{"empty", Snapshot{Geometry: g}, ""},
		{"geometry", Snapshot{Tokens: 3, Data: s.Data}, "geometry: "},
		{"-1 tokens", Snapshot{Geometry: g, Tokens: -1}, "token count -1"},
		{"2^40 tokens", Snapshot{Geometry: g, Tokens: maxTokens}, "data of 0 bytes, want 8796093022208"},
		{"2^40+1 tokens", Snapshot{Geometry: g, Tokens: maxTokens + 1}, "token count 1099511627777"},
		{"data", Snapshot{Geometry: g, Tokens: 3, Data: s.Data[:31]}, "data of 31 bytes, want 32"},
		{"hashes", Snapshot{Geometry: g, Tokens: 3, Data: s.Data, Hashes: make([]tiling.Hash, 2)}, "2 hashes for 1 full tiles"},
	} {
		err := c.s.Check()
		if c.want == "" && err != nil || c.want != "" && (!errors.Is(err, ErrSnapshot) || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestEqual: Equal compares geometry, tokens, bytes and hashes.
func TestEqual(t *testing.T) {
	s := hashed(vectorSnapshot(6))
	other := func(f func(*Snapshot)) *Snapshot {
		c := *s
		c.Data = append([]byte(nil), s.Data...)
		c.Hashes = append([]tiling.Hash(nil), s.Hashes...)
		f(&c)
		return &c
	}
	if !Equal(s, other(func(*Snapshot) {})) {
		t.Error("a copy differs")
	}
	for name, o := range map[string]*Snapshot{
		"geometry": other(func(c *Snapshot) { c.Geometry.Order = tiling.HND }),
		"tokens":   other(func(c *Snapshot) { c.Tokens-- }),
		"data":     other(func(c *Snapshot) { c.Data[31] ^= 1 }),
		"a hash":   other(func(c *Snapshot) { c.Hashes[2][31] ^= 1 }),
		"hashes":   other(func(c *Snapshot) { c.Hashes = c.Hashes[:2] }),
		"none":     other(func(c *Snapshot) { c.Hashes = nil }),
	} {
		if Equal(s, o) || Equal(o, s) {
			t.Errorf("%s: equal", name)
		}
	}
}

// TestIdentity: a base is named by its last full tile's hash when it has
// hashes (none: zeros), else by the SHA-256 of its bytes.
func TestIdentity(t *testing.T) {
	s := hashed(vectorSnapshot(5))
	plain := vectorSnapshot(5)
	for name, c := range map[string]struct {
		s    *Snapshot
		want [32]byte
	}{
		"hashes":    {s, s.Hashes[1]},
		"no hashes": {plain, sha256.Sum256(plain.Data)},
		"no tiles":  {&Snapshot{Geometry: s.Geometry, Hashes: []tiling.Hash{}}, [32]byte{}},
		"partial":   {hashed(vectorSnapshot(1)), [32]byte{}},
	} {
		if got := identity(c.s); got != c.want {
			t.Errorf("%s: identity %x, want %x", name, got, c.want)
		}
	}
}
