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
	w := NewWriter(tw, WithCoalescing(d))
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
	}), WithCoalescing(20*time.Millisecond))
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
