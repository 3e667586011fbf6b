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

// TestMergeFromPieces: merge inverts split whatever the pieces the planes
// are kept in, for every element width, so that runs across piece and
// block boundaries come out right.
func TestMergeFromPieces(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.SampledFrom([]int{1, 2, 4}).Draw(t, "w")
		block := w * rapid.IntRange(1, 40).Draw(t, "elements")
		src := rapid.SliceOfN(rapid.Byte(), 2*block, 2*block).Draw(t, "block pair")
		for range rapid.IntRange(0, 3).Draw(t, "more") {
			src = append(src, src[:2*block]...)
		}
		planes := make([][]byte, 2*w)
		for i := range planes {
			planes[i] = make([]byte, len(src)/2/w)
		}
		split(w, block, src, planes)
		piece := rapid.IntRange(1, 50).Draw(t, "piece")
		spools := make([]spool, 2*w)
		var b budget
		b.max = 1 << 30
		for i, p := range planes {
			spools[i].reset(piece, len(p))
			for off := 0; off < len(p); off += piece {
				q, err := spools[i].next(&b, &input{}, min(piece, len(p)-off))
				if err != nil {
					t.Fatal(err)
				}
				copy(q, p[off:])
			}
		}
		back := make([]byte, len(src))
		merge(w, block, spools, back)
		if !bytes.Equal(back, src) {
			t.Fatalf("merge(split(src)) differs, w %d, block %d, piece %d", w, block, piece)
		}
	})
}
