package eventframe

import (
	"bytes"
	"testing"

	"github.com/layer0/anth/frame"
)

// TestRawEventsKeepsBrokenContinuations: a deflated event whose
// continuation is broken off by another frame is passed on as it came, not
// dropped, so the client's reader sees the fault (SPEC.md §4).
func TestRawEventsKeepsBrokenContinuations(t *testing.T) {
	// The first of the EVENT frames of a deflated event too long for one.
	long := frame.AppendEvent(nil, frame.EventDeflate, []byte("x"), bytes.Repeat([]byte{7}, 70_000))
	_, n, err := frame.Parse(long)
	if err != nil {
		t.Fatal(err)
	}
	part := long[:n]
	text := frame.AppendText(nil, 0, []byte("hi"))
	in := append(append(frame.AppendMagic(nil), part...), text...)
	var out bytes.Buffer
	r := &RawWriter{W: &out}
	if _, err := r.Write(in); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), in) {
		t.Fatalf("got % x, want % x", out.Bytes(), in)
	}
}
