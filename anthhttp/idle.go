package anthhttp

import (
	"sync/atomic"
	"time"
)

// idleWatch ends a stream whose wait for its upstream's next event (or
// the first) lasts d, GatewayOptions.UpstreamIdleTimeout. Only the wait
// counts: a client slow to take the last event does not make the
// upstream idle. It holds one timer for the stream, which when it fires
// finds whether the wait under way has lasted d, and else sets itself for
// what is left of it (or for d, between waits): resetting and stopping a
// timer around every event's wait cost 75 ns an event, a fifth of the
// relay's CPU at anth proxy's 5-minute default (BenchmarkGatewayStream),
// where marking the wait's start and end costs a clock read and two
// stores.
type idleWatch struct {
	d       time.Duration
	origin  time.Time    // since counts from it, on the monotonic clock
	since   atomic.Int64 // when the wait under way began, from origin; -1 between waits
	stopped atomic.Bool
	t       *time.Timer // set before check reads it: see newIdleWatch
	expire  func()      // ends the stream
}

// newIdleWatch returns an idleWatch whose first wait begins now.
func newIdleWatch(d time.Duration, expire func()) *idleWatch {
	w := &idleWatch{d: d, origin: time.Now(), expire: expire}
	// Made set, not made and then Reset: resetting a timer the runtime
	// holds wakes its network poller (a write to an eventfd and a thread's
	// wakeup) a stream, where adding one set for minutes, later than the
	// timers already held, wakes nothing. check may run before w.t is set,
	// but then it finds the first wait (since 0, from origin) past d and
	// ends the stream without reading w.t; it reads w.t only once the
	// stream's goroutine has stored since (wait, done), after this
	// returns, and since's atomics order the two.
	w.t = time.AfterFunc(d, w.check)
	return w
}

// wait marks the start of a wait for the upstream.
func (w *idleWatch) wait() { w.since.Store(int64(time.Since(w.origin))) }

// done marks the end of a wait.
func (w *idleWatch) done() { w.since.Store(-1) }

// stop ends the watch; the stream is over.
func (w *idleWatch) stop() {
	w.stopped.Store(true)
	w.t.Stop() // set by newIdleWatch, on the stream's goroutine
}

// check is the timer's: it ends the stream if the wait under way has
// lasted d, else sets the timer again for when it would have.
func (w *idleWatch) check() {
	if w.stopped.Load() {
		return
	}
	left := w.d
	if s := w.since.Load(); s >= 0 {
		if left -= time.Since(w.origin) - time.Duration(s); left <= 0 {
			w.expire()
			return
		}
	}
	w.t.Reset(left)
}
