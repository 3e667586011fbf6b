package messages

import (
	"bytes"
	"testing"

	"github.com/layer0/anth/frame"
)

// TestEncoderAmplification: the SSE an Encoder writes is at most 20 bytes
// per byte of ANTH (SPEC.md §12), on the frames that expand most: a
// one-byte delta of each kind becomes a whole event, control characters
// become \u00XX escapes.
func TestEncoderAmplification(t *testing.T) {
	const bound = 20
	for _, c := range []struct {
		name       string
		start, run func(w *frame.Writer)
	}{
		{"1-byte TEXT", func(*frame.Writer) {}, func(w *frame.Writer) { w.WriteText(0, []byte("a")) }},
		{"control characters", func(*frame.Writer) {}, func(w *frame.Writer) { w.WriteText(0, bytes.Repeat([]byte{1}, 60000)) }},
		{"1-byte signature", func(w *frame.Writer) { w.WriteBlock(0, frame.BlockStartThinking) }, func(w *frame.Writer) { w.WriteDelta(0, frame.DeltaSignature, []byte("a")) }},
		{"1-byte thinking", func(w *frame.Writer) { w.WriteBlock(0, frame.BlockStartThinking) }, func(w *frame.Writer) { w.WriteDelta(0, frame.DeltaThinking, []byte("a")) }},
		{"block start and stop", func(*frame.Writer) {}, func(w *frame.Writer) { w.WriteBlock(0, frame.BlockStartThinking); w.WriteBlock(0, frame.BlockStop) }},
		{"empty citation", func(w *frame.Writer) { w.WriteBlock(0, frame.BlockStartText) }, func(w *frame.Writer) { w.WriteDelta(0, frame.DeltaCitation, []byte("{}")) }},
	} {
		var in bytes.Buffer
		fw := frame.NewWriter(&in, frame.WriterOptions{})
		c.start(fw)
		fw.Flush()
		head := in.Len()
		for range 1000 {
			c.run(fw)
		}
		if err := fw.Flush(); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		e := NewEncoder(&out, EncoderOptions{})
		if _, err := e.Write(in.Bytes()[:head]); err != nil {
			t.Fatal(err)
		}
		before := out.Len()
		if _, err := e.Write(in.Bytes()[head:]); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n, got := in.Len()-head, out.Len()-before
		t.Logf("%s: %d bytes of ANTH, %d of SSE: %.2f a byte", c.name, n, got, float64(got)/float64(n))
		if got > bound*n {
			t.Errorf("%s: %d bytes of ANTH became %d bytes of SSE, over %d a byte", c.name, n, got, bound)
		}
	}
}
