package main

import (
	"io"
	"sync"
	"time"
)

// maxLogBatch bounds the lines a logWriter holds: past it they go out at
// once, so a burst never holds more than this in memory.
const maxLogBatch = 64 << 10

// logWriter is where anth proxy's log lines go (standard error): in fewer
// writes under load. A line that comes after a quiet interval goes out at
// once, and starts an interval; lines that come within it wait for its
// end and go out together, in one write, and start another. So a lone
// request's line is never late, and a busy proxy writes at most one batch
// an interval (or maxLogBatch bytes) rather than a line a request. With
// standard error a file, a write(2) a request was 2-8 % of the CPU of a
// short stream (one client, paired runs; issue 26); to a pipe, as log
// collectors read it, the difference was within the noise, so it is
// --log-flush's choice, not the default: a line that waits is no longer
// written before its response ends, and lines that wait are lost if the
// process is killed (SIGKILL) before the interval ends. Close writes
// them out.
type logWriter struct {
	mu      sync.Mutex
	w       io.Writer
	every   time.Duration
	timer   *time.Timer
	buf     []byte
	waiting bool // an interval is running: lines wait for its end
	closed  bool // Close was called: lines go out at once
}

// newLogWriter returns a logWriter that batches the lines written to w
// within every of each other; every <= 0 writes each at once.
func newLogWriter(w io.Writer, every time.Duration) *logWriter {
	l := &logWriter{w: w, every: every}
	if every > 0 {
		l.timer = time.AfterFunc(every, l.tick)
		l.timer.Stop()
	}
	return l
}

// Write writes p, a whole line (slog's handlers write a record in one
// Write), or holds it until the running interval ends. An error writing
// held lines is returned by the Write that flushes them, or lost if the
// interval's end flushes them: slog's Logger ignores its handler's errors
// either way.
func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer == nil || l.closed {
		return l.w.Write(p)
	}
	if !l.waiting {
		l.waiting = true
		l.timer.Reset(l.every)
		return l.w.Write(p)
	}
	l.buf = append(l.buf, p...)
	if len(l.buf) >= maxLogBatch {
		if err := l.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// tick ends an interval: the lines held go out, and another interval
// starts if there were any.
func (l *logWriter) tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) == 0 || l.closed {
		l.waiting = false
		return
	}
	_ = l.flush()
	l.timer.Reset(l.every)
}

// flush writes the lines held.
func (l *logWriter) flush() error {
	if len(l.buf) == 0 {
		return nil
	}
	_, err := l.w.Write(l.buf)
	l.buf = l.buf[:0]
	return err
}

// Close writes the lines held; lines written after it go out at once.
func (l *logWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	return l.flush()
}
