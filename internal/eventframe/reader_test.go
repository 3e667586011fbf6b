package eventframe

import (
	"errors"
	"testing"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/errkind"
)

// TestReaderBinary32: an EVENT of encoding 2 reads as the JSON number its
// 4 bytes stand for (SPEC.md §3.10), and one that frame.Parse would
// refuse, made by hand, is refused here too rather than read.
func TestReaderBinary32(t *testing.T) {
	ev := func(enc byte, data ...byte) frame.Frame {
		return frame.Frame{Type: frame.TypeEvent, Payload: append([]byte{enc, 7, 'l', 'o', 'g', 'p', 'r', 'o', 'b'}, data...)}
	}
	var r Reader
	for _, c := range []struct {
		f    frame.Frame
		want string
	}{
		{ev(frame.EventBinary32, 0x1B, 0xFA, 0x15, 0xC0), "-2.3433902"},
		{ev(frame.EventBinary32, 0, 0, 0, 0x80), "-0.0"},
		{ev(frame.EventBinary32, 0x0B, 0x7D, 0xB2, 0xB6), "-5.3193703e-6"},
	} {
		name, data, ok, err := r.Add(c.f, nil, 1<<20, true)
		if err != nil || !ok || string(name) != "logprob" || string(data) != c.want {
			t.Errorf("% X: %q %q %v %v, want logprob %s", c.f.Payload, name, data, ok, err, c.want)
		}
	}
	for _, f := range []frame.Frame{
		ev(frame.EventBinary32, 0, 0, 0x80),         // 3 bytes
		ev(frame.EventBinary32, 0, 0, 0, 0x80, 0),   // 5 bytes
		ev(frame.EventBinary32, 0, 0, 0x80, 0x7F),   // +Inf
		ev(frame.EventBinary32, 1, 0, 0xC0, 0xFF),   // NaN
		ev(frame.EventBinary32|0x80, 0, 0, 0, 0x80), // continued
	} {
		var r Reader
		_, _, ok, err := r.Add(f, nil, 1<<20, true)
		if fe, isFault := err.(*Fault); !isFault || !errors.Is(fe.Kind, errkind.Malformed) || ok {
			t.Errorf("% X: %v %v, want a Malformed fault", f.Payload, ok, err)
		}
	}
}
