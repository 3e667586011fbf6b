package frame

import (
	"io"
	"strconv"
	"sync"
	"time"
)

// maxBatch bounds the bytes a batching Writer holds while a Write is in
// flight; past it, callers wait for the Write instead of buffering more.
const maxBatch = 1 << 20

// Writer writes an ANTH stream to an io.Writer. Each Write… call encodes its
// frames and hands them to the underlying writer in one Write, at once: the
// Writer never holds a frame back to wait for more. Magic goes out with the
// first frame (or at Flush, for a stream with none).
//
// Errors from the underlying writer are sticky. Like bufio.Writer, a Writer
// is not safe for concurrent use, and pays for no lock; a Writer made
// with WriterOptions.Batching or Coalesce is, since gathering frames from several
// goroutines is what batching is for.
type Writer struct {
	mu       sync.Mutex
	idle     sync.Cond // signalled when a batching Write returns
	w        io.Writer
	pending  []byte // encoded, not yet handed to w
	spare    []byte // the other half of the double buffer used when batching
	off      int64  // stream offset of the next frame
	magic    bool   // whether Magic is in pending or written
	writing  bool   // a batching Write is in flight
	err      error
	batch    bool
	padTo    int
	delay    time.Duration // WriterOptions.Coalesce; 0 when frames go at once
	clock    clock
	last     time.Time // when frames were last handed over
	timer    stopper   // armed to hand over what waits; nil when none is
	timerGen uint64    // counts stopped timers, so that a late one does nothing
	urgent   bool      // pending ends the response: it does not wait
	tokens   TokenEncoder
}

// clock is time as a coalescing Writer sees it; tests replace it.
type clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) stopper
}

type stopper interface{ Stop() bool }

type realClock struct{}

func (realClock) Now() time.Time                              { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }

// WriterOptions configure a Writer. The zero value writes each frame at
// once, unpadded, from one goroutine.
type WriterOptions struct {
	// Batching makes a Writer safe for concurrent use and makes it gather
	// frames that arrive while its previous Write is still blocked (a slow
	// client, a full socket buffer) and hand them over together when that
	// Write returns. It adds no latency: a frame that finds the Writer idle
	// is written at once, by the calling goroutine. Calls that find a Write
	// in flight return without waiting, and a later call or Flush reports
	// any error the Write met.
	Batching bool
	// Coalesce, if positive, makes a Writer hand frames to the underlying
	// writer at most once every Coalesce, so that a fast generator's frames
	// leave together, one write (and, behind an http.ResponseWriter, one
	// flush and one packet) per interval rather than one per token. A frame
	// that finds the last write at least Coalesce ago goes at once, so a
	// slow stream waits for nothing; a frame that comes sooner waits, at
	// most until Coalesce after the last write. The frames that end a
	// response (DONE, ERROR) and Flush go at once. It implies Batching, and
	// the waiting frames are written by a timer's goroutine, so call Flush
	// before the underlying writer goes away.
	Coalesce time.Duration
	// Padding makes each Write… call follow its frames with a PAD frame so
	// that the bytes it writes are a multiple of Padding (see AppendPadTo).
	// Fixed frame sizes hide how long each token is from an observer of
	// encrypted traffic (SPEC.md §3.6); a larger block hides more and costs
	// more. 0 disables it. A block outside 0 to MaxPadBlock makes every
	// call fail, writing nothing.
	Padding int
}

// NewWriter returns a Writer that writes an ANTH stream to w.
func NewWriter(w io.Writer, opts WriterOptions) *Writer {
	wr := &Writer{w: w, clock: realClock{}, batch: opts.Batching || opts.Coalesce > 0, delay: max(opts.Coalesce, 0)}
	wr.idle.L = &wr.mu
	if err := CheckPadBlock(opts.Padding); err != nil {
		wr.err = err
	} else {
		wr.padTo = opts.Padding
	}
	return wr
}

// begin locks the Writer for one call and returns where its frames start in
// pending, or the sticky error (unlocked).
func (w *Writer) begin() (int, error) {
	w.lock()
	if w.err != nil {
		err := w.err
		w.unlock()
		return 0, err
	}
	if !w.magic {
		w.pending = AppendMagic(w.pending)
		w.magic = true
		w.off = int64(len(Magic))
	}
	return len(w.pending), nil
}

// abort unlocks after a call that wrote nothing and returns err.
func (w *Writer) abort(err error) error {
	w.unlock()
	return err
}

// lock and unlock guard a batching Writer; the others are single-goroutine.
func (w *Writer) lock() {
	if w.batch {
		w.mu.Lock()
	}
}

func (w *Writer) unlock() {
	if w.batch {
		w.mu.Unlock()
	}
}

// commit checks the first frame appended since start by its type's rules,
// then sends the frames. A frame that breaks its rules is not written: the
// Writer never writes what Parse would reject.
func (w *Writer) commit(start int) error {
	if t := Type(w.pending[start]); types[t].check != nil {
		n := int(w.pending[start+1])<<8 | int(w.pending[start+2])
		if e := checkPayload(t, w.pending[start+HeaderSize:start+HeaderSize+n], w.off); e != nil {
			w.pending = w.pending[:start]
			return w.abort(e)
		}
	}
	return w.send(start)
}

// send pads the frames appended since start, hands them to the underlying
// writer and unlocks. WriteToken and WriteText call it without commit's
// check: TOKEN, TOKEN32 and TEXT have no payload rule (SPEC.md §3.1, §3.5)
// their Append functions could break (TestWriterUncheckedTypes pins
// this), and the check's table lookup and call were a quarter of writing
// one token in a profile (issue 26).
func (w *Writer) send(start int) error {
	w.pending = AppendPadTo(w.pending, start, w.padTo)
	w.off += int64(len(w.pending) - start)
	if w.batch {
		t := Type(w.pending[start])
		return w.commitBatch(t == TypeDone || t == TypeError)
	}
	_, err := w.w.Write(w.pending)
	w.pending = w.pending[:0]
	if err != nil {
		w.err = err
	}
	return err
}

// commitBatch hands pending over, now or later. end says the frames end the
// response: they are not held back.
func (w *Writer) commitBatch(end bool) error {
	w.urgent = w.urgent || end
	for w.writing {
		if len(w.pending) <= maxBatch {
			// The Write in flight takes these frames when it returns.
			w.mu.Unlock()
			return nil
		}
		w.idle.Wait()
	}
	if w.wait() {
		w.mu.Unlock()
		return nil
	}
	return w.drain(false)
}

// wait reports whether pending is to wait for the coalescing interval to
// end, and arms the timer that will hand it over then.
func (w *Writer) wait() bool {
	if w.delay <= 0 || w.urgent || len(w.pending) > maxBatch {
		return false
	}
	wait := w.delay - w.clock.Now().Sub(w.last)
	if wait <= 0 {
		return false
	}
	if w.timer == nil {
		gen := w.timerGen
		w.timer = w.clock.AfterFunc(wait, func() { w.fire(gen) })
	}
	return true
}

// fire hands over the frames that waited for a coalescing interval to end,
// unless its timer was stopped while it waited for the lock.
func (w *Writer) fire(gen uint64) {
	w.mu.Lock()
	if gen != w.timerGen {
		w.mu.Unlock()
		return
	}
	w.timer = nil
	if w.writing || len(w.pending) == 0 || w.err != nil || w.wait() {
		w.mu.Unlock()
		return
	}
	w.drain(false)
}

// drain writes pending, and whatever other calls add meanwhile, then
// unlocks. Coalescing, what comes during a write waits for the next
// interval, unless it ends the response or all is to go.
func (w *Writer) drain(all bool) error {
	w.writing = true
	for len(w.pending) > 0 && w.err == nil {
		if w.timer != nil {
			w.timer.Stop()
			w.timer = nil
			w.timerGen++
		}
		w.last = w.clock.Now()
		w.urgent = false
		buf := w.pending
		w.pending = w.spare[:0]
		w.mu.Unlock()
		_, err := w.w.Write(buf)
		w.mu.Lock()
		w.spare = buf[:0]
		if err != nil {
			w.err = err
		}
		if !all && w.wait() {
			break
		}
	}
	w.writing = false
	w.idle.Broadcast()
	err := w.err
	w.mu.Unlock()
	return err
}

// Flush hands every frame the Writer holds to the underlying writer
// (waiting for a batching Write in flight) and then, if the underlying writer
// has a Flush method (bufio.Writer, http.ResponseWriter's http.Flusher),
// calls it. For a stream with no frames yet it writes Magic.
func (w *Writer) Flush() error {
	w.lock()
	for w.writing {
		w.idle.Wait()
	}
	if !w.magic && w.err == nil {
		w.pending = AppendMagic(w.pending)
		w.magic = true
		w.off = int64(len(Magic))
	}
	if w.err == nil && len(w.pending) > 0 {
		if w.batch {
			if err := w.drain(true); err != nil {
				return err
			}
			w.lock()
		} else {
			_, w.err = w.w.Write(w.pending)
			w.pending = w.pending[:0]
		}
	}
	defer w.unlock()
	if w.err != nil {
		return w.err
	}
	switch f := w.w.(type) {
	case interface{ Flush() error }:
		w.err = f.Flush()
	case interface{ Flush() }:
		f.Flush()
	}
	return w.err
}

// WriteToken writes ids as token frames (SPEC.md §3.1): one ID alone in a
// short token frame (see AppendShortToken), several in a PACKED_TOKEN
// frame, coded against the IDs of the stream's PACKED_TOKEN frames before
// it (see TokenEncoder; SPEC.md §3.1.1): at 16 IDs a call, 1.4–1.9 bytes
// an ID of a 100k+ vocabulary, where TOKEN and TOKEN32 frames take 2.2–2.7.
func (w *Writer) WriteToken(ids ...uint32) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return w.abort(nil)
	}
	if len(ids) == 1 {
		// The per-token path: one ID is one short frame, written without
		// AppendTokenRuns' scans and call (issue 26: with them, and the
		// check in commit, writing one token at a time took 1.48x the time
		// it took at 0d2be57).
		w.pending = AppendShortToken(w.pending, ids[0])
	} else {
		w.pending = w.tokens.AppendPackedToken(w.pending, ids...)
	}
	return w.send(start)
}

// WriteText writes text to content block block as TEXT frames (see
// AppendText).
func (w *Writer) WriteText(block uint16, text []byte) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	w.pending = AppendText(w.pending, block, text)
	return w.send(start)
}

// WriteUsage writes a USAGE frame. It fails with ErrMalformed, writing
// nothing, if u.CacheHitRatio exceeds PPM.
func (w *Writer) WriteUsage(u Usage) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	w.pending = AppendUsage(w.pending, u)
	return w.commit(start)
}

// WriteCacheUsage writes a CACHE_USAGE frame.
func (w *Writer) WriteCacheUsage(u CacheUsage) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	w.pending = AppendCacheUsage(w.pending, u)
	return w.commit(start)
}

// WriteError writes an ERROR frame (see AppendError). It writes a message
// of any length; a Reader rejects one whose joined value passes its
// MaxValueSize limit (DefaultMaxValueSize, 1 MiB, unless set).
func (w *Writer) WriteError(code ErrorCode, message string) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	w.pending = AppendError(w.pending, code, message)
	return w.commit(start)
}

// WriteDone writes a DONE frame (see AppendDone). A stop sequence with
// StopUnspecified is ErrMalformed, writing nothing: SPEC.md §3.4 gives each
// DONE one encoding. It does not Flush. As with WriteError, a Reader
// rejects a stop sequence whose joined value passes its MaxValueSize
// limit.
func (w *Writer) WriteDone(reason StopReason, stopSequence string) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	if reason == StopUnspecified && stopSequence != "" {
		return w.abort(frameErr(w.off, TypeDone, ErrMalformed, "a stop sequence with no stop reason"))
	}
	w.pending = AppendDone(w.pending, reason, stopSequence)
	return w.commit(start)
}

// WritePad writes PAD frames carrying n bytes of payload (see AppendPad).
func (w *Writer) WritePad(n int) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	if n <= 0 {
		return w.abort(nil)
	}
	w.pending = AppendPad(w.pending, n)
	return w.commit(start)
}

// WriteFrame writes f, after checking it as Parse would: a proxy uses it to
// forward the frames a Reader returns, including ignorable ones it does not
// know. A DONE or ERROR is a whole value, as a Reader returns it, and goes
// as its frames (see Frame.AppendValue).
func (w *Writer) WriteFrame(f Frame) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	first := f
	if f.Type == TypeDone || f.Type == TypeError {
		// A whole value: checked as the first of the frames it becomes.
		first.Payload = f.Payload[:min(len(f.Payload), MaxPayload)]
	}
	if e := checkFrame(first, w.off); e != nil {
		return w.abort(e)
	}
	w.pending = f.AppendValue(w.pending)
	return w.commit(start)
}

// WriteDelta writes data to block's delta of the given kind (see
// AppendDelta). A kind SPEC.md does not define is ErrMalformed and a citation
// longer than one frame ErrTooLarge; both write nothing.
func (w *Writer) WriteDelta(block uint16, kind DeltaKind, data []byte) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	if kind == DeltaCitation && len(data) > maxDeltaPerFrame {
		return w.abort(frameErr(w.off, TypeDelta, ErrTooLarge, "citation of "+strconv.Itoa(len(data))+" bytes, want at most 65532"))
	}
	w.pending = AppendDelta(w.pending, block, kind, data)
	return w.commit(start)
}

// WriteBlock writes a BLOCK frame. An op SPEC.md does not define is
// ErrMalformed, writing nothing.
func (w *Writer) WriteBlock(block uint16, op BlockOp) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	w.pending = AppendBlock(w.pending, block, op)
	return w.commit(start)
}

// WriteEvent writes an event as EVENT frames (see AppendEvent). A name over
// MaxEventName bytes is ErrTooLarge; an unknown encoding, or binary32 data
// that is not 4 bytes of a finite float (SPEC.md §3.10), ErrMalformed; both
// write nothing.
func (w *Writer) WriteEvent(encoding uint8, name, data []byte) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	if len(name) > MaxEventName {
		return w.abort(frameErr(w.off, TypeEvent, ErrTooLarge, "event name of "+strconv.Itoa(len(name))+" bytes, want at most 255"))
	}
	if encoding&eventMore != 0 {
		return w.abort(frameErr(w.off, TypeEvent, ErrMalformed, "event encoding "+strconv.Itoa(int(encoding))+", want 0, 1, 2 or 3"))
	}
	w.pending = AppendEvent(w.pending, encoding, name, data)
	return w.commit(start)
}

// WriteVocab writes a VOCAB frame (see AppendVocab). A Vocab that Parse
// would reject — unknown flags or kind, a name over MaxVocabName bytes, a
// special table that is not one or does not fit the frame (send its digest
// then, SPEC.md §3.13) — is an error, writing nothing.
func (w *Writer) WriteVocab(v Vocab) error {
	start, err := w.begin()
	if err != nil {
		return err
	}
	if len(v.Name) > MaxVocabName || SizeVocab(v) > MaxPayload {
		return w.abort(frameErr(w.off, TypeVocab, ErrTooLarge, "VOCAB payload of "+strconv.Itoa(SizeVocab(v))+" bytes or name of "+strconv.Itoa(len(v.Name))+", want at most 65535 and 255"))
	}
	w.pending = AppendVocab(w.pending, v)
	if e := checkFrame(Frame{TypeVocab, w.pending[start+HeaderSize:]}, w.off); e != nil {
		w.pending = w.pending[:start]
		return w.abort(e)
	}
	return w.commit(start)
}
