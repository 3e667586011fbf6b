package kvdelta

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// TestSplitMerge2 checks the SWAR forms against the element-at-a-time
// definition, at every length (tails included).
func TestSplitMerge2(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(rapid.Byte(), 0, 100).Draw(t, "b")
		b = b[:len(b)&^1]
		n := len(b) / 2
		p0, p1 := make([]byte, n), make([]byte, n)
		split2(b, p0, p1)
		for j := range n {
			// The definition: high byte with the low byte's top bit, and
			// the other way round.
			hi, lo := b[2*j+1]&0x7F|b[2*j]&0x80, b[2*j]&0x7F|b[2*j+1]&0x80
			if p0[j] != hi || p1[j] != lo {
				t.Fatalf("element %d: planes %02x %02x, want %02x %02x", j, p0[j], p1[j], hi, lo)
			}
		}
		back := make([]byte, len(b))
		merge2(p0, p1, back)
		if !bytes.Equal(back, b) {
			t.Fatalf("merge2(split2(b)) = % x, want % x", back, b)
		}
	})
}
