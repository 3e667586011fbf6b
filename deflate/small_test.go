package deflate

import (
	"bytes"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// clone returns a copy of z that writes to w: the same history, chains and
// bits held, none of them shared.
func (z *Writer) clone(w io.Writer) *Writer {
	c := *z
	c.w = w
	c.hist = append(make([]byte, 0, cap(z.hist)), z.hist...)
	c.bw.B = append(make([]byte, 0, cap(z.bw.B)), z.bw.B...)
	return &c
}

// smallPiece draws a Write of a flush per token: a TOKEN frame of an ID
// from few (so that IDs repeat, near and far), a short text, or a piece
// of what was written before.
func smallPiece(t *rapid.T, written []byte) []byte {
	switch rapid.IntRange(0, 3).Draw(t, "small kind") {
	case 0:
		hi := rapid.SampledFrom([]byte{0, 1, 0x0c, 0x90, 0xff}).Draw(t, "hi")
		lo := rapid.SampledFrom([]byte{0, 2, 0x41, 0x50, 0x91, 0xd0, 0xfe}).Draw(t, "lo")
		return []byte{1, 0, 2, hi, lo}
	case 1:
		return []byte(rapid.SampledFrom([]string{" the", "\n\t", "}", " err", "\x05\x00\x03"}).Draw(t, "text"))
	case 2:
		if len(written) > 0 {
			i := rapid.IntRange(0, len(written)-1).Draw(t, "from")
			return written[i:min(len(written), i+rapid.IntRange(1, smallParse).Draw(t, "len"))]
		}
	}
	return rapid.SliceOfN(rapid.Byte(), 1, smallParse).Draw(t, "bytes")
}

// TestParseSmallNoLarger: a record of Writes, some of smallParse bytes or
// fewer, is no larger than lazy matching's of the same Writes from the
// same state (parseSmall's candidates include every match it takes, and
// it prices a Write's last symbol by its bits up to its last 1 only when
// the record ends there), and what is written reads back exactly.
func TestParseSmallNoLarger(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dict := rapid.SampledFrom([]*Dictionary{nil, testDict}).Draw(t, "dict")
		var out bytes.Buffer
		w := NewWriter(&out, dict)
		want := []byte{}
		var lazy bytes.Buffer
		l := w.clone(&lazy)
		n := 0 // out.Len() when the record began
		for range rapid.IntRange(1, 60).Draw(t, "writes") {
			var p []byte
			if rapid.IntRange(0, 9).Draw(t, "longer") == 0 {
				p = piece(t)
				p = p[:min(len(p), 300)]
			} else {
				p = smallPiece(t, want)
			}
			w.Write(p)
			// The same Write, lazily matched.
			start := len(l.hist)
			l.hist = append(l.hist, p...)
			l.encode(start, 0, false)
			want = append(want, p...)
			if !rapid.Bool().Draw(t, "flush") {
				continue
			}
			w.Flush()
			l.Flush()
			if out.Len()-n > lazy.Len() {
				t.Fatalf("after %d bytes: record % x, larger than lazy matching's % x", len(want), out.Bytes()[n:], lazy.Bytes())
			}
			lazy.Reset()
			l = w.clone(&lazy)
			n = out.Len()
		}
		w.Flush()
		got, err := io.ReadAll(NewReader(bytes.NewReader(out.Bytes()), dict))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("read back (-want +got):\n%s", diff)
		}
	})
}

// TestParseSmallExtends: the whole TOKEN frame that repeats one from 41
// frames back is a match the chain at its first byte does not reach
// (maxChain nearer frames share its header and the ID's high byte), but
// the ID's match one byte on, extended by the byte before it, is: a match
// of 5 at distance 205 is 3+7+5+6 bits, 3 bytes, where a match of the
// header and high byte at distance 5 and the low byte, a literal of 9
// bits with no zero bits to leave out, are 3+7+5+1+9, 4 bytes.
func TestParseSmallExtends(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, nil)
	frame := func(lo byte) []byte { return []byte{1, 0, 2, 0x30, lo} }
	const repeat = 0x91 // its fixed code is 110010001: no zeros to leave out
	w.Write(frame(repeat))
	w.Flush()
	for i := range maxChain + 8 {
		w.Write(frame(byte(i)))
		w.Flush()
	}
	n := out.Len()
	w.Write(frame(repeat))
	w.Flush()
	if got := out.Bytes()[n:]; len(got) != 1+3 {
		t.Errorf("the repeated frame's record is % x, want a length and 3 bytes", got)
	}
}

// TestParseSmallLastBits: a record's last symbol is priced by its bits up
// to its last 1, since the zero bits after it are left out, two bytes of
// them at most (SPEC.md §11.2). The TOKEN frame 8,193 bytes back is a match
// of 5 whose distance, a code's base, has 12 extra bits of zeros: 3+7+5+12
// bits, the last 1 at bit 14, and with the end of block and the flush 37
// bits, of which the record leaves out the last 16: 3 bytes. Fewest bits
// in all would be a match of the header and high byte 10 back and the low
// byte's literal, 3+7+5+2+8 = 25 bits, the last of them a 1: 4 bytes.
func TestParseSmallLastBits(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, nil)
	frame := []byte{1, 0, 2, 0, 0x31}
	var hist []byte
	hist = append(hist, frame...)
	hist = append(hist, make([]byte, 8193-5-10)...)
	hist = append(hist, 1, 0, 2, 0, 0x77)
	hist = append(hist, make([]byte, 5)...)
	w.Write(hist)
	w.Flush()
	n := out.Len()
	w.Write(frame)
	w.Flush()
	if got := out.Bytes()[n:]; len(got) != 1+3 {
		t.Errorf("the frame's record is % x, want a length and 3 bytes", got)
	}
}
