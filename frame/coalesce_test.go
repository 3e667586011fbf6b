package frame

import (
	"bytes"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeClock is time that moves only when a test says so; its timers fire
// in order as it passes them.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at   time.Time
	f    func()
	done bool
}

func (t *fakeTimer) Stop() bool {
	was := !t.done
	t.done = true
	return was
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) stopper {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

// advance moves the clock to to, firing each timer due on the way at its
// own time.
func (c *fakeClock) advance(to time.Time) {
	for {
		c.mu.Lock()
		sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
		var due *fakeTimer
		for len(c.timers) > 0 && due == nil {
			t := c.timers[0]
			c.timers = c.timers[1:]
			if !t.done && !t.at.After(to) {
				due = t
			} else if !t.done {
				c.timers = append([]*fakeTimer{t}, c.timers...)
				break
			}
		}
		if due == nil {
			c.now = to
			c.mu.Unlock()
			return
		}
		due.done = true
		c.now = due.at
		c.mu.Unlock()
		due.f()
	}
}

// timedWriter notes the time of every write.
type timedWriter struct {
	clock  *fakeClock
	buf    bytes.Buffer
	writes []time.Time
	ends   []int
}

func (w *timedWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, w.clock.Now())
	w.buf.Write(p)
	w.ends = append(w.ends, w.buf.Len())
	return len(p), nil
}

// stream writes n TEXT frames at the given rate on a fake clock through a
// Writer coalescing for d, then DONE, and returns the underlying writer and
// when each frame was written.
func stream(t *testing.T, n int, every, d time.Duration) (*timedWriter, []time.Time) {
	t.Helper()
	c := &fakeClock{now: time.Unix(0, 0)}
	tw := &timedWriter{clock: c}
	w := NewWriter(tw, WriterOptions{Coalesce: d})
	w.clock = c
	var sent []time.Time
	for i := range n {
		c.advance(time.Unix(0, 0).Add(time.Duration(i) * every))
		if err := w.WriteText(0, []byte(" token")); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, c.Now())
	}
	c.advance(c.Now().Add(every))
	w.WriteDone(StopEndTurn, "")
	sent = append(sent, c.Now())
	return tw, sent
}

// TestCoalescing: frames reach the underlying writer in order and whole,
// none later than d after it was written, writes at least d apart but for
// the one that ends the response, and with nothing left over.
func TestCoalescing(t *testing.T) {
	const d = 10 * time.Millisecond
	var want []byte
	want = AppendMagic(want)
	for range 300 {
		want = AppendText(want, 0, []byte(" token"))
	}
	want = AppendDone(want, StopEndTurn, "")
	for _, every := range []time.Duration{50 * time.Millisecond, d, 3 * time.Millisecond, time.Millisecond, 0} {
		tw, sent := stream(t, 300, every, d)
		if diff := cmp.Diff(want, tw.buf.Bytes()); diff != "" {
			t.Fatalf("every %v: the stream differs (-want +got):\n%s", every, diff)
		}
		// Frame i ends at byte frameEnd(i); the write that carried it is the
		// first whose end passes that.
		frameEnd := func(i int) int { return len(Magic) + (i+1)*SizeText(6) }
		w := 0
		for i := range 300 {
			for tw.ends[w] < frameEnd(i) {
				w++
			}
			if late := tw.writes[w].Sub(sent[i]); late > d || late < 0 {
				t.Fatalf("every %v: frame %d waited %v", every, i, late)
			}
		}
		for i := 1; i < len(tw.writes)-1; i++ {
			if gap := tw.writes[i].Sub(tw.writes[i-1]); gap < d {
				t.Fatalf("every %v: writes %d and %d %v apart", every, i-1, i, gap)
			}
		}
		if last := tw.writes[len(tw.writes)-1]; last != sent[len(sent)-1] {
			t.Fatalf("every %v: DONE waited %v", every, last.Sub(sent[len(sent)-1]))
		}
	}
}

// TestCoalescingWrites reports the writes a Writer makes for 1,000 tokens
// at 20, 100 and 1,000 tokens a second, one frame per token, against one
// write per token, and holds them to the bound the policy gives:
// 1,000 tokens over 1000/rate seconds, at most one write per d.
func TestCoalescingWrites(t *testing.T) {
	for _, d := range []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond} {
		for _, rate := range []int{20, 100, 1000} {
			every := time.Second / time.Duration(rate)
			tw, _ := stream(t, 1000, every, d)
			n := len(tw.writes)
			span := 1000 * every
			bound := min(1000, int(span/d)+1) + 1 // and the DONE
			if n > bound || every >= d && n != 1001 {
				t.Errorf("d %v, %d tokens/s: %d writes, want at most %d", d, rate, n, bound)
			}
			t.Logf("coalescing %v, %4d tokens/s: %4d writes per 1,000 tokens (%s), against 1,001", d, rate, n, fmt.Sprintf("%.1f tokens each", 1000/float64(n)))
		}
	}
}

// TestCoalescingRealTime: with the real clock, a generator at about 1,000
// tokens a second gets about one write per interval, and Flush hands over
// what waits.
func TestCoalescingRealTime(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	writes := 0
	w := NewWriter(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		writes++
		return buf.Write(p)
	}), WriterOptions{Coalesce: 20 * time.Millisecond})
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	for range 200 {
		<-tick.C
		w.WriteText(0, []byte("x"))
	}
	elapsed := time.Since(start)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := len(Magic) + 200*SizeText(1); buf.Len() != want {
		t.Fatalf("%d bytes written, want %d", buf.Len(), want)
	}
	if bound := int(elapsed/(20*time.Millisecond)) + 2; writes > bound {
		t.Fatalf("%d writes in %v, want at most %d", writes, elapsed, bound)
	}
}

// clockedWrite is one Write a coalescing Writer made, and when.
type clockedWrite struct {
	At    time.Duration
	Bytes []byte
}

// clockedLog records each Write with the fake clock's time when it
// begins. If entered is not nil, each Write sends on it and then blocks
// until release is received from.
type clockedLog struct {
	clock            *fakeClock
	entered, release chan struct{}
	mu               sync.Mutex
	writes           []clockedWrite
}

func (l *clockedLog) Write(p []byte) (int, error) {
	at := l.clock.Now().Sub(time.Unix(0, 0))
	if l.entered != nil {
		l.entered <- struct{}{}
		<-l.release
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, clockedWrite{at, append([]byte{}, p...)})
	return len(p), nil
}

// TestCoalescingSteps: when a coalescing Writer hands frames over, call by
// call: a frame d or more after the last write goes at once, sooner ones
// wait for one timer to the end of the interval, and DONE, ERROR, Flush and
// more than maxBatch waiting bytes go at once.
func TestCoalescingSteps(t *testing.T) {
	const d = 10 * time.Millisecond
	text := func(w *Writer) error { return w.WriteText(0, []byte("t")) }
	tf := AppendText(nil, 0, []byte("t"))
	fill := maxBatch // text whose frames are maxBatch bytes
	for SizeText(fill) > maxBatch {
		fill--
	}
	atBatch := func(w *Writer) error { return w.WriteText(0, make([]byte, fill)) }
	pastBatch := func(w *Writer) error { return w.WriteText(0, make([]byte, fill+1)) }
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	type step struct {
		at   time.Duration
		call func(*Writer) error
	}
	for _, c := range []struct {
		name  string
		d     time.Duration
		steps []step
		want  []clockedWrite
	}{
		{"on time", d, []step{{0, text}, {d, text}, {3 * d, text}},
			[]clockedWrite{{0, cat([]byte(Magic), tf)}, {d, tf}, {3 * d, tf}}},
		{"early waits", d, []step{{0, text}, {1, text}},
			[]clockedWrite{{0, cat([]byte(Magic), tf)}, {d, tf}}},
		{"one timer", d, []step{{0, text}, {1, text}, {2, text}, {d - 1, text}},
			[]clockedWrite{{0, cat([]byte(Magic), tf)}, {d, cat(tf, tf, tf)}}},
		{"late start", d, []step{{5 * d, text}, {5*d + 1, text}},
			[]clockedWrite{{5 * d, cat([]byte(Magic), tf)}, {6 * d, tf}}},
		{"error ends", d, []step{{0, text}, {1, text}, {2, func(w *Writer) error { return w.WriteError(CodeAPI, "x") }}},
			[]clockedWrite{{0, cat([]byte(Magic), tf)}, {2, cat(tf, AppendError(nil, CodeAPI, "x"))}}},
		{"done ends", d, []step{{0, text}, {1, text}, {2, func(w *Writer) error { return w.WriteDone(StopEndTurn, "") }}},
			[]clockedWrite{{0, cat([]byte(Magic), tf)}, {2, cat(tf, AppendDone(nil, StopEndTurn, ""))}}},
		{"flush", d, []step{{0, text}, {1, text}, {2, (*Writer).Flush}, {d + 1, text}, {d + 2, text}},
			[]clockedWrite{{0, cat([]byte(Magic), tf)}, {2, tf}, {d + 2, tf}, {2*d + 2, tf}}},
		{"at maxBatch", d, []step{{0, text}, {1, atBatch}},
			[]clockedWrite{{0, cat([]byte(Magic), tf)}, {d, AppendText(nil, 0, make([]byte, fill))}}},
		{"past maxBatch", d, []step{{0, text}, {1, pastBatch}},
			[]clockedWrite{{0, cat([]byte(Magic), tf)}, {1, AppendText(nil, 0, make([]byte, fill+1))}}},
		{"d of zero", 0, []step{{0, text}, {1, text}},
			[]clockedWrite{{0, cat([]byte(Magic), tf)}, {1, tf}}},
		{"negative d", -d, []step{{0, text}, {1, text}},
			[]clockedWrite{{0, cat([]byte(Magic), tf)}, {1, tf}}},
	} {
		c0 := time.Unix(0, 0)
		clock := &fakeClock{now: c0}
		log := &clockedLog{clock: clock}
		w := NewWriter(log, WriterOptions{Coalesce: c.d})
		w.clock = clock
		for _, s := range c.steps {
			clock.advance(c0.Add(s.at))
			if err := s.call(w); err != nil {
				t.Fatalf("%s: at %v: %v", c.name, s.at, err)
			}
		}
		clock.advance(c0.Add(time.Hour))
		if d := cmp.Diff(c.want, log.writes, cmp.Comparer(bytes.Equal)); d != "" {
			t.Errorf("%s: writes (-want +got):\n%s", c.name, d)
		}
	}
}

// TestCoalescingDuringWrite: frames that come while a coalescing Writer's
// Write is blocked wait, when it returns, for the end of the interval that
// Write began; unless one ends the response or Flush asks for them.
func TestCoalescingDuringWrite(t *testing.T) {
	const d = 10 * time.Millisecond
	tf := AppendText(nil, 0, []byte("t"))
	for _, c := range []struct {
		name string
		// during is called at 1 ms, while the first Write is blocked; what
		// it returns is waited for after that Write returns.
		during func(w *Writer) <-chan error
		want   []clockedWrite
	}{
		{"text", func(w *Writer) <-chan error {
			w.WriteText(0, []byte("t"))
			return nil
		}, []clockedWrite{{0, append([]byte(Magic), tf...)}, {d, tf}}},
		{"done", func(w *Writer) <-chan error {
			w.WriteText(0, []byte("t"))
			w.WriteDone(StopEndTurn, "")
			return nil
		}, []clockedWrite{{0, append([]byte(Magic), tf...)}, {time.Millisecond, append(tf, AppendDone(nil, StopEndTurn, "")...)}}},
		{"flush", func(w *Writer) <-chan error {
			w.WriteText(0, []byte("t"))
			flushed := make(chan error, 1)
			go func() { flushed <- w.Flush() }()
			return flushed
		}, []clockedWrite{{0, append([]byte(Magic), tf...)}, {time.Millisecond, tf}}},
	} {
		c0 := time.Unix(0, 0)
		clock := &fakeClock{now: c0}
		log := &clockedLog{clock: clock, entered: make(chan struct{}), release: make(chan struct{})}
		w := NewWriter(log, WriterOptions{Coalesce: d})
		w.clock = clock
		first := make(chan error)
		go func() { first <- w.WriteText(0, []byte("t")) }()
		<-log.entered // the first Write, blocked
		clock.advance(c0.Add(time.Millisecond))
		after := c.during(w)
		go func() {
			for range log.entered {
				log.release <- struct{}{}
			}
		}()
		log.release <- struct{}{}
		if err := <-first; err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if after != nil {
			if err := <-after; err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		clock.advance(c0.Add(time.Hour))
		if err := w.Flush(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		close(log.entered)
		if d := cmp.Diff(c.want, log.writes); d != "" {
			t.Errorf("%s: writes (-want +got):\n%s", c.name, d)
		}
	}
}
