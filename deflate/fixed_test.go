package deflate

import (
	"bytes"
	"compress/flate"
	"io"
	"testing"

	"pgregory.net/rapid"
)

// TestCodes: the computed length and distance codes are the ones whose
// range holds each value (RFC 1951 §3.2.5).
func TestCodes(t *testing.T) {
	for l := minLength; l <= maxMatch; l++ {
		c := lengthCode(l)
		next := 259
		if c+1 < len(lengthBase) {
			next = int(lengthBase[c+1])
		}
		if int(lengthBase[c]) > l || l >= next && l != 258 || l-int(lengthBase[c]) >= 1<<lengthExtra[c] {
			t.Fatalf("length %d: code %d (base %d, %d extra bits)", l, c, lengthBase[c], lengthExtra[c])
		}
	}
	for d := 1; d <= maxDist; d++ {
		c := distCode(d)
		if int(distBase[c]) > d || d-int(distBase[c]) >= 1<<distExtra[c] {
			t.Fatalf("distance %d: code %d (base %d, %d extra bits)", d, c, distBase[c], distExtra[c])
		}
	}
}

// TestSymbols: any sequence of literals and matches, in blocks ended by
// sync flushes (their LEN and NLEN put back) and a final block, inflates
// with compress/flate to what it says, and matchBits and literalBits count
// the bits written.
func TestSymbols(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var w bitWriter
		var want, stream []byte
		for range rapid.IntRange(1, 4).Draw(t, "blocks") {
			w.StartBlock(false)
			for range rapid.IntRange(0, 50).Draw(t, "symbols") {
				before := len(w.B)*8 + int(w.nbits)
				var n int
				if len(want) > 0 && rapid.Bool().Draw(t, "match") {
					dist := rapid.IntRange(1, min(len(want), maxDist)).Draw(t, "dist")
					length := rapid.IntRange(minLength, maxMatch).Draw(t, "length")
					from := len(want) - dist
					for i := range length {
						want = append(want, want[from+i])
					}
					w.Match(length, dist)
					n = matchBits(length, dist)
				} else {
					c := rapid.Byte().Draw(t, "literal")
					want = append(want, c)
					w.Literal(c)
					n = literalBits(c)
				}
				if got := len(w.B)*8 + int(w.nbits) - before; got != n {
					t.Fatalf("wrote %d bits, counted %d", got, n)
				}
			}
			w.EndBlock()
			w.SyncFlush()
			stream = append(append(stream, w.B...), 0, 0, 0xFF, 0xFF)
			w.B = w.B[:0]
		}
		w.StartBlock(true)
		w.EndBlock()
		w.Align()
		stream = append(stream, w.B...)
		got, err := io.ReadAll(flate.NewReader(bytes.NewReader(stream)))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("inflates to %d bytes (%v), want %d", len(got), err, len(want))
		}
	})
}
