package frame

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeLog records each Write separately.
type writeLog struct {
	mu     sync.Mutex
	writes [][]byte
	err    error
}

func (l *writeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return 0, l.err
	}
	l.writes = append(l.writes, append([]byte{}, p...))
	return len(p), nil
}

func TestWriterOneWritePerCall(t *testing.T) {
	var log writeLog
	w := NewWriter(&log, WriterOptions{})
	if err := w.WriteToken(42); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteText(3, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteDone(StopEndTurn, ""); err != nil {
		t.Fatal(err)
	}
	want := [][]byte{
		AppendShortToken(AppendMagic(nil), 42), // Magic rides with the first frame.
		AppendText(nil, 3, []byte("hi")),
		AppendDone(nil, StopEndTurn, ""),
	}
	if d := cmp.Diff(want, log.writes, cmp.Comparer(bytes.Equal)); d != "" {
		t.Fatalf("writes (-want +got):\n%s", d)
	}
}

func TestWriterFlushEmptyStream(t *testing.T) {
	var log writeLog
	w := NewWriter(&log, WriterOptions{})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]byte{[]byte(Magic)}, log.writes); d != "" {
		t.Fatalf("writes (-want +got):\n%s", d)
	}
}

type flushCounter struct {
	bytes.Buffer
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++ }

// TestWriterFlushesUnderlying: Flush writes what the Writer holds (Magic
// alone, or frames waiting for a coalescing interval) and then flushes the
// underlying writer, once a call, in every mode.
func TestWriterFlushesUnderlying(t *testing.T) {
	for _, opts := range []WriterOptions{{}, {Batching: true}, {Coalesce: time.Hour}} {
		for _, tokens := range [][]uint32{nil, {1}, {1, 2}} {
			var fc flushCounter
			w := NewWriter(&fc, opts)
			want := AppendMagic(nil)
			for _, id := range tokens {
				_ = w.WriteToken(id) // with coalescing, the second waits
				want = AppendShortToken(want, id)
			}
			if err := w.Flush(); err != nil || fc.flushes != 1 {
				t.Errorf("options %+v, %d tokens: Flush: %v, %d underlying flushes; want 1", opts, len(tokens), err, fc.flushes)
			}
			if !bytes.Equal(fc.Bytes(), want) {
				t.Errorf("options %+v, %d tokens: % X written, want % X", opts, len(tokens), fc.Bytes(), want)
			}
			if err := w.Flush(); err != nil || fc.flushes != 2 {
				t.Errorf("options %+v, %d tokens: second Flush: %v, %d underlying flushes; want 2", opts, len(tokens), err, fc.flushes)
			}
		}
	}
}

func TestWriterStickyError(t *testing.T) {
	boom := errors.New("boom")
	log := writeLog{err: boom}
	w := NewWriter(&log, WriterOptions{})
	if err := w.WriteToken(1); err != boom {
		t.Fatalf("first write: %v, want %v", err, boom)
	}
	log.err = nil
	if err := w.WriteText(0, nil); err != boom {
		t.Fatalf("after failure: %v, want the sticky %v", err, boom)
	}
	if err := w.Flush(); err != boom {
		t.Fatalf("Flush after failure: %v, want %v", err, boom)
	}
	if len(log.writes) != 0 {
		t.Fatalf("wrote %d times after the error", len(log.writes))
	}
}

func TestWriterRejectsBadValues(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, WriterOptions{})
	err := w.WriteUsage(Usage{CacheHitRatio: PPM + 1})
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrMalformed) || e.Offset != 15 {
		t.Fatalf("WriteUsage: %v, want ErrMalformed at 15, the ratio's offset", err)
	}
	for _, f := range []Frame{
		{TypeToken, []byte{1}},
		{0x10, nil},
		{TypePad, make([]byte, MaxPayload+1)},
		{TypeDone, []byte{0}},
	} {
		if err := w.WriteFrame(f); err == nil {
			t.Errorf("WriteFrame(%v, %d bytes) succeeded", f.Type, len(f.Payload))
		}
	}
	// A rejected value is not sticky and writes nothing.
	if err := w.WriteToken(5); err != nil {
		t.Fatal(err)
	}
	if want := AppendShortToken(AppendMagic(nil), 5); !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("wrote % X, want % X", out.Bytes(), want)
	}
}

func TestWriterPadding(t *testing.T) {
	for _, block := range []int{1, 4, 16, 64, 1000} {
		var log writeLog
		w := NewWriter(&log, WriterOptions{Padding: block})
		_ = w.WriteToken(1)
		_ = w.WriteToken(1, 2, 3)
		_ = w.WriteText(0, []byte("a longer piece of text"))
		var all []byte
		for i, p := range log.writes {
			n := len(p)
			if i == 0 {
				n -= len(Magic)
			}
			if n%block != 0 {
				t.Errorf("block %d: write %d is %d bytes", block, i, n)
			}
			all = append(all, p...)
		}
		// The padding is PAD frames a Reader returns and can drop.
		var kept int
		for f, err := range NewReader(bytes.NewReader(all), ReaderOptions{RawFrames: true}).All() {
			if err != nil {
				t.Fatal(err)
			}
			if f.Type != TypePad {
				kept++
			}
		}
		if kept != 3 {
			t.Errorf("block %d: %d frames besides PAD, want 3", block, kept)
		}
	}
}

// blockingWriter blocks every Write until released, like a full socket.
type blockingWriter struct {
	entered chan struct{}
	release chan struct{}
	writeLog
}

func (b *blockingWriter) Write(p []byte) (int, error) {
	b.entered <- struct{}{}
	<-b.release
	return b.writeLog.Write(p)
}

// TestWriterBatching: a Writer made with Batching, or Coalesce with
// any d, gathers the frames that arrive, from any goroutine, while its
// Write is blocked, without a Write of their own, and hands them over
// together in the next; a frame that finds the Writer idle is written at
// once.
func TestWriterBatching(t *testing.T) {
	for name, opt := range map[string]WriterOptions{
		"Batching":               {Batching: true},
		"Coalesce 1h":            {Coalesce: time.Hour},
		"Batching, Coalesce 0":   {Batching: true, Coalesce: 0},
		"Batching, Coalesce -1s": {Batching: true, Coalesce: -time.Second},
	} {
		bw := &blockingWriter{entered: make(chan struct{}), release: make(chan struct{})}
		w := NewWriter(bw, opt)
		done := make(chan error)
		go func() { done <- w.WriteToken(1) }()
		<-bw.entered // the first Write is in flight, and blocked

		others := make(chan error)
		go func() {
			for id := uint32(2); id <= 4; id++ {
				if err := w.WriteToken(id); err != nil {
					others <- err
					return
				}
			}
			others <- nil
		}()
		select {
		case err := <-others: // the calls returned without waiting
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		case <-bw.entered:
			t.Fatalf("%s: a second Write began while the first was blocked", name)
		}
		go func() {
			for range bw.entered {
				bw.release <- struct{}{}
			}
		}()
		bw.release <- struct{}{} // the first Write returns
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := w.Flush(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		close(bw.entered)
		want := [][]byte{
			AppendShortToken(AppendMagic(nil), 1),
			AppendShortToken(AppendShortToken(AppendShortToken(nil, 2), 3), 4),
		}
		if d := cmp.Diff(want, bw.writes); d != "" {
			t.Errorf("%s: writes (-want +got):\n%s", name, d)
		}
	}
}

// TestWriterConcurrent: concurrent callers of a batching Writer never
// interleave frames, and lose none.
func TestWriterConcurrent(t *testing.T) {
	for _, opts := range []WriterOptions{{Batching: true}, {Batching: true, Padding: 7}} {
		var out bytes.Buffer
		var mu sync.Mutex
		w := NewWriter(writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return out.Write(p)
		}), opts)
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 200 {
					_ = w.WriteText(uint16(g), []byte{byte(i), byte(i), byte(i)})
				}
			}()
		}
		wg.Wait()
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		next := make([]int, 8)
		for f, err := range NewReader(&out, ReaderOptions{RawFrames: true}).All() {
			if err != nil {
				t.Fatal(err)
			}
			if f.Type == TypePad {
				continue
			}
			block, text, _ := f.Text()
			i := next[block]
			if !bytes.Equal(text, []byte{byte(i), byte(i), byte(i)}) {
				t.Fatalf("block %d frame %d: text % X", block, i, text)
			}
			next[block]++
		}
		for g, n := range next {
			if n != 200 {
				t.Fatalf("block %d: %d frames, want 200", g, n)
			}
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

var _ io.Writer = writerFunc(nil)

// TestWriterBadOptions: a padding block the wire cannot carry is refused
// on the first call, and every later one, writing nothing.
func TestWriterBadOptions(t *testing.T) {
	for _, block := range []int{-1, MaxPadBlock + 1, 70_000} {
		var out bytes.Buffer
		w := NewWriter(&out, WriterOptions{Padding: block})
		if err := w.WriteText(0, []byte("x")); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Padding %d: %v, want ErrTooLarge", block, err)
		}
		if err := w.Flush(); !errors.Is(err, ErrTooLarge) || out.Len() != 0 {
			t.Errorf("Padding %d: Flush %v, wrote %d bytes", block, err, out.Len())
		}
	}
	// The largest block pads to its size with one PAD frame.
	var out bytes.Buffer
	w := NewWriter(&out, WriterOptions{Padding: MaxPadBlock})
	if err := w.WriteText(0, []byte("x")); err != nil || out.Len() != len(Magic)+MaxPadBlock {
		t.Fatalf("Padding %d: %d bytes, %v", MaxPadBlock, out.Len(), err)
	}
	if _, err := readAll(NewReader(bytes.NewReader(out.Bytes()), ReaderOptions{RawFrames: true})); err != nil {
		t.Fatal(err)
	}
}

// TestWriterNameAndKindLimits: values a field cannot carry are the kinds
// SPEC.md §6 names, written nowhere.
func TestWriterNameAndKindLimits(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, WriterOptions{})
	for name, c := range map[string]struct {
		err  error
		kind error
	}{
		"name of 256":   {w.WriteEvent(EventJSON, make([]byte, 256), nil), ErrTooLarge},
		"encoding 2":    {w.WriteEvent(2, nil, []byte("{}")), ErrMalformed},
		"encoding 0x81": {w.WriteEvent(0x81, nil, []byte("{}")), ErrMalformed},
		"delta kind 0":  {w.WriteDelta(0, 0, nil), ErrMalformed},
		"delta kind 5":  {w.WriteDelta(0, 5, nil), ErrMalformed},
		"long citation": {w.WriteDelta(0, DeltaCitation, make([]byte, maxDeltaPerFrame+1)), ErrTooLarge},
		"block op 3":    {w.WriteBlock(0, 3), ErrMalformed},
		"frame of 64Ki": {w.WriteFrame(Frame{TypePad, make([]byte, MaxPayload+1)}), ErrTooLarge},
		"type 0x10":     {w.WriteFrame(Frame{0x10, nil}), ErrUnknownType},
		"done of 00":    {w.WriteFrame(Frame{TypeDone, []byte{0}}), ErrMalformed},
	} {
		if !errors.Is(c.err, c.kind) {
			t.Errorf("%s: %v, want %v", name, c.err, c.kind)
		}
	}
	if out.Len() != 0 {
		t.Fatalf("wrote %d bytes for calls that all failed", out.Len())
	}
	// At the limits, the values are written and read back.
	if err := w.WriteEvent(EventJSON, make([]byte, MaxEventName), nil); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteDelta(0, DeltaCitation, make([]byte, maxDeltaPerFrame)); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFrame(Frame{TypePad, make([]byte, MaxPayload)}); err != nil {
		t.Fatal(err)
	}
	if fs, err := readAll(NewReader(bytes.NewReader(out.Bytes()), ReaderOptions{RawFrames: true})); err != nil || len(fs) != 3 {
		t.Fatalf("%d frames, %v", len(fs), err)
	}
}

// writeCall is a call of a Writer method, with the frames it writes on a
// healthy Writer.
type writeCall struct {
	name  string
	write func(w *Writer) error
	want  []byte
}

// packedTwice is what two WriteToken(ids...) calls of a stream write: the
// second's PACKED_TOKEN frame names the IDs the first sent (SPEC.md §3.1.1).
func packedTwice(ids ...uint32) (first, again []byte) {
	var e TokenEncoder
	return e.AppendPackedToken(nil, ids...), e.AppendPackedToken(nil, ids...)
}

var (
	packed12, packed12Again     = packedTwice(1, 2)
	packedLong, packedLongAgain = packedTwice(longIDs...)
	// writtenAgain is what a call writes the second time, where that is
	// not what it wrote the first.
	writtenAgain = map[string][]byte{"WriteToken": packed12Again, "long WriteToken": packedLongAgain}
)

// writeCalls is one call of each Write… method.
var writeCalls = []writeCall{
	{"WriteToken", func(w *Writer) error { return w.WriteToken(1, 2) }, packed12},
	{"WriteText", func(w *Writer) error { return w.WriteText(3, []byte("hi")) }, AppendText(nil, 3, []byte("hi"))},
	{"WriteUsage", func(w *Writer) error { return w.WriteUsage(Usage{1, 2, 3}) }, AppendUsage(nil, Usage{1, 2, 3})},
	{"WriteCacheUsage", func(w *Writer) error { return w.WriteCacheUsage(CacheUsage{4, 5}) }, AppendCacheUsage(nil, CacheUsage{4, 5})},
	{"WriteError", func(w *Writer) error { return w.WriteError(CodeAPI, "x") }, AppendError(nil, CodeAPI, "x")},
	{"WriteDone", func(w *Writer) error { return w.WriteDone(StopEndTurn, "") }, AppendDone(nil, StopEndTurn, "")},
	{"WritePad", func(w *Writer) error { return w.WritePad(2) }, AppendPad(nil, 2)},
	{"WriteFrame", func(w *Writer) error { return w.WriteFrame(Frame{0x90, []byte{7}}) }, Frame{0x90, []byte{7}}.Append(nil)},
	{"WriteDelta", func(w *Writer) error { return w.WriteDelta(1, DeltaThinking, []byte("t")) }, AppendDelta(nil, 1, DeltaThinking, []byte("t"))},
	{"WriteBlock", func(w *Writer) error { return w.WriteBlock(1, BlockStartText) }, AppendBlock(nil, 1, BlockStartText)},
	{"WriteEvent", func(w *Writer) error { return w.WriteEvent(EventJSON, []byte("e"), []byte("{}")) }, AppendEvent(nil, EventJSON, []byte("e"), []byte("{}"))},
	// Values longer than a frame, in one Write all the same.
	{"long WriteToken", func(w *Writer) error { return w.WriteToken(longIDs...) }, packedLong},
	{"long WriteText", func(w *Writer) error { return w.WriteText(1, longText) }, AppendText(nil, 1, longText)},
	{"long WriteDelta", func(w *Writer) error { return w.WriteDelta(1, DeltaThinking, longText[:maxDeltaPerFrame+1]) },
		AppendDelta(nil, 1, DeltaThinking, longText[:maxDeltaPerFrame+1])},
	{"long WriteEvent", func(w *Writer) error { return w.WriteEvent(EventDeflate, longText[:MaxEventName], longText) },
		AppendEvent(nil, EventDeflate, longText[:MaxEventName], longText)},
	{"long WriteError", func(w *Writer) error { return w.WriteError(CodeAPI, string(longText)) }, AppendError(nil, CodeAPI, string(longText))},
	{"long WriteDone", func(w *Writer) error { return w.WriteDone(StopSequence, string(longText)) }, AppendDone(nil, StopSequence, string(longText))},
	{"long WritePad", func(w *Writer) error { return w.WritePad(len(longText)) }, AppendPad(nil, len(longText))},
	{"WriteFrame of 65,535 bytes", func(w *Writer) error { return w.WriteFrame(Frame{TypeText, longText[:MaxPayload]}) },
		Frame{TypeText, longText[:MaxPayload]}.Append(nil)},
}

var (
	longText = bytes.Repeat([]byte("long"), 40_000)       // 160,000 bytes: three frames
	longIDs  = slices.Repeat([]uint32{1, 0xFFFF}, 20_000) // two TOKEN frames
)

// TestWriterStickyEveryCall: once the underlying writer has failed, every
// Write… method and Flush returns its error and writes nothing, whether the
// Writer batches or not, and whether the call would write a frame or not.
func TestWriterStickyEveryCall(t *testing.T) {
	boom := errors.New("boom")
	calls := append(writeCalls[:len(writeCalls):len(writeCalls)],
		writeCall{"WriteToken()", func(w *Writer) error { return w.WriteToken() }, nil},
		writeCall{"WritePad(0)", func(w *Writer) error { return w.WritePad(0) }, nil},
		writeCall{"Flush", (*Writer).Flush, nil},
	)
	for _, opts := range []WriterOptions{{}, {Batching: true}, {Coalesce: time.Hour}} {
		for _, c := range calls {
			log := writeLog{err: boom}
			w := NewWriter(&log, opts)
			if err := w.WriteToken(1); err != boom {
				t.Fatalf("options %+v: first write: %v, want %v", opts, err, boom)
			}
			log.err = nil
			for range 2 {
				if err := c.write(w); err != boom {
					t.Errorf("options %+v, %s after a failed write: %v, want the sticky %v", opts, c.name, err, boom)
				}
			}
			if len(log.writes) != 0 {
				t.Errorf("options %+v, %s after a failed write: wrote % X", opts, c.name, log.writes)
			}
		}
	}
}

// TestWriterEachCall: each Write… method hands its frames to the underlying
// writer in one Write, Magic riding with the first, whether the Writer
// batches or not; calls with nothing to write write nothing.
func TestWriterEachCall(t *testing.T) {
	for _, opts := range []WriterOptions{{}, {Batching: true}, {Coalesce: time.Hour}, {Padding: 0}} {
		for _, c := range writeCalls {
			var log writeLog
			w := NewWriter(&log, opts)
			for _, nothing := range []func() error{func() error { return w.WriteToken() }, func() error { return w.WritePad(0) }, func() error { return w.WritePad(-1) }} {
				if err := nothing(); err != nil {
					t.Fatalf("options %+v: a call with nothing to write: %v", opts, err)
				}
			}
			if len(log.writes) != 0 {
				t.Fatalf("options %+v: calls with nothing to write wrote % X", opts, log.writes)
			}
			if err := c.write(w); err != nil {
				t.Fatalf("options %+v, %s: %v", opts, c.name, err)
			}
			if err := c.write(w); err != nil {
				t.Fatalf("options %+v, %s again: %v", opts, c.name, err)
			}
			// Coalescing holds the second call's frames for the interval.
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			again := c.want
			if b, ok := writtenAgain[c.name]; ok {
				again = b
			}
			want := [][]byte{append(AppendMagic(nil), c.want...), again}
			if d := cmp.Diff(want, log.writes, cmp.Comparer(bytes.Equal)); d != "" {
				t.Errorf("options %+v, %s: writes (-want +got):\n%s", opts, c.name, d)
			}
		}
	}
}

// TestWriterBackPressure: while a batching Writer's Write is blocked, calls
// return at once until the frames waiting for it pass maxBatch bytes; the
// call that passes it waits for the Write, and all go out in order.
func TestWriterBackPressure(t *testing.T) {
	// Text of fill bytes makes frames of maxBatch bytes exactly; one byte
	// more passes it.
	fill := maxBatch
	for SizeText(fill) > maxBatch {
		fill--
	}
	if SizeText(fill) != maxBatch {
		t.Fatalf("no text fills %d bytes", maxBatch)
	}
	for _, extra := range []int{0, 1} {
		bw := &blockingWriter{entered: make(chan struct{}), release: make(chan struct{})}
		w := NewWriter(bw, WriterOptions{Batching: true})
		first := make(chan error)
		go func() { first <- w.WriteToken(1) }()
		<-bw.entered // the first Write is in flight, and blocked

		text := bytes.Repeat([]byte("a"), fill+extra)
		second := make(chan error)
		go func() { second <- w.WriteText(0, text) }()
		if extra == 0 {
			// At the limit the call returns without waiting.
			select {
			case err := <-second:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%d bytes waiting: the call waits for the blocked Write", maxBatch)
			}
		} else {
			select {
			case err := <-second:
				t.Fatalf("%d bytes waiting: the call returned (%v) while the Write was blocked", SizeText(fill+extra), err)
			case <-time.After(50 * time.Millisecond):
			}
		}
		bw.release <- struct{}{} // the first Write returns; its caller writes the text
		<-bw.entered
		bw.release <- struct{}{}
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		if extra > 0 {
			if err := <-second; err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		want := [][]byte{AppendShortToken(AppendMagic(nil), 1), AppendText(nil, 0, text)}
		if !slices.EqualFunc(want, bw.writes, bytes.Equal) {
			t.Fatalf("%d bytes waiting: %d writes, want the token, then the text", SizeText(fill+extra), len(bw.writes))
		}
	}
}

// flushErrWriter's Flush fails.
type flushErrWriter struct {
	bytes.Buffer
	err     error
	flushes int
}

func (f *flushErrWriter) Flush() error { f.flushes++; return f.err }

// TestWriterFlushErrors: a Write that fails in Flush, or the underlying
// writer's own Flush failing, is Flush's error and sticky, whether the
// Writer batches or not.
func TestWriterFlushErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, opts := range []WriterOptions{{}, {Batching: true}, {Coalesce: time.Hour}} {
		// Magic is all there is to write; the Write fails.
		log := writeLog{err: boom}
		w := NewWriter(&log, opts)
		if err := w.WritePad(0); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := w.Flush(); err != boom {
				t.Errorf("options %+v: Flush: %v, want %v", opts, err, boom)
			}
		}
		log.err = nil
		if err := w.WriteText(0, nil); err != boom || len(log.writes) != 0 {
			t.Errorf("options %+v: after a failed Flush: %v, %d writes", opts, err, len(log.writes))
		}

		// The frames are written; the underlying Flush fails.
		fw := &flushErrWriter{err: boom}
		w = NewWriter(fw, opts)
		if err := w.WriteToken(1); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := w.Flush(); err != boom {
				t.Errorf("options %+v: Flush: %v, want the underlying Flush's %v", opts, err, boom)
			}
		}
		fw.err = nil
		if err := w.WriteToken(2); err != boom || fw.flushes != 1 {
			t.Errorf("options %+v: after a failed Flush: %v, %d underlying flushes", opts, err, fw.flushes)
		}
		if want := AppendShortToken(AppendMagic(nil), 1); !bytes.Equal(fw.Bytes(), want) {
			t.Errorf("options %+v: wrote % X, want % X", opts, fw.Bytes(), want)
		}
	}
}

// TestAppendPadTo: the PAD frame AppendPadTo adds is the shortest that makes
// the frames a multiple of the block, a PAD frame being 3 bytes at least;
// a block of 0 or 1, or outside what CheckPadBlock accepts, adds nothing.
func TestAppendPadTo(t *testing.T) {
	for _, block := range []int{2, 3, 4, 5, 16, 1000, MaxPadBlock} {
		for _, n := range []int{0, 1, 2, 3, 4, 5, block - 3, block - 2, block - 1, block, block + 1, 2*block - 3, 2*block + 1} {
			if n < 0 {
				continue
			}
			b := AppendPadTo(append([]byte("prefix"), make([]byte, n)...), len("prefix"), block)
			got := len(b) - len("prefix")
			want := n
			for want%block != 0 || want > n && want-n < HeaderSize {
				want++
			}
			if got != want {
				t.Errorf("block %d, %d bytes: padded to %d, want %d", block, n, got, want)
			}
			if got > n {
				f, k, err := Parse(b[len("prefix")+n:])
				if err != nil || f.Type != TypePad || k != got-n {
					t.Errorf("block %d, %d bytes: padding % X", block, n, b[len("prefix")+n:])
				}
			}
		}
	}
	for _, block := range []int{-1, 0, 1, MaxPadBlock + 1} {
		if b := AppendPadTo([]byte("x"), 0, block); string(b) != "x" {
			t.Errorf("block %d: padded to % X", block, b)
		}
		if err := CheckPadBlock(block); (err == nil) != (block >= 0 && block <= MaxPadBlock) {
			t.Errorf("CheckPadBlock(%d): %v", block, err)
		}
	}
	if err := CheckPadBlock(MaxPadBlock); err != nil {
		t.Errorf("CheckPadBlock(%d): %v", MaxPadBlock, err)
	}
}

// TestWriterErrorOffsets: a value a Writer refuses is an *Error at the
// stream offset where its frame would have gone (plus the fault's place in
// the frame), counting Magic, the frames written before it and their
// padding, in every mode.
func TestWriterErrorOffsets(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(w *Writer) error
		kind  error
		at    int64 // from the frame's start
	}{
		{"usage ratio", func(w *Writer) error { return w.WriteUsage(Usage{CacheHitRatio: PPM + 1}) }, ErrMalformed, 11},
		{"stop sequence with no reason", func(w *Writer) error { return w.WriteDone(StopUnspecified, "x") }, ErrMalformed, 0},
		{"long citation", func(w *Writer) error { return w.WriteDelta(0, DeltaCitation, make([]byte, maxDeltaPerFrame+1)) }, ErrTooLarge, 0},
		{"delta kind", func(w *Writer) error { return w.WriteDelta(0, 5, nil) }, ErrMalformed, 5},
		{"block op", func(w *Writer) error { return w.WriteBlock(0, 3) }, ErrMalformed, 5},
		{"event name", func(w *Writer) error { return w.WriteEvent(EventJSON, make([]byte, 256), nil) }, ErrTooLarge, 0},
		{"event encoding", func(w *Writer) error { return w.WriteEvent(4, nil, nil) }, ErrMalformed, 3},
		{"event binary32 length", func(w *Writer) error { return w.WriteEvent(EventBinary32, []byte("lp"), []byte{0, 0, 0}) }, ErrMalformed, 7},
		{"event binary32 infinity", func(w *Writer) error { return w.WriteEvent(EventBinary32, nil, []byte{0, 0, 0x80, 0xFF}) }, ErrMalformed, 5},
		{"event encoding with More", func(w *Writer) error { return w.WriteEvent(0x81, nil, nil) }, ErrMalformed, 0},
		{"frame too long", func(w *Writer) error { return w.WriteFrame(Frame{TypePad, make([]byte, MaxPayload+1)}) }, ErrTooLarge, 0},
		{"frame of unknown type", func(w *Writer) error { return w.WriteFrame(Frame{0x10, nil}) }, ErrUnknownType, 0},
		{"frame too short", func(w *Writer) error { return w.WriteFrame(Frame{TypeText, []byte{0}}) }, ErrMalformed, 1},
		{"frame's payload", func(w *Writer) error { return w.WriteFrame(Frame{TypeDone, []byte{0}}) }, ErrMalformed, 3},
	} {
		for _, opts := range []WriterOptions{{}, {Batching: true}, {Coalesce: time.Hour}, {Padding: 7}} {
			var log writeLog
			w := NewWriter(&log, opts)
			wrote := int64(len(Magic)) // the offset of the next frame
			for range 2 {
				if err := c.write(w); err != nil {
					var e *Error
					if !errors.As(err, &e) || !errors.Is(err, c.kind) || e.Offset != wrote+c.at {
						t.Errorf("%s, options %+v, after %d bytes: %v, want %v at %d", c.name, opts, wrote, err, c.kind, wrote+c.at)
					}
				} else {
					t.Errorf("%s, options %+v: no error", c.name, opts)
				}
				// A frame written, the offset moves past it and its padding.
				if err := w.WriteToken(1, 2, 3); err != nil {
					t.Fatal(err)
				}
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				wrote = 0
				for _, b := range log.writes {
					wrote += int64(len(b))
				}
			}
		}
	}
}

// TestWriterUncheckedTypes: WriteToken and WriteText send their frames
// without the payload check every other Write method makes (issue 26: it
// was a quarter of writing a token), which is sound only while their
// types have no payload rule. A rule added to one of them fails here, so
// that the Writer calls commit for it again.
func TestWriterUncheckedTypes(t *testing.T) {
	for _, typ := range []Type{TypeToken, TypeToken32, TypeText} {
		if types[typ].check != nil {
			t.Errorf("%v has a payload rule: WriteToken and WriteText must check it (commit, not send)", typ)
		}
	}
}
