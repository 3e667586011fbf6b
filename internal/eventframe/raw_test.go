package eventframe

import (
	"bytes"
	"testing"

	"github.com/layer0/anth/deflate"
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

// TestRawEventsAfter: an EVENT of encoding 3 goes raw too, inflated after
// the event before it, whatever that one's encoding and whether it went
// as it came (raw, binary32) or raw from deflated: the writer reads every
// EVENT, one frame at a time or many in one Write.
func TestRawEventsAfter(t *testing.T) {
	dict := deflate.NewDictionary([]byte(`{"type":"ping"}`))
	a, b, c := []byte(`{"type":"chunk","n":1,"text":"one"}`), []byte(`{"type":"chunk","n":2,"text":"one"}`), []byte(`{"type":"chunk","n":3,"text":"one"}`)
	in := frame.AppendMagic(nil)
	in = frame.AppendEvent(in, frame.EventJSON, []byte("e"), a)
	in = frame.AppendEvent(in, frame.EventDeflateAfter, []byte("e"), deflate.AppendBlockAfter(nil, b, dict, a))
	in = frame.AppendEvent(in, frame.EventBinary32, []byte("logprob"), []byte{0, 0, 0x80, 0xbf})
	in = frame.AppendEvent(in, frame.EventDeflateAfter, []byte("e"), deflate.AppendBlockAfter(nil, c, dict, []byte("-1.0")))
	in = frame.AppendEvent(in, frame.EventDeflateAfter, []byte("e"), deflate.AppendBlockAfter(nil, a, dict, c))
	want := frame.AppendMagic(nil)
	want = frame.AppendEvent(want, frame.EventJSON, []byte("e"), a)
	want = frame.AppendEvent(want, frame.EventJSON, []byte("e"), b)
	want = frame.AppendEvent(want, frame.EventBinary32, []byte("logprob"), []byte{0, 0, 0x80, 0xbf})
	want = frame.AppendEvent(want, frame.EventJSON, []byte("e"), c)
	want = frame.AppendEvent(want, frame.EventJSON, []byte("e"), a)
	for _, whole := range []bool{true, false} {
		var out bytes.Buffer
		r := &RawWriter{W: &out, Dict: dict}
		if whole {
			r.Write(in)
		} else {
			r.Write(in[:len(frame.Magic)])
			for rest := in[len(frame.Magic):]; len(rest) > 0; {
				_, n, err := frame.Parse(rest)
				if err != nil {
					t.Fatal(err)
				}
				r.Write(rest[:n])
				rest = rest[n:]
			}
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("whole %v: got\n% x\nwant\n% x", whole, out.Bytes(), want)
		}
	}
}
