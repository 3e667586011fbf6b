package frame

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/layer0/anth/internal/testdata"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestReaderStickyError(t *testing.T) {
	in := string(AppendToken(AppendMagic(nil), 1)) + "\x7F\x00\x00" + string(AppendToken(nil, 2))
	r := NewReader(strings.NewReader(in), ReaderOptions{})
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Next()
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrUnknownType) || e.Offset != 9 || e.Type != 0x7F {
		t.Fatalf("Next: %v, want ErrUnknownType for type 0x7F at 9", err)
	}
	for range 3 {
		if _, again := r.Next(); again != err {
			t.Fatalf("Next after an error: %v, want the same error", again)
		}
	}
}

func TestReaderReset(t *testing.T) {
	r := NewReader(strings.NewReader("JUNK"), ReaderOptions{})
	if _, err := r.Next(); !errors.Is(err, ErrBadMagic) {
		t.Fatalf("Next: %v, want ErrBadMagic", err)
	}
	r.Reset(bytes.NewReader(AppendDone(AppendToken(AppendMagic(nil), 7), StopEndTurn, "")))
	f, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if ids, _ := f.Tokens(nil); len(ids) != 1 || ids[0] != 7 || r.Offset() != 9 {
		t.Fatalf("after Reset: tokens %v at offset %d", ids, r.Offset())
	}
	if f, err := r.Next(); err != nil || f.Type != TypeDone {
		t.Fatalf("after Reset: %v, %v; want DONE", f.Type, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("end: %v, want io.EOF", err)
	}
}

func TestReaderUnderlyingError(t *testing.T) {
	boom := errors.New("connection reset")
	stream := AppendToken(AppendMagic(nil), 1)
	r := NewReader(io.MultiReader(bytes.NewReader(stream), iotest.ErrReader(boom)), ReaderOptions{})
	if _, err := r.Next(); err != nil {
		t.Fatalf("frame before the error: %v", err)
	}
	if _, err := r.Next(); err != boom {
		t.Fatalf("Next: %v, want the reader's own error", err)
	}
}

func TestReaderNoProgress(t *testing.T) {
	if _, err := NewReader(testdata.EmptyReader{}, ReaderOptions{}).Next(); err != io.ErrNoProgress {
		t.Fatalf("Next: %v, want io.ErrNoProgress", err)
	}
}

// TestReaderLargeFrames crosses the initial buffer size, and checks the
// buffer never grows past one frame.
func TestReaderLargeFrames(t *testing.T) {
	stream := AppendMagic(nil)
	sizes := []int{0, 1, initialBufSize - 5, initialBufSize, 40_000, maxTextPerFrame, 3}
	for i, n := range sizes {
		stream = AppendText(stream, uint16(i), bytes.Repeat([]byte{byte('a' + i)}, n))
	}
	for name, wrap := range readers {
		r := NewReader(wrap(bytes.NewReader(stream)), ReaderOptions{RawFrames: true})
		i := 0
		for f, err := range r.All() {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			block, text, _ := f.Text()
			if int(block) != i || !bytes.Equal(text, bytes.Repeat([]byte{byte('a' + i)}, sizes[i])) {
				t.Fatalf("%s: frame %d: block %d, %d bytes", name, i, block, len(text))
			}
			i++
		}
		if i != len(sizes) || len(r.buf) > MaxFrameSize {
			t.Fatalf("%s: %d frames, buffer %d bytes", name, i, len(r.buf))
		}
	}
}

// TestReaderChecksBeforeReading: a header that cannot be valid fails before
// the Reader asks for (or makes room for) its payload.
func TestReaderChecksBeforeReading(t *testing.T) {
	// A USAGE frame declaring 65,535 bytes, and then nothing: the Reader must
	// say "bad payload", not wait for 65,535 bytes and say "truncated".
	r := NewReader(strings.NewReader("ANTH\x01\xFF\xFF"), ReaderOptions{})
	if _, err := r.Next(); !errors.Is(err, ErrMalformed) {
		t.Fatalf("Next: %v, want ErrMalformed", err)
	}
	if len(r.buf) > initialBufSize {
		t.Fatalf("buffer grew to %d bytes for a frame it rejects", len(r.buf))
	}
}

func TestWrongTypeAccessors(t *testing.T) {
	f := Frame{Type: TypePad}
	errs := []error{}
	_, err := f.Tokens(nil)
	errs = append(errs, err)
	_, err = f.Usage()
	errs = append(errs, err)
	_, err = f.CacheUsage()
	errs = append(errs, err)
	_, _, err = f.Text()
	errs = append(errs, err)
	_, _, err = f.ErrorMessage()
	errs = append(errs, err)
	_, _, err = Frame{Type: TypeText}.Done()
	errs = append(errs, err)
	for i, err := range errs {
		if !errors.Is(err, ErrWrongType) {
			t.Errorf("accessor %d: %v, want ErrWrongType", i, err)
		}
	}
	if got := errs[0].Error(); got != "frame: PAD frame: wrong frame type: accessor for a token frame" {
		t.Errorf("message %q", got)
	}
}

// TestErrorMessage: an error says its offset, from 0, when it is about
// input, and the frame type when there is one.
func TestErrorMessage(t *testing.T) {
	for in, want := range map[string]string{
		"ANTH\x01\x00\x0B": "frame: offset 5: USAGE frame: malformed: payload length 11, want 12",
		"":                 `frame: offset 0: unexpected EOF: empty stream, want "ANTH"`,
		"X":                `frame: offset 0: bad magic: stream must start with "ANTH" (41 4E 54 48)`,
		"ANTH\x7F":         "frame: offset 5: TYPE(0x7F) frame: unexpected EOF: stream ends inside a frame",
		"ANTH\x08\x00":     "frame: offset 6: SHORT_TOKEN frame: unexpected EOF: stream ends inside a frame",
		"ANTH\x09\x00\x00": "frame: offset 7: SHORT_TOKEN24 frame: unexpected EOF: stream ends inside a frame",
	} {
		_, err := NewReader(strings.NewReader(in), ReaderOptions{}).Next()
		if err == nil || err.Error() != want {
			t.Errorf("% X: error %q, want %q", in, err, want)
		}
	}
	for in, want := range map[string]string{
		"\x00":             "frame: offset 1: unexpected EOF: frame header needs 3 bytes, have 1",
		"\x00\x00\x04\x00": "frame: offset 4: TOKEN frame: unexpected EOF: payload of 4 bytes, have 1",
		"\x09\x00\x00":     "frame: offset 3: SHORT_TOKEN24 frame: unexpected EOF: payload of 3 bytes, have 2",
	} {
		if _, _, err := Parse([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("Parse(% X): error %q, want %q", in, err, want)
		}
	}
	if got, want := CheckPadBlock(-1).Error(), "frame: too large: padding block of -1 bytes, want 0 to 65535"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{TypeCacheUsage.String(), "CACHE_USAGE"},
		{Type(0x42).String(), "TYPE(0x42)"},
		{StopToolUse.String(), "ToolUse"},
		{StopReason(99).String(), "StopReason(99)"},
		{StopModelContextWindowExceeded.String(), "ModelContextWindowExceeded"},
		{StopReason(8).String(), "StopReason(8)"},
		{CodeOverloaded.String(), "529"},
		{DeltaCitation.String(), "Citation"},
		{DeltaKind(0).String(), "DeltaKind(0)"},
		{DeltaKind(5).String(), "DeltaKind(5)"},
		{BlockStartThinking.String(), "StartThinking"},
		{BlockOp(3).String(), "BlockOp(3)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if !TypePad.Ignorable() || TypeText.Ignorable() || Type(0x90).Known() || Type(0x7F).Known() || !TypeShortToken24.Known() {
		t.Error("type ranges wrong")
	}
}

func TestCacheHitRatio(t *testing.T) {
	for _, c := range []struct {
		cached, input uint64
		want          uint32
	}{
		{0, 0, 0}, {0, 10, 0}, {1, 4, 250_000}, {10, 10, PPM}, {11, 10, PPM},
		{1 << 62, 1 << 63, 500_000}, {1<<64 - 2, 1<<64 - 1, 999_999},
	} {
		if got := CacheHitRatio(c.cached, c.input); got != c.want {
			t.Errorf("CacheHitRatio(%d, %d) = %d, want %d", c.cached, c.input, got, c.want)
		}
	}
}

// TestAccessorsEveryType calls every accessor on the smallest frame of every
// type Parse returns: it reads its own type (TOKEN and TOKEN32 for Tokens)
// and fails with ErrWrongType, saying the frame's type and no offset, on
// every other. A frame built by hand with a payload its type does not allow
// fails the same way rather than panicking.
func TestAccessorsEveryType(t *testing.T) {
	accessors := map[string]struct {
		types []Type
		call  func(Frame) error
	}{
		"Tokens":       {[]Type{TypeToken, TypeToken32}, func(f Frame) error { _, err := f.Tokens(nil); return err }},
		"Usage":        {[]Type{TypeUsage}, func(f Frame) error { _, err := f.Usage(); return err }},
		"CacheUsage":   {[]Type{TypeCacheUsage}, func(f Frame) error { _, err := f.CacheUsage(); return err }},
		"ErrorMessage": {[]Type{TypeError}, func(f Frame) error { _, _, err := f.ErrorMessage(); return err }},
		"Done":         {[]Type{TypeDone}, func(f Frame) error { _, _, err := f.Done(); return err }},
		"Text":         {[]Type{TypeText}, func(f Frame) error { _, _, err := f.Text(); return err }},
		"Delta":        {[]Type{TypeDelta}, func(f Frame) error { _, _, _, err := f.Delta(); return err }},
		"Block":        {[]Type{TypeBlock}, func(f Frame) error { _, _, err := f.Block(); return err }},
		"Event":        {[]Type{TypeEvent}, func(f Frame) error { _, err := f.Event(); return err }},
	}
	// The smallest valid frame of each type, and an unknown ignorable one.
	smallest := [][]byte{
		AppendToken(nil, 1),
		AppendToken(nil, 1<<16),
		AppendUsage(nil, Usage{}),
		AppendCacheUsage(nil, CacheUsage{}),
		AppendError(nil, 0, ""),
		AppendDone(nil, StopUnspecified, ""),
		AppendText(nil, 0, nil),
		AppendDelta(nil, 0, DeltaInputJSON, nil),
		AppendBlock(nil, 0, BlockStop),
		AppendEvent(nil, EventJSON, nil, nil),
		AppendPad(nil, 1),
		{0x90, 0, 0},
	}
	for _, b := range smallest {
		f, n, err := Parse(b)
		if err != nil || n != len(b) {
			t.Fatalf("Parse(% X): %d, %v", b, n, err)
		}
		for name, a := range accessors {
			err := a.call(f)
			if slices.Contains(a.types, f.Type) {
				if err != nil {
					t.Errorf("%s on a %v frame of %d bytes: %v", name, f.Type, len(f.Payload), err)
				}
				continue
			}
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrWrongType) || e.Offset != -1 || e.Type != f.Type || !e.hasType {
				t.Errorf("%s on a %v frame: %#v, want ErrWrongType for %v at no offset", name, f.Type, err, f.Type)
			}
		}
		if n, want := f.TokenCount(), map[Type]int{TypeToken: 1, TypeToken32: 1}[f.Type]; n != want {
			t.Errorf("TokenCount of a %v frame: %d, want %d", f.Type, n, want)
		}
	}
	for _, c := range []struct {
		f  Frame
		ok bool
	}{
		{Frame{TypeUsage, make([]byte, 11)}, false},
		{Frame{TypeUsage, make([]byte, 13)}, false},
		{Frame{TypeCacheUsage, make([]byte, 7)}, false},
		{Frame{TypeCacheUsage, make([]byte, 9)}, false},
		{Frame{TypeError, []byte{0}}, false},
		{Frame{TypeText, []byte{0}}, false},
		{Frame{TypeDelta, []byte{0, 0}}, false},
		{Frame{TypeBlock, []byte{0, 0}}, false},
		{Frame{TypeBlock, []byte{0, 0, 0, 0}}, false},
		{Frame{TypeEvent, []byte{0}}, false},
		{Frame{TypeEvent, []byte{0, 1}}, false},      // a name past the payload
		{Frame{TypeEvent, []byte{0, 1, 'a'}}, true},  // a name to the end, no data
		{Frame{TypeEvent, []byte{0, 2, 'a'}}, false}, // a name past the payload
	} {
		for name, a := range accessors {
			if !slices.Contains(a.types, c.f.Type) {
				continue
			}
			if err := a.call(c.f); c.ok != (err == nil) || !c.ok && !errors.Is(err, ErrWrongType) {
				t.Errorf("%s on a hand-built %v frame % X: %v, want ok %v", name, c.f.Type, c.f.Payload, err, c.ok)
			}
		}
	}
}

// TestAccessorsAnyPayload: the accessors never panic, whatever the frame
// holds; they fail with ErrWrongType or read it. Tokens reads the whole IDs
// a ragged payload holds, as many as TokenCount says.
func TestAccessorsAnyPayload(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := Frame{
			Type:    Type(rapid.SampledFrom([]uint8{0, 1, 2, 3, 4, 5, 6, 7, 0x80, 0x81, 0x82, 0x90}).Draw(t, "type")),
			Payload: rapid.SliceOfN(rapid.Byte(), 0, 20).Draw(t, "payload"),
		}
		ids, err := f.Tokens(nil)
		if (err == nil) != (f.Type == TypeToken || f.Type == TypeToken32) || len(ids) != f.TokenCount() {
			t.Fatalf("Tokens of %v % X: %v, %v; TokenCount %d", f.Type, f.Payload, ids, err, f.TokenCount())
		}
		for _, err := range []error{
			func() error { _, err := f.Usage(); return err }(),
			func() error { _, err := f.CacheUsage(); return err }(),
			func() error { _, _, err := f.ErrorMessage(); return err }(),
			func() error { _, _, err := f.Done(); return err }(),
			func() error { _, _, err := f.Text(); return err }(),
			func() error { _, _, _, err := f.Delta(); return err }(),
			func() error { _, _, err := f.Block(); return err }(),
			func() error { _, err := f.Event(); return err }(),
		} {
			if err != nil && !errors.Is(err, ErrWrongType) {
				t.Fatalf("%v % X: %v, want ErrWrongType or nothing", f.Type, f.Payload, err)
			}
		}
	})
}

// TestReaderFastPath: Next's fast path (a complete TOKEN, TOKEN32, TEXT or
// PAD frame in the body of a response) returns what the general path does,
// frame for frame, error for error and offset for offset, on any frames in
// any order (DONE and ERROR anywhere, frames after them, unknown types,
// damaged bytes), pulled or pushed, raw or not.
func TestReaderFastPath(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vs := rapid.SliceOfN(genValue(), 0, 20).Draw(t, "frames")
		stream := AppendMagic(nil)
		for _, v := range vs {
			stream = v.append(stream)
		}
		if rapid.Bool().Draw(t, "damage") && len(stream) > 0 {
			i := rapid.IntRange(0, len(stream)-1).Draw(t, "at")
			stream[i] = rapid.Byte().Draw(t, "byte")
		}
		stream = stream[:rapid.IntRange(0, len(stream)).Draw(t, "cut")]
		var opts ReaderOptions
		if rapid.Bool().Draw(t, "raw") {
			opts.RawFrames = true
		}
		type step struct {
			f   Frame
			err string
			off int64
		}
		read := func(r *Reader, slow bool) (steps []step) {
			for range len(stream) + 2 {
				var f Frame
				var err error
				if slow {
					r.body = false // the general path only
					f, err = r.slowNext()
				} else {
					f, err = r.Next()
				}
				steps = append(steps, step{Frame{f.Type, bytes.Clone(f.Payload)}, fmt.Sprint(err), r.Offset()})
				if err != nil {
					break
				}
			}
			return steps
		}
		push := rapid.Bool().Draw(t, "push")
		reader := func() *Reader {
			if !push {
				return NewReader(bytes.NewReader(stream), opts)
			}
			r := NewPushReader(opts)
			r.Write(stream)
			r.CloseWrite()
			return r
		}
		want := read(reader(), true)
		got := read(reader(), false)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(step{}), cmp.Comparer(bytes.Equal)); diff != "" {
			t.Fatalf("fast path differs from the general one (-general +fast):\n%s", diff)
		}
	})
}
