package frame

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/layer0/anth/internal/iox"

	"github.com/layer0/anth/internal/testdata"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// sampleResponse is a response with every kind of frame before its DONE.
func sampleResponse() []byte {
	b := AppendMagic(nil)
	b = AppendBlock(b, 0, BlockStartText)
	b = AppendText(b, 0, []byte("Hi 你"))
	b = AppendDelta(b, 1, DeltaInputJSON, []byte(`{"a":`))
	b = AppendToken(b, 7, 70_000)
	b = AppendPad(b, 3)
	b = AppendEvent(b, EventJSON, []byte("ping"), []byte(`{"type":"ping"}`))
	b = AppendUsage(b, Usage{InputTokens: 5, OutputTokens: 2})
	b = AppendCacheUsage(b, CacheUsage{1, 2})
	b = AppendBlock(b, 0, BlockStop)
	return AppendDone(b, StopEndTurn, "")
}

// TestResponseCut: a response cut anywhere before its end, on a frame
// boundary or not, is ErrTruncated at the cut (SPEC.md §3.11); whole, it
// ends with io.EOF.
func TestResponseCut(t *testing.T) {
	resp := sampleResponse()
	for cut := 0; cut < len(resp); cut++ {
		_, err := readAll(NewReader(bytes.NewReader(resp[:cut]), ReaderOptions{}))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrTruncated) || e.Offset != int64(cut) {
			t.Fatalf("cut at %d of %d: %v, want ErrTruncated at %d", cut, len(resp), err, cut)
		}
	}
	if fs, err := readAll(NewReader(bytes.NewReader(resp), ReaderOptions{})); err != nil || len(fs) != 10 {
		t.Fatalf("whole response: %d frames, %v", len(fs), err)
	}
}

// TestResponseEnd: after DONE or ERROR only ignorable frames may come.
func TestResponseEnd(t *testing.T) {
	// Fresh slices each time: appending to a shared one would alias.
	done := func() []byte { return AppendDone(AppendMagic(nil), StopEndTurn, "") }
	failed := func() []byte { return AppendError(AppendMagic(nil), CodeOverloaded, "Overloaded") }
	for name, c := range map[string]struct {
		in     []byte
		frames int
		offset int64 // of the ErrMalformed frame, or -1 for a clean end
	}{
		"pad after done":        {AppendPad(done(), 2), 2, -1},
		"event after done":      {AppendEvent(done(), EventJSON, []byte("x"), []byte("{}")), 2, -1},
		"ignorable after done":  {Frame{Type: 0x99}.Append(done()), 1, -1},
		"text after done":       {AppendText(done(), 0, []byte("late")), 1, 8},
		"done after done":       {AppendDone(done(), StopEndTurn, ""), 1, 8},
		"done after error":      {AppendDone(failed(), StopEndTurn, ""), 1, 19},
		"usage after error":     {AppendUsage(failed(), Usage{}), 1, 19},
		"short done, then more": {AppendDone(AppendDone(AppendMagic(nil), StopSequence, "ab"), StopSequence, "c"), 1, 10},
	} {
		fs, err := readAll(NewReader(bytes.NewReader(c.in), ReaderOptions{}))
		var e *Error
		switch {
		case c.offset < 0 && (err != nil || len(fs) != c.frames):
			t.Errorf("%s: %d frames, %v; want %d frames and a clean end", name, len(fs), err, c.frames)
		case c.offset >= 0 && (!errors.As(err, &e) || !errors.Is(err, ErrMalformed) || e.Offset != c.offset || len(fs) != c.frames):
			t.Errorf("%s: %d frames, %v; want %d frames, then ErrMalformed at %d", name, len(fs), err, c.frames, c.offset)
		}
		// RawFrames reads the same bytes as frames, with no grammar.
		if _, err := readAll(NewReader(bytes.NewReader(c.in), ReaderOptions{RawFrames: true})); err != nil {
			t.Errorf("%s, raw: %v", name, err)
		}
	}
}

// TestJoinedValues: a stop sequence or error message of any length
// round-trips through the continuation frames of SPEC.md §4, however the
// bytes arrive, and a proxy's WriteFrame splits it again byte for byte.
func TestJoinedValues(t *testing.T) {
	for _, n := range []int{0, 1, maxMessagePerFrame, maxStopSequencePerFrame, maxStopSequencePerFrame + 1, 2 * maxStopSequencePerFrame, 70_000, 200_000} {
		value := strings.Repeat("é", n/2) + strings.Repeat("x", n%2)
		for _, end := range []struct {
			name  string
			write func(w *Writer) error
			read  func(Frame) (string, error)
		}{
			{"done", func(w *Writer) error { return w.WriteDone(StopSequence, value) },
				func(f Frame) (string, error) { _, s, err := f.Done(); return string(s), err }},
			{"error", func(w *Writer) error { return w.WriteError(CodeAPI, value) },
				func(f Frame) (string, error) { _, s, err := f.ErrorMessage(); return string(s), err }},
		} {
			var stream bytes.Buffer
			w := NewWriter(&stream, WriterOptions{})
			if err := w.WriteText(0, []byte("x")); err != nil {
				t.Fatal(err)
			}
			if err := end.write(w); err != nil {
				t.Fatal(err)
			}
			for name, wrap := range readers {
				r := NewReader(wrap(bytes.NewReader(stream.Bytes())), ReaderOptions{})
				fs, err := readAll(r)
				if err != nil || len(fs) != 2 {
					t.Fatalf("%s of %d bytes, %s reader: %d frames, %v", end.name, n, name, len(fs), err)
				}
				got, err := end.read(fs[1])
				if err != nil || got != value {
					t.Fatalf("%s of %d bytes, %s reader: read back %d bytes, %v", end.name, n, name, len(got), err)
				}
				// Forwarded, the joined frame is the same bytes again.
				var fwd bytes.Buffer
				fw := NewWriter(&fwd, WriterOptions{})
				for _, f := range fs {
					if err := fw.WriteFrame(f); err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(fwd.Bytes(), stream.Bytes()) {
					t.Fatalf("%s of %d bytes: WriteFrame of the joined frame differs", end.name, n)
				}
			}
		}
	}
}

// TestJoinStopsAtOtherKey: a full DONE followed by a DONE of another reason
// is a DONE of its own, and the second is after the end.
func TestJoinStopsAtOtherKey(t *testing.T) {
	long := strings.Repeat("s", maxStopSequencePerFrame)
	in := AppendDone(AppendDone(AppendMagic(nil), StopSequence, long), StopEndTurn, "")
	r := NewReader(bytes.NewReader(in), ReaderOptions{})
	f, err := r.Next()
	if _, seq, _ := f.Done(); err != nil || string(seq) != long {
		t.Fatalf("first DONE: %d bytes, %v", len(seq), err)
	}
	if _, err := r.Next(); !errors.Is(err, ErrMalformed) {
		t.Fatalf("second DONE: %v, want ErrMalformed", err)
	}
}

// TestJoinBroken: after a full DONE or ERROR frame, the value continues in
// a frame of the same type and key (SPEC.md §4); input that ends there is
// ErrTruncated at its end, and any other frame ErrMalformed at that frame.
func TestJoinBroken(t *testing.T) {
	fullDone := func() []byte {
		return Frame{TypeDone, append([]byte{byte(StopSequence)}, strings.Repeat("s", maxStopSequencePerFrame)...)}.Append(AppendMagic(nil))
	}
	fullError := func() []byte {
		return Frame{TypeError, append([]byte{0x02, 0x11}, strings.Repeat("m", maxMessagePerFrame)...)}.Append(AppendMagic(nil))
	}
	// The continuation starts at 4 + 65,538 = 65,542.
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"done, then nothing", fullDone(), "frame: offset 65542: unexpected EOF: input ends where a DONE value continues"},
		{"error, then nothing", fullError(), "frame: offset 65542: unexpected EOF: input ends where a ERROR value continues"},
		{"done, then a cut frame", append(fullDone(), 3, 0), "frame: offset 65544: DONE frame: unexpected EOF: stream ends inside a frame"},
		{"done, then text", AppendText(fullDone(), 0, nil), "frame: offset 65542: TEXT frame: malformed: frame where the value of a full DONE frame continues"},
		{"done, then pad", AppendPad(fullDone(), 1), "frame: offset 65542: PAD frame: malformed: frame where the value of a full DONE frame continues"},
		{"done, then another reason", AppendDone(fullDone(), StopEndTurn, "x"), "frame: offset 65542: DONE frame: malformed: frame where the value of a full DONE frame continues"},
		{"done, then an empty done", AppendDone(fullDone(), StopUnspecified, ""), "frame: offset 65542: DONE frame: malformed: frame where the value of a full DONE frame continues"},
		{"error, then another code", AppendError(fullError(), CodeAPI, "x"), "frame: offset 65542: ERROR frame: malformed: frame where the value of a full ERROR frame continues"},
		{"error, then a done", AppendDone(fullError(), StopEndTurn, ""), "frame: offset 65542: DONE frame: malformed: frame where the value of a full ERROR frame continues"},
	} {
		for name, wrap := range readers {
			fs, err := readAll(NewReader(wrap(bytes.NewReader(c.in)), ReaderOptions{}))
			var e *Error
			if len(fs) != 0 || !errors.As(err, &e) || err.Error() != c.want {
				t.Errorf("%s, %s reader: %d frames, %v; want %q", c.name, name, len(fs), err, c.want)
			}
		}
		if got, err := pushAll(NewPushReader(ReaderOptions{}), c.in, 4096); len(got) != 0 || fmt.Sprint(err) != c.want {
			t.Errorf("%s, push reader: %d frames, %v; want %q", c.name, len(got), err, c.want)
		}
	}
}

// TestPushReader: bytes pushed in any pieces read as the same frames, with
// the same errors at the same offsets, as the same bytes from an io.Reader.
func TestPushReader(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := sampleResponse()
		switch rapid.IntRange(0, 3).Draw(t, "variant") {
		case 1: // cut
			in = in[:rapid.IntRange(0, len(in)-1).Draw(t, "cut")]
		case 2: // a bad byte
			i := rapid.IntRange(0, len(in)-1).Draw(t, "at")
			in = append([]byte{}, in...)
			in[i] ^= byte(rapid.IntRange(1, 255).Draw(t, "xor"))
		case 3: // a long joined value
			in = AppendError(AppendMagic(nil), CodeAPI, strings.Repeat("m", rapid.IntRange(65_000, 140_000).Draw(t, "n")))
		}
		want, wantErr := readAll(NewReader(bytes.NewReader(in), ReaderOptions{}))

		r := NewPushReader(ReaderOptions{})
		var got []Frame
		var gotErr error
		for rest := in; gotErr == nil; {
			if len(rest) == 0 {
				r.CloseWrite()
			} else {
				k := rapid.IntRange(1, len(rest)).Draw(t, "piece")
				r.Write(rest[:k])
				rest = rest[k:]
			}
			for {
				f, err := r.Next()
				if err == ErrNeedMore {
					break
				}
				if err != nil {
					if err != io.EOF {
						gotErr = err
					} else {
						gotErr = io.EOF
					}
					break
				}
				got = append(got, Frame{f.Type, append([]byte{}, f.Payload...)})
			}
		}
		if gotErr == io.EOF {
			gotErr = nil
		}
		if !cmp.Equal(want, got, cmp.Comparer(bytes.Equal)) {
			t.Fatalf("push read %d frames, pull %d, and they differ", len(got), len(want))
		}
		if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
			t.Fatalf("pull: %v; push: %v", wantErr, gotErr)
		}
	})
}

// TestReaderSlowProgress: empty reads are counted per run, so a reader that
// makes progress is never failed, and only a run of iox.MaxEmptyReads is
// io.ErrNoProgress.
func TestReaderSlowProgress(t *testing.T) {
	resp := AppendDone(AppendText(AppendMagic(nil), 0, bytes.Repeat([]byte("a"), 500)), StopEndTurn, "")
	for _, empties := range []int{1, iox.MaxEmptyReads - 1} {
		fs, err := readAll(NewReader(&testdata.StutterReader{R: bytes.NewReader(resp), Empties: empties}, ReaderOptions{}))
		if err != nil || len(fs) != 2 {
			t.Fatalf("%d empty reads before each byte: %d frames, %v", empties, len(fs), err)
		}
	}
	_, err := readAll(NewReader(&testdata.StutterReader{R: bytes.NewReader(resp), Empties: iox.MaxEmptyReads}, ReaderOptions{}))
	if err != io.ErrNoProgress {
		t.Fatalf("%d empty reads in a row: %v, want io.ErrNoProgress", iox.MaxEmptyReads, err)
	}
}

// TestReaderBadCounts: a reader that breaks the io.Reader contract is an
// error, not a panic.
func TestReaderBadCounts(t *testing.T) {
	for name, rd := range map[string]io.Reader{
		"-1":         testdata.CountReader(-1),
		"1 << 20":    testdata.CountReader(1 << 20),
		"len(p) + 1": io.MultiReader(strings.NewReader("AN"), testdata.ReaderFunc(func(p []byte) (int, error) { return len(p) + 1, nil })),
	} {
		r := NewReader(rd, ReaderOptions{})
		var e *Error
		if _, err := r.Next(); !errors.As(err, &e) || !errors.Is(err, io.ErrShortBuffer) || e.Offset != 0 {
			t.Errorf("count %s: %v, want io.ErrShortBuffer at 0", name, err)
		}
	}
	// A count of len(p) is a full read, not an error.
	resp := AppendDone(AppendText(AppendMagic(nil), 0, make([]byte, 3*initialBufSize)), StopEndTurn, "")
	full := 0
	src := bytes.NewReader(resp)
	fs, err := readAll(NewReader(testdata.ReaderFunc(func(p []byte) (int, error) {
		n, err := src.Read(p)
		if n == len(p) {
			full++
		}
		return n, err
	}), ReaderOptions{}))
	if err != nil || len(fs) != 2 || full == 0 {
		t.Fatalf("%d frames, %v, %d full reads", len(fs), err, full)
	}
}

// TestMagicCheckedEarly: a wrong first byte is reported at once, before the
// rest of the magic arrives, from both kinds of Reader.
func TestMagicCheckedEarly(t *testing.T) {
	r := NewReader(iotest.OneByteReader(strings.NewReader("AX")), ReaderOptions{})
	if _, err := r.Next(); !errors.Is(err, ErrBadMagic) {
		t.Fatalf("pull: %v, want ErrBadMagic", err)
	}
	p := NewPushReader(ReaderOptions{})
	p.Write([]byte("AX"))
	var e *Error
	if _, err := p.Next(); !errors.As(err, &e) || !errors.Is(err, ErrBadMagic) || e.Offset != 1 {
		t.Fatalf("push: %v, want ErrBadMagic at 1", err)
	}
}

// TestPushReaderBuffer: a push Reader keeps only the bytes it has not
// parsed, so its buffer stays small however long the stream it is fed.
func TestPushReaderBuffer(t *testing.T) {
	stream := AppendMagic(nil)
	for i := range 100_000 {
		stream = AppendToken(stream, uint32(i))
	}
	stream = AppendDone(stream, StopEndTurn, "")
	r := NewPushReader(ReaderOptions{})
	frames := 0
	for rest := stream; len(rest) > 0; {
		k := min(len(rest), 1000)
		r.Write(rest[:k])
		rest = rest[k:]
		for {
			_, err := r.Next()
			if err == ErrNeedMore {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			frames++
		}
	}
	if frames != 100_001 || cap(r.buf) > 4*initialBufSize {
		t.Fatalf("%d frames, buffer of %d bytes", frames, cap(r.buf))
	}
}

// pushAll feeds in to a push Reader in pieces of k bytes, calling Next
// after each, then CloseWrite, and returns the frames and the error that
// ends them (nil for io.EOF).
func pushAll(r *Reader, in []byte, k int) ([]Frame, error) {
	var fs []Frame
	for rest := in; ; {
		if len(rest) == 0 {
			r.CloseWrite()
		} else {
			n := min(k, len(rest))
			r.Write(rest[:n])
			rest = rest[n:]
		}
		for {
			f, err := r.Next()
			if err == ErrNeedMore {
				break
			}
			if err == io.EOF {
				return fs, nil
			}
			if err != nil {
				return fs, err
			}
			fs = append(fs, Frame{f.Type, append([]byte{}, f.Payload...)})
		}
	}
}

// TestPushReaderEveryCut: every prefix of a response, pushed whole or a
// byte at a time, reads as the same frames and the same error as from an
// io.Reader, with and without RawFrames.
func TestPushReaderEveryCut(t *testing.T) {
	resp := sampleResponse()
	for _, opts := range []ReaderOptions{{}, {RawFrames: true}} {
		for cut := range len(resp) + 1 {
			want, wantErr := readAll(NewReader(bytes.NewReader(resp[:cut]), opts))
			for _, k := range []int{1, 3, len(resp)} {
				got, err := pushAll(NewPushReader(opts), resp[:cut], k)
				if !cmp.Equal(want, got, cmp.Comparer(bytes.Equal)) || fmt.Sprint(wantErr) != fmt.Sprint(err) {
					t.Errorf("options %+v, cut at %d, pieces of %d: %d frames, %v; pull read %d frames, %v",
						opts, cut, k, len(got), err, len(want), wantErr)
				}
			}
		}
	}
}
