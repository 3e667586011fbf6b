package frame

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"

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
	w := NewWriter(&log)
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
		AppendToken(AppendMagic(nil), 42), // Magic rides with the first frame.
		AppendText(nil, 3, []byte("hi")),
		AppendDone(nil, StopEndTurn, ""),
	}
	if d := cmp.Diff(want, log.writes); d != "" {
		t.Fatalf("writes (-want +got):\n%s", d)
	}
}

func TestWriterFlushEmptyStream(t *testing.T) {
	var log writeLog
	w := NewWriter(&log)
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

func TestWriterFlushesUnderlying(t *testing.T) {
	var fc flushCounter
	w := NewWriter(&fc)
	_ = w.WriteToken(1)
	if err := w.Flush(); err != nil || fc.flushes != 1 {
		t.Fatalf("Flush: %v, %d underlying flushes; want 1", err, fc.flushes)
	}
}

func TestWriterStickyError(t *testing.T) {
	boom := errors.New("boom")
	log := writeLog{err: boom}
	w := NewWriter(&log)
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
	w := NewWriter(&out)
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
	if want := AppendToken(AppendMagic(nil), 5); !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("wrote % X, want % X", out.Bytes(), want)
	}
}

func TestWriterPadding(t *testing.T) {
	for _, block := range []int{1, 4, 16, 64, 1000} {
		var log writeLog
		w := NewWriter(&log, WithPadding(block))
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
		for f, err := range NewReader(bytes.NewReader(all), WithRawFrames()).All() {
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

// TestWriterBatching: frames that arrive while a Write is blocked go out
// together in the next Write, and a frame that finds the Writer idle is
// written at once.
func TestWriterBatching(t *testing.T) {
	bw := &blockingWriter{entered: make(chan struct{}), release: make(chan struct{})}
	w := NewWriter(bw, WithBatching())

	done := make(chan error)
	go func() { done <- w.WriteToken(1) }()
	<-bw.entered // the first Write is in flight, and blocked

	for id := uint32(2); id <= 4; id++ {
		if err := w.WriteToken(id); err != nil { // returns without waiting
			t.Fatal(err)
		}
	}
	bw.release <- struct{}{} // first Write returns; its caller drains the rest
	<-bw.entered
	bw.release <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := [][]byte{
		AppendToken(AppendMagic(nil), 1),
		AppendToken(AppendToken(AppendToken(nil, 2), 3), 4),
	}
	if d := cmp.Diff(want, bw.writes); d != "" {
		t.Fatalf("writes (-want +got):\n%s", d)
	}
}

// TestWriterConcurrent: concurrent callers of a batching Writer never
// interleave frames, and lose none.
func TestWriterConcurrent(t *testing.T) {
	for _, opts := range [][]WriterOption{{WithBatching()}, {WithBatching(), WithPadding(7)}} {
		var out bytes.Buffer
		var mu sync.Mutex
		w := NewWriter(writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return out.Write(p)
		}), opts...)
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
		for f, err := range NewReader(&out, WithRawFrames()).All() {
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
		w := NewWriter(&out, WithPadding(block))
		if err := w.WriteText(0, []byte("x")); !errors.Is(err, ErrTooLarge) {
			t.Errorf("WithPadding(%d): %v, want ErrTooLarge", block, err)
		}
		if err := w.Flush(); !errors.Is(err, ErrTooLarge) || out.Len() != 0 {
			t.Errorf("WithPadding(%d): Flush %v, wrote %d bytes", block, err, out.Len())
		}
	}
	// The largest block pads to its size with one PAD frame.
	var out bytes.Buffer
	w := NewWriter(&out, WithPadding(MaxPadBlock))
	if err := w.WriteText(0, []byte("x")); err != nil || out.Len() != len(Magic)+MaxPadBlock {
		t.Fatalf("WithPadding(%d): %d bytes, %v", MaxPadBlock, out.Len(), err)
	}
	if _, err := readAll(NewReader(bytes.NewReader(out.Bytes()), WithRawFrames())); err != nil {
		t.Fatal(err)
	}
}

// TestWriterNameAndKindLimits: values a field cannot carry are the kinds
// SPEC.md §6 names, written nowhere.
func TestWriterNameAndKindLimits(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
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
	if fs, err := readAll(NewReader(bytes.NewReader(out.Bytes()), WithRawFrames())); err != nil || len(fs) != 3 {
		t.Fatalf("%d frames, %v", len(fs), err)
	}
}
