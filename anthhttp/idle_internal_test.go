package anthhttp

import (
	"testing"
	"time"
)

// TestIdleWatchFiresAtOnce: a watch whose bound passes before
// newIdleWatch has returned (its timer's function may run first) ends
// its stream once, and its stop after that is harmless.
func TestIdleWatchFiresAtOnce(t *testing.T) {
	for range 100 {
		expired := make(chan struct{}, 2)
		w := newIdleWatch(time.Nanosecond, func() { expired <- struct{}{} })
		select {
		case <-expired:
		case <-time.After(10 * time.Second):
			t.Fatal("a watch past its bound did not end its stream")
		}
		w.stop()
		select {
		case <-expired:
			t.Fatal("the stream was ended twice")
		case <-time.After(time.Millisecond):
		}
	}
}
