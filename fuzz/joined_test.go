package fuzz

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/frame"
)

// FuzzJoinedValue checks the DONE and ERROR values that continue across
// frames (SPEC.md §4) against the Reader's value limit (ReaderOptions.MaxValueSize):
//
//   - a value the Writer splits reads back joined and equal when it fits the
//     limit, and fails with ErrTooLarge at the frame that crosses it when it
//     does not, pulled or pushed;
//   - on any input, no value the Reader returns is over the limit, every
//     frame it returns is the input's bytes it consumed for it, re-encoded
//     (the joined form is canonical), and the payload bytes it returns never
//     pass the bytes it consumed (output budget: one byte out per byte in).
func FuzzJoinedValue(f *testing.F) {
	// kind: bit 0 DONE or ERROR; n: the value's length, from msg repeated;
	// limit: the Reader's limit, 0 for the default.
	f.Add(byte(0), uint16(529), []byte("Overloaded"), uint32(10), uint32(0), []byte(nil))
	f.Add(byte(0), uint16(500), []byte("e"), uint32(65533), uint32(0), []byte(nil))         // one full frame and an empty one
	f.Add(byte(1), uint16(3), []byte("###"), uint32(200_000), uint32(100_000), []byte(nil)) // over the limit
	f.Add(byte(1), uint16(3), []byte("ab"), uint32(2*65534), uint32(2*65534+1), []byte(nil))
	f.Add(byte(0), uint16(0), []byte{0xFF}, uint32(70_000), uint32(70_002), []byte(nil)) // exactly at the limit
	full := frame.AppendError(nil, frame.CodeAPI, strings.Repeat("x", 65533))[:frame.MaxFrameSize]
	f.Add(byte(0), uint16(0), []byte(nil), uint32(0), uint32(65535*2),
		append(append(append([]byte(frame.Magic), full...), full...), full...)) // continues past its limit
	f.Add(byte(0), uint16(0), []byte(nil), uint32(0), uint32(0),
		frame.AppendDone(append([]byte(frame.Magic), full...), frame.StopEndTurn, "")) // a DONE where the ERROR continues

	f.Fuzz(func(t *testing.T, kind byte, code uint16, msg []byte, n, limit uint32, in []byte) {
		n %= 3 * frame.MaxPayload
		limit %= 4 * frame.MaxPayload
		if len(msg) == 0 {
			msg = []byte{'m'}
		}
		value := bytes.Repeat(msg, int(n)/len(msg)+1)[:n]
		writtenValue(t, kind&1 == 1, frame.ErrorCode(code), value, int(limit))
		anyInput(t, in, int(limit))
	})
}

// effective is the limit a Reader made with MaxValueSize limit applies.
func effective(limit int) int {
	if limit <= 0 {
		return frame.DefaultMaxValueSize
	}
	return limit
}

// writtenValue writes value as a DONE's stop sequence or an ERROR's message,
// after a token, and reads it back with the limit.
func writtenValue(t *testing.T, done bool, code frame.ErrorCode, value []byte, limit int) {
	var stream bytes.Buffer
	w := frame.NewWriter(&stream, frame.WriterOptions{})
	if err := w.WriteToken(1); err != nil {
		t.Fatal(err)
	}
	want := frame.Frame{Type: frame.TypeError, Payload: append([]byte{byte(code >> 8), byte(code & 0xFF)}, value...)}
	reason := frame.StopSequence
	if done {
		want = frame.Frame{Type: frame.TypeDone, Payload: append([]byte{byte(reason)}, value...)}
		if err := w.WriteDone(reason, string(value)); err != nil {
			t.Fatal(err)
		}
	} else if err := w.WriteError(code, string(value)); err != nil {
		t.Fatal(err)
	}
	in := stream.Bytes()
	valueStart := int64(len(frame.Magic) + frame.SizeShortToken(1)) // WriteToken sends a lone ID in a short frame
	fits := len(want.Payload) < frame.MaxPayload || len(want.Payload) <= effective(limit)

	for _, push := range []bool{false, true} {
		fs, off, err := readFrames(in, limit, push)
		if fits {
			if err != nil || len(fs) != 2 {
				t.Fatalf("push %v: %d-byte value, limit %d: %d frames, %v", push, len(want.Payload), limit, len(fs), err)
			}
			if diff := cmp.Diff(want, fs[1], cmp.Comparer(bytes.Equal)); diff != "" {
				t.Fatalf("push %v: joined value differs (-written +read):\n%s", push, diff)
			}
			continue
		}
		// The frame that crosses the limit: the first whose part, added to
		// those before it, makes more than the limit.
		key := len(want.Payload) - len(value)
		k, have := 0, frame.MaxPayload
		for have <= effective(limit) {
			k++
			have += frame.MaxPayload - key
		}
		wantOff := valueStart + int64(k)*frame.MaxFrameSize
		var e *frame.Error
		if !errors.Is(err, frame.ErrTooLarge) || !errors.As(err, &e) || e.Offset != wantOff || len(fs) != 1 {
			t.Fatalf("push %v: %d-byte value, limit %d: %d frames, %v; want ErrTooLarge at %d", push, len(want.Payload), limit, len(fs), err, wantOff)
		}
		if off > wantOff+frame.MaxFrameSize {
			t.Fatalf("push %v: read to offset %d for an error at %d", push, off, wantOff)
		}
	}
}

// anyInput reads in as a response with the limit, pulled and pushed.
func anyInput(t *testing.T, in []byte, limit int) {
	var got [2][]frame.Frame
	var errs [2]error
	for i, push := range []bool{false, true} {
		fs, consumed, err := readFrames(in, limit, push)
		got[i], errs[i] = fs, err
		out := 0
		for _, f := range fs {
			out += len(f.Payload)
			if (f.Type == frame.TypeDone || f.Type == frame.TypeError) && len(f.Payload) > frame.MaxPayload && len(f.Payload) > effective(limit) {
				t.Fatalf("push %v: a %d-byte %v value, limit %d", push, len(f.Payload), f.Type, effective(limit))
			}
		}
		if int64(out) > consumed {
			t.Fatalf("push %v: %d payload bytes out for %d bytes consumed", push, out, consumed)
		}
		var e *frame.Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("push %v: error %v (%T), want *frame.Error", push, err, err)
		}
	}
	if diff := cmp.Diff(got[0], got[1], cmp.Comparer(bytes.Equal)); diff != "" || (errs[0] == nil) != (errs[1] == nil) ||
		(errs[0] != nil && errs[0].Error() != errs[1].Error()) {
		t.Fatalf("pull and push differ: %v / %v (-pull +push):\n%s", errs[0], errs[1], diff)
	}
}

// readFrames reads in with a Reader made with MaxValueSize limit, pulled or
// pushed whole, and returns copies of its frames, the offset it read to and
// the error that ended them (nil for io.EOF). Each frame is checked to be
// the bytes it was read from, re-encoded as a writer sends it.
func readFrames(in []byte, limit int, push bool) ([]frame.Frame, int64, error) {
	var r *frame.Reader
	var start int64
	opts := frame.ReaderOptions{MaxValueSize: limit, OnSkip: func(frame.Frame) { start = r.Offset() }}
	if push {
		r = frame.NewPushReader(opts)
		r.Write(in)
		r.CloseWrite()
	} else {
		r = frame.NewReader(bytes.NewReader(in), opts)
	}
	var fs []frame.Frame
	for {
		if start == 0 {
			start = min(int64(len(frame.Magic)), int64(len(in)))
		}
		f, err := r.Next()
		if err == io.EOF {
			return fs, r.Offset(), nil
		}
		if err != nil {
			return fs, r.Offset(), err
		}
		if end := r.Offset(); !bytes.Equal(f.AppendValue(nil), in[start:end]) {
			panic("a frame does not re-encode to the bytes it was read from")
		}
		start = r.Offset()
		fs = append(fs, frame.Frame{Type: f.Type, Payload: bytes.Clone(f.Payload)})
	}
}
