package anthhttp

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/errkind"
	"github.com/layer0/anth/sse"
)

// relay reads an upstream's event stream and gives, event by event, what
// its client gets: ANTH frames (coded in anth-deflate when asked), or the
// API's events checked one by one. A stream that breaks, ends early or
// cannot be read ends with an ERROR frame or the API's error event saying
// so, and never has anything added after its end: the fault is kept for
// the caller (Proxy returns it, Gateway logs it), and the relay ends as a
// whole stream does. It is the one path both Proxy and Gateway serve
// streams through.
type relay struct {
	ctx     context.Context
	api     bridge.API
	d       bridge.Decoder // ANTH modes
	sc      *sse.Scanner   // the event-stream mode
	z       *coder         // anth-deflate, when coded
	padding int
	started bool            // bytes have been given
	ended   bool            // the event stream's response has ended (event-stream mode)
	eof     bridge.EndAtEOF // the API's, if its streams may end with their bytes
	last    []byte          // then the last event's data, and its name in lastName
	lastN   []byte
	done    bool
	whole   bool // the stream ended as its grammar says, with nothing added
	fault   *Error
	held    error // an error met while gathering ready events, for the next call
	buf     []byte
	bufp    *[]byte // where buf goes back to gatherBufs
	pending []byte  // Read's output not yet read

	// What Gateway's Record counts, as the events pass: no call per event.
	relayed        int64        // frames (ANTH) or events (event stream) given
	input, output  int64        // the last USAGE frame's counts, or the events' (bridge.Usage)
	upstreamFailed bool         // the upstream sent an error of its own (ERROR frame, error event)
	usage          bridge.Usage // the API's, if it reads events' counts (event-stream mode)

	// idle, when set, ends the stream with ErrUpstreamIdle (through the
	// cancel of ctx it calls) when a wait for the upstream's next event
	// lasts its d; only next's waits count.
	idle *idleWatch

	// tail, for a resumable response, is given every frame, or every
	// event, before the client is (SPEC.md §13.1); an event-stream client
	// gets each event with its id: (§13.3), added as the event is made,
	// while canon gathers the events as they are kept.
	tail   *tail
	canon  []byte
	canonp *[]byte // where canon goes back to gatherBufs

	// vocab, until it is written, is a VOCAB frame to put before the
	// stream's first token frame (SPEC.md §3.13): the
	// vocabulary the gateway knows the upstream's token IDs index
	// (vLLM's token_ids, §7b.2), which the bridge itself cannot name.
	vocab []byte
	named []byte // an event's frames with vocab put in
}

// maxGather bounds what the relay gathers into one write from events the
// upstream has already sent (io.Copy's buffer size).
const maxGather = 32 << 10

// readier is a Decoder that says whether its next event is already read
// (bridge.Decoder's optional Ready method).
type readier interface{ Ready() bool }

// newRelay returns the relay of upstream for a client of wire w. With
// t, a resumable response's tail, what the client reads is kept in it:
// the frames, or the events.
func newRelay(ctx context.Context, upstream io.Reader, api bridge.API, w wire, padding int, t *tail) *relay {
	r := &relay{ctx: ctx, api: api, padding: padding, tail: t}
	r.bufp = getGather()
	r.buf = *r.bufp
	switch w {
	case wireCoded, wireCodedType:
		// The stream's window deflates EVENT JSON better than each event
		// alone does: the decoder writes it raw (SPEC.md §11.2).
		r.d = api.NewDecoder(upstream, true)
		r.z = getCoder(api.Dictionary())
		r.padding = 0
	case wireANTH:
		r.d = api.NewDecoder(upstream, false)
	default:
		r.sc = getScanner(upstream)
		r.usage, _ = api.(bridge.Usage)
		r.eof, _ = api.(bridge.EndAtEOF)
	}
	return r
}

// next returns the bytes of the next event, valid until the next call, or
// io.EOF once the stream is over, whole or not (see fault).
func (r *relay) next() ([]byte, error) {
	if r.done {
		// The last bytes given, a failed stream's, are spent: what
		// they were in goes back now.
		r.finish()
		return nil, io.EOF
	}
	var b []byte
	var err error
	if r.idle != nil {
		// Only the wait for the upstream counts: a client slow to take
		// the last event does not make the upstream idle.
		r.idle.wait()
	}
	if r.sc != nil {
		b, err = r.event()
	} else {
		b, err = r.frames()
	}
	if r.idle != nil {
		r.idle.done()
	}
	if r.sc != nil && r.tail != nil && len(b) > 0 {
		b = r.keptEvents(b, err != nil)
	}
	if err == io.EOF {
		r.whole = r.fault == nil
		if r.tail != nil {
			// Not at the DONE or ERROR: ignorable frames may follow them
			// (a Chat Completions [DONE] after an error, §7b.3).
			r.tail.keep(nil, true)
		}
		r.finish()
		return nil, io.EOF
	}
	if err != nil {
		// The end of a stream that failed: its last bytes, then io.EOF.
		if r.tail != nil {
			r.tail.keep(nil, true)
		}
		if len(b) == 0 {
			r.finish()
			return nil, io.EOF
		}
		// b is in r.buf, or in the coder's record: they go back at the
		// next call, or at finish, not before the caller has written b.
		r.end()
	}
	r.started = true
	return b, nil
}

// count counts the frames of b, the ANTH bytes of one event as the
// Decoder gave them (well formed: it made them; the magic first if first),
// and keeps the counts of a USAGE frame among them. It reads headers only,
// and allocates nothing.
func (r *relay) count(b []byte, first bool) {
	if first {
		b = b[min(len(b), len(frame.Magic)):]
	}
	for {
		_, end, ok := frame.ParseHeader(b)
		if !ok || end > len(b) {
			return
		}
		switch frame.Type(b[0]) {
		case frame.TypeUsage:
			if f, _, err := frame.Parse(b[:end]); err == nil {
				if u, err := f.Usage(); err == nil {
					// As bridge.Usage counts an event stream: a later
					// count replaces an earlier, but an input count of 0
					// keeps it, so both wires count a stream alike.
					if u.InputTokens > 0 {
						r.input = int64(u.InputTokens)
					}
					r.output = int64(u.OutputTokens)
				}
			}
		case frame.TypeError:
			r.upstreamFailed = true
		}
		r.relayed++
		b = b[end:]
	}
}

// frames gives the ANTH of the next event, and of those after it that the
// upstream has already sent (up to maxGather bytes), as one write.
func (r *relay) frames() ([]byte, error) {
	b, err := r.d.Next()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		fault, code := streamFault(r.ctx, err, r.d.Offset())
		r.fault = fault
		if r.d.Ended() {
			return nil, err
		}
		b = r.buf[:0]
		if !r.started {
			b = frame.AppendMagic(b)
		}
		b = frame.AppendError(b, code, clientMessage(fault))
		r.buf = b
		return r.emit(b, true), err
	}
	first := !r.started
	if r.vocab != nil {
		b = r.nameVocab(b, first)
	}
	r.count(b, first)
	rd, _ := r.d.(readier)
	if r.padding == 0 && (rd == nil || !rd.Ready()) {
		return r.emit(b, false), nil
	}
	// b is the Decoder's until its next call: gather into r.buf. A
	// Decoder's errors are sticky, so one met here comes again next time.
	r.buf = r.padded(r.buf[:0], b, first)
	for rd != nil && len(r.buf) < maxGather && rd.Ready() {
		next, err := r.d.Next()
		if err != nil {
			break
		}
		if r.vocab != nil {
			next = r.nameVocab(next, false)
		}
		r.count(next, false)
		r.buf = r.padded(r.buf, next, false)
	}
	return r.emit(r.buf, false), nil
}

// emit gives b, the frames of one write (the magic first if first), as
// the client reads them, having kept them first when the response is
// resumable; end says they hold the response's DONE or ERROR.
func (r *relay) emit(b []byte, end bool) []byte {
	if r.tail == nil {
		return r.deflated(b)
	}
	frames := b
	if !r.started {
		frames = b[len(frame.Magic):]
	}
	r.tail.keep(frames, end)
	return r.deflated(b)
}

// keptEvents keeps the events of one write, gathered in their canonical
// form in r.canon, and gives b, the same events as the client reads them,
// each with its cursor (§13.3); end says they end the response (a failed
// stream's error event). Once the keeping has failed the response is no
// longer resumable, and its events go as they are.
func (r *relay) keptEvents(b []byte, end bool) []byte {
	if r.tail.failed != nil {
		return b // gathered without ids
	}
	r.tail.keep(r.canon, end)
	if r.tail.failed != nil {
		return r.canon
	}
	return b
}

// nameVocab returns b, the frames of one event as the Decoder gave them
// (the magic first if first), with r.vocab put before its first token
// frame if it has one; then r.vocab is spent. It walks headers only: the
// Decoder made the frames.
func (r *relay) nameVocab(b []byte, first bool) []byte {
	i := 0
	if first {
		i = min(len(b), len(frame.Magic))
	}
	for {
		t, size, ok := frame.ParseHeader(b[i:])
		if !ok {
			break
		}
		if t.IsToken() {
			r.named = append(append(append(r.named[:0], b[:i]...), r.vocab...), b[i:]...)
			r.vocab = nil
			return r.named
		}
		i += size
	}
	return b
}

// padded appends the frames of one event, padded to the relay's block
// size if it pads (the magic, first, does not count).
func (r *relay) padded(dst, b []byte, first bool) []byte {
	start := len(dst)
	dst = append(dst, b...)
	if r.padding > 0 {
		if first {
			start += len(frame.Magic)
		}
		dst = frame.AppendPadTo(dst, start, r.padding)
	}
	return dst
}

// deflated gives b as a record of the anth-deflate stream, when coded.
func (r *relay) deflated(b []byte) []byte {
	if r.z == nil {
		return b
	}
	r.z.out.Reset()
	r.z.w.Write(b)
	r.z.w.Flush()
	return r.z.out.Bytes()
}

// event gives the next event of the API's stream, checked by its bridge,
// and those after it that the upstream has already sent (up to maxGather
// bytes), as one write.
func (r *relay) event() ([]byte, error) {
	err := r.held
	r.held = nil
	if err == nil {
		r.buf, r.canon = r.buf[:0], r.canon[:0]
		err = r.oneEvent()
	}
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		fault, code := streamFault(r.ctx, err, r.sc.Offset())
		r.fault = fault
		if r.ended {
			return nil, err
		}
		if r.ids() {
			r.canon = r.api.AppendErrorEvent(r.canon[:0], code, clientMessage(fault))
			r.buf = appendEventIDs(r.buf[:0], r.canon, r.tail.off)
			return r.buf, err
		}
		r.buf = r.api.AppendErrorEvent(r.buf[:0], code, clientMessage(fault))
		return r.buf, err
	}
	for len(r.buf) < maxGather && r.sc.Ready() {
		if err := r.oneEvent(); err != nil {
			r.held = err
			break
		}
	}
	return r.buf, nil
}

// oneEvent appends the next event to r.buf, counting it; io.EOF at the
// end of a whole response's stream.
func (r *relay) oneEvent() error {
	name, data, err := r.sc.Next()
	if err == io.EOF && !r.ended && (r.eof == nil || !r.eof.EndsAtEOF(r.lastN, r.last)) {
		return &Error{Offset: r.sc.Offset(), Err: ErrTruncated, Detail: "stream ends before its response does"}
	}
	if err != nil {
		return err
	}
	// The same events fail the same way on both paths.
	ends, err := r.api.CheckEvent(name, data)
	if err != nil {
		return &Error{Offset: r.sc.EventOffset(), Err: ErrMalformed, Detail: err.Error()}
	}
	r.ended = r.ended || ends
	if r.eof != nil && !r.ended {
		// Asked once, at the end of the bytes: a copy costs less than
		// reading every event for it.
		r.lastN, r.last = append(r.lastN[:0], name...), append(r.last[:0], data...)
	}
	r.relayed++
	if r.usage != nil {
		if in, out, ok := r.usage.EventUsage(name, data); ok {
			if in > 0 {
				r.input = int64(in)
			}
			r.output = int64(out)
		}
	}
	// The name the Messages API (and OpenAI's Responses API) give the
	// event that ends a stream with the upstream's own error.
	r.upstreamFailed = r.upstreamFailed || ends && string(name) == "error"
	start := len(r.buf)
	r.buf = sse.AppendEvent(r.buf, name, data)
	if r.ids() {
		r.buf = r.addID(r.buf, start)
	}
	return nil
}

// ids reports whether the events being gathered get ids: those of a
// resumable response, until keeping them fails.
func (r *relay) ids() bool { return r.tail != nil && r.tail.failed == nil }

// addID adds to canon the event at b[start:], just appended in its
// canonical form, and turns it into the client's, its id: last (§13.3):
// the offset after it in the kept events, which are those kept before
// this write and those in canon. One pass over each event, where adding
// the ids after the write was gathered took a search for each event's end
// and a copy of the whole write.
func (r *relay) addID(b []byte, start int) []byte {
	if r.canonp == nil {
		// It mirrors buf, so it comes from buf's pool: a fresh one
		// grown to a pooled buf's size would cost a stream that much.
		r.canonp = getGather()
		r.canon = append(*r.canonp, r.canon...)
	}
	if cap(r.canon) < cap(b) {
		// As big as the buffer it mirrors, less the ids: grown with it,
		// not by doubling from nothing.
		r.canon = slices.Grow(r.canon, cap(b)-len(r.canon))
	}
	r.canon = append(r.canon, b[start:]...)
	b = append(b[:len(b)-1], "id:"...) // its fields' last "\n" stays
	b = strconv.AppendInt(b, r.tail.off+int64(len(r.canon)), 10)
	return append(b, eventEnd...)
}

// finish gives back what the relay borrowed. The bytes it last gave must
// be spent: it runs at the end of a stream, when the caller is done with
// the relay, or when the relay is asked for more after a failed stream's
// last bytes.
func (r *relay) finish() {
	r.end()
	if r.z != nil {
		putCoder(r.z)
		r.z = nil
	}
	if r.bufp != nil {
		putGather(r.bufp, r.buf)
		r.bufp, r.buf, r.pending = nil, nil, nil
	}
	if r.canonp != nil {
		putGather(r.canonp, r.canon)
		r.canonp, r.canon = nil, nil
	}
}

// end ends the stream and gives back what the bytes it gives last are
// not in: the Decoder, the Scanner (a failed stream's last bytes are in
// r.buf or the coder's record, which finish gives back).
func (r *relay) end() {
	r.done = true
	if r.idle != nil {
		r.idle.stop()
	}
	if r.d != nil {
		release(r.d)
		r.d = nil
	}
	if r.sc != nil {
		r.sc.Reset(nil)
		scanners.Put(r.sc)
		r.sc = nil
	}
}

// Read gives the stream as an io.Reader, for httputil.ReverseProxy to
// copy: each Read returns what one event gives, with those already read
// after it (or what is left of them), so the proxy's flush after each
// write sends each event at once. It ends in
// io.EOF whether the stream was whole or not: a failed one's last event
// says so to the client, and its fault is kept.
func (r *relay) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		b, err := r.next()
		if err != nil {
			return 0, err
		}
		r.pending = b
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// release gives a Decoder back to its bridge, if the bridge keeps them
// for reuse.
func release(d bridge.Decoder) {
	if r, ok := d.(interface{ Release() }); ok {
		r.Release()
	}
}

// streamFault is what ends a stream whose upstream failed with err at off,
// and the code its client is told: ErrShutdown when the server's drain
// closed the upstream (ctx's cause), ErrUpstreamIdle when the idle timer
// did, else the upstream's fault.
func streamFault(ctx context.Context, err error, off int64) (*Error, frame.ErrorCode) {
	if ctx.Err() != nil {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, ErrShutdown):
			return &Error{Offset: -1, Err: ErrShutdown, Detail: "the stream was ended unfinished"}, frame.CodeOverloaded
		case errors.Is(cause, errAbandoned):
			return &Error{Offset: off, Err: errAbandoned, Detail: "the upstream was cancelled"}, frame.CodeAPI
		case errors.Is(cause, ErrUpstreamIdle):
			detail := ""
			if e := (*Error)(nil); errors.As(cause, &e) {
				detail = e.Detail
			}
			return &Error{Offset: off, Err: ErrUpstreamIdle, Detail: detail}, frame.CodeTimeout
		}
	}
	return upstreamFault(err, off), frame.CodeAPI
}

// upstreamFault gives an upstream failure the *Error Proxy returns: the
// module's kind when it is one, else the read error itself, which the
// client is not told (clientMessage): it may name internal addresses.
func upstreamFault(err error, off int64) *Error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Offset: e.Offset, Err: e.Err, Detail: "upstream: " + e.Detail}
	}
	if err == io.ErrUnexpectedEOF {
		// Not a stream that ended early but its HTTP body (a chunk, a
		// Content-Length) cut short, as net/http's readers say it: the
		// connection went.
		return &Error{Offset: off, Err: err, Detail: resetMessage}
	}
	for _, kind := range []error{ErrTruncated, ErrMalformed, ErrTooLarge} {
		if errors.Is(err, kind) {
			return &Error{Offset: off, Err: kind, Detail: "upstream: " + err.Error()}
		}
	}
	return &Error{Offset: off, Err: err, Detail: resetMessage}
}

// resetMessage is what a client is told of an upstream connection that
// failed during its stream.
const resetMessage = "upstream reset the stream"

// clientMessage is what the client of a stream that failed with fault is
// told: all of it for the module's kinds, whose details are the stream's
// own (offsets, the bridge's complaint), but of any other error (a
// connection's, naming addresses: "read tcp 10.0.0.5:60308->…") only that
// the upstream reset the stream. The log gets the rest.
func clientMessage(fault *Error) string {
	if fault.Detail == resetMessage {
		return errkind.Message("anthhttp", fault.Offset, errReset, "")
	}
	for _, kind := range []error{ErrShutdown, ErrUpstreamIdle, errAbandoned, ErrTruncated, ErrMalformed, ErrTooLarge} {
		if errors.Is(fault.Err, kind) {
			return fault.Error()
		}
	}
	return errkind.Message("anthhttp", fault.Offset, errReset, "")
}

// errReset is the kind clientMessage names in place of a connection's own
// error.
var errReset = errors.New(resetMessage)

// faultOf is the Fault a stream's *Error stands for.
func faultOf(e *Error) Fault {
	switch {
	case e.Detail == resetMessage:
		return FaultReset
	case errors.Is(e, ErrUpstreamIdle):
		return FaultIdleTimeout
	case errors.Is(e, ErrTruncated):
		return FaultTruncated
	case errors.Is(e, ErrMalformed), errors.Is(e, ErrTooLarge):
		return FaultMalformed
	case errors.Is(e, ErrShutdown):
		return ""
	}
	return FaultReset
}
