package anthhttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/resume"
)

// The headers of resumable responses (SPEC.md §13).
const (
	// ResumeIDHeader is the response header in which a Gateway that keeps
	// tails (GatewayOptions.Resume) names a streamed response, and the
	// request header with which a client resumes it.
	ResumeIDHeader = "Anth-Resume-Id"
	// ResumeOffsetHeader is the request header of an ANTH client's resume:
	// the byte offset, counted from the first frame after the magic, of
	// the first frame it has not read whole.
	ResumeOffsetHeader = "Anth-Resume-Offset"
	// LastEventIDHeader is the request header of an event-stream client's
	// resume: the last id: field it saw, as EventSource sends it.
	LastEventIDHeader = "Last-Event-Id"
)

// The defaults of GatewayOptions' resume bounds.
const (
	// DefaultResumeTTL is how long a tail is kept after its last frame:
	// long enough for a client on a train to come out of a tunnel, short
	// enough that a gateway's memory turns over.
	DefaultResumeTTL = 5 * time.Minute
	// DefaultResumeMaxBytes bounds one response's tail: 4 MiB of ANTH is
	// about a million tokens of text, more than any one response the APIs
	// give; a longer one streams on, unresumable (410).
	DefaultResumeMaxBytes = 4 << 20
	// DefaultResumeGrace is how long the upstream keeps generating for a
	// client that left before anyone resumes its response.
	DefaultResumeGrace = 30 * time.Second
)

// errAbandoned is the cause with which a Gateway cancels the upstream of
// a resumable response whose client left and that nobody resumed within
// GatewayOptions.ResumeGrace.
var errAbandoned = errors.New("no client resumed the response within the grace period")

// credentialsOf is what a kept response is bound to (SPEC.md §13.1): the
// API's path, the form kept (frames for ANTH clients, whether coded or
// not; events for an event stream's) and the request's credentials, as
// the client sent them, so a resume at another API's path, in the other
// form or with another key finds nothing.
func credentialsOf(r *http.Request, api bridge.API, w wire) resume.Owner {
	form := "anth"
	if w == wireStream {
		form = "events"
	}
	return resume.OwnerOf(api.Path() + "\x00" + form + "\x00" + r.Header.Get("X-Api-Key") + "\x00" + r.Header.Get("Authorization"))
}

// tail is a resumable response's side of the relay: it appends the frames,
// or an event-stream client's events, that the relay gives (before they
// are written to the client, so no client holds bytes the store lacks,
// §13.1) and counts who is attached, for the grace period.
type tail struct {
	kept   resume.Tail // where Appends go: the store's handle on the tail (resume.Start)
	id     resume.ID
	header [1]string       // the ID as the response's ResumeIDHeader value, held here rather than in a slice of its own
	ctx    context.Context // for Append: not cancelled when the client leaves or the upstream is abandoned
	ex     *exchange       // whose upstream the grace period's end cancels
	// The relay's goroutine alone touches these.
	off    int64 // bytes appended
	ended  bool  // the end was appended
	failed error // an Append failed: nothing more is kept

	mu       sync.Mutex
	attached int // the original client while it stays, and resumes being served
	grace    time.Duration
	timer    *time.Timer
}

// abandon cancels the upstream: nobody came back within the grace period.
func (t *tail) abandon() { t.ex.cancel(errAbandoned) }

// keep appends p, whole frames without the magic or whole events; end
// says p ends the response. A failed Append ends the keeping (the store has
// dropped the tail or cannot be reached): the stream goes on, a resume
// gets the store's error, and the response's Record says why (ResumeErr),
// so an operator whose store evicts tails still streaming sees it. It runs
// on the goroutine that serves the response, which writes the Record
// after its last call.
func (t *tail) keep(p []byte, end bool) {
	if t.failed != nil || t.ended || len(p) == 0 && !end {
		return
	}
	if err := t.kept.Append(t.ctx, p, end); err != nil {
		t.failed = err
		t.ex.rec.ResumeErr = err
		return
	}
	t.off += int64(len(p))
	t.ended = end
}

// attach counts one more client reading the response.
func (t *tail) attach() {
	t.mu.Lock()
	t.attached++
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	t.mu.Unlock()
}

// leave counts one client fewer; with none left, the grace period starts,
// at whose end, if nobody attached meanwhile, the upstream is cancelled.
func (t *tail) leave() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.attached--; t.attached > 0 {
		return
	}
	if t.grace <= 0 {
		t.abandon()
		return
	}
	t.timer = time.AfterFunc(t.grace, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.attached == 0 {
			t.abandon()
		}
	})
}

// tails are the resumable responses a gateway is relaying, by ID, so a
// resume it serves counts as attached (§13.4). A map under a mutex, not a
// sync.Map: an entry comes and goes with every stream, and a sync.Map
// allocates a node for each.
type tails struct {
	mu sync.Mutex
	m  map[resume.ID]*tail
}

func (ts *tails) add(t *tail) {
	ts.mu.Lock()
	if ts.m == nil {
		ts.m = make(map[resume.ID]*tail)
	}
	ts.m[t.id] = t
	ts.mu.Unlock()
}

func (ts *tails) remove(id resume.ID) {
	ts.mu.Lock()
	delete(ts.m, id)
	ts.mu.Unlock()
}

func (ts *tails) get(id resume.ID) *tail {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.m[id]
}

// startTail makes the response of ex resumable: a tail in the store, its
// ID in the response's headers. A store that fails leaves the response as
// it would be without one (§13: streaming goes on when the store cannot).
func (g *Gateway) startTail(ex *exchange, h http.Header) *tail {
	ttl, max := g.opts.ResumeTTL, g.opts.ResumeMaxBytes
	if ttl <= 0 {
		ttl = DefaultResumeTTL
	}
	if max <= 0 {
		max = DefaultResumeMaxBytes
	}
	// Every stream pays for its tail (SPEC.md §13.6): the context, the
	// header's value and the cancelling are the exchange's and the tail's
	// own rather than allocations of their own.
	t := &tail{id: resume.NewID(), ctx: ex.detached, ex: ex, attached: 1, grace: g.opts.ResumeGrace}
	if t.grace == 0 {
		t.grace = DefaultResumeGrace
	}
	kept, err := resume.Start(t.ctx, g.opts.Resume, t.id, resume.Info{Owner: ex.owner, API: ex.api.Path(), TTL: ttl, MaxBytes: max})
	if err != nil {
		ex.rec.ResumeErr = err
		return nil
	}
	t.kept = kept
	t.header[0] = string(t.id)
	h[ResumeIDHeader] = t.header[:]
	ex.rec.ResumeID = string(t.id)
	g.tails.add(t)
	return t
}

// parseDecimal reads a cursor's number in its one form: decimal digits,
// no sign, no leading zero, at most 18 of them (so it fits an int64), so
// that a cursor is written one way only.
func parseDecimal(s string) (int64, bool) {
	if s == "" || len(s) > 18 || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
	}
	return n, true
}

// parseCursor reads a resume request's cursor, the offset in the kept
// bytes where it starts: Anth-Resume-Offset for an ANTH client,
// Last-Event-ID for an event stream's (§13.2, §13.3). An absent one is 0:
// the client read nothing.
func parseCursor(r *http.Request, w wire) (int64, bool) {
	name := ResumeOffsetHeader
	if w == wireStream {
		name = LastEventIDHeader
	}
	s := r.Header.Get(name)
	if s == "" {
		return 0, true
	}
	return parseDecimal(s)
}

// resumeStatus is the status and error code of a store's refusal (§13.2).
func resumeStatus(err error) (int, frame.ErrorCode, string) {
	switch {
	case errors.Is(err, resume.ErrNotFound):
		return http.StatusNotFound, frame.CodeNotFound, "no such response to resume (unknown, expired, or not this caller's)"
	case errors.Is(err, resume.ErrGone):
		return http.StatusGone, frame.CodeNotFound, "the response's tail is no longer kept"
	case errors.Is(err, resume.ErrRange):
		return http.StatusRequestedRangeNotSatisfiable, frame.CodeInvalidRequest, "the resume cursor is past what was sent, or not between two frames or events"
	}
	return http.StatusServiceUnavailable, frame.CodeOverloaded, "resuming is unavailable now"
}

// serveResume answers a resume request (§13.2): the frames after its
// cursor, then the live rest, as a fresh stream of the wire it
// negotiates.
func (g *Gateway) serveResume(w http.ResponseWriter, r *http.Request, ex *exchange) {
	ex.wire = negotiate(r, g.opts.Proxy.Padding != 0)
	ex.rec.Kind = KindSSE
	if ex.wire != wireStream {
		ex.rec.Kind = KindANTH
	}
	id := resume.ID(r.Header.Get(ResumeIDHeader))
	ex.rec.ResumeID = string(id)
	from, ok := parseCursor(r, ex.wire)
	ex.rec.ResumeFrom = from
	if !ok {
		g.apiError(w, ex, http.StatusBadRequest, frame.CodeInvalidRequest, "the resume cursor is not a decimal offset")
		return
	}
	if !id.Valid() {
		g.resumeError(w, ex, resume.ErrNotFound)
		return
	}
	ctx := r.Context()
	owner := credentialsOf(r, ex.api, ex.wire)
	f, err := g.opts.Resume.Follow(ctx, id, owner, from)
	if err != nil {
		g.resumeError(w, ex, err)
		return
	}
	defer f.Close()
	if t := g.tails.get(id); t != nil {
		t.attach()
		defer t.leave()
	}
	rs := resumed{g: g, w: w, r: r, ex: ex, from: from}
	err = rs.copy(ctx, f)
	if err != nil && ctx.Err() == nil {
		ex.rec.Err = err
		if !rs.started {
			g.resumeError(w, ex, err)
			return
		}
		// Mid-stream: the body is cut, so the client resumes again and
		// is told why (a dropped tail is 410 then).
		ex.failed = true
	}
	if rs.started {
		rs.finish()
	}
}

func (g *Gateway) resumeError(w http.ResponseWriter, ex *exchange, err error) {
	ex.rec.Err = err
	status, code, msg := resumeStatus(err)
	g.apiError(w, ex, status, code, msg)
}

// resumed writes one resume's body.
type resumed struct {
	g       *Gateway
	w       http.ResponseWriter
	r       *http.Request
	ex      *exchange
	from    int64 // the cursor
	started bool
	pos     int64  // offset of the next frame or event to walk
	carry   []byte // a frame or event split across chunks
	buf     []byte // what the chunk gives the client: ANTH frames, or events
	out     flusher
	z       *coder    // anth-deflate, when coded
	raw     io.Writer // into z, each deflated EVENT written raw (§11.2)
}

// copy walks the follower's chunks frame by frame, or event by event:
// those before the cursor checked and dropped, the rest written, one write
// a chunk.
func (rs *resumed) copy(ctx context.Context, f resume.Follower) error {
	walk := rs.frames
	if rs.ex.wire == wireStream {
		walk = rs.events
	}
	first := true
	for {
		start, p, err := f.Next(ctx)
		if err == io.EOF {
			if !rs.started {
				// An ended tail whose end is the cursor (the store gave
				// no chunk: it checked from against its end): the stream
				// is its magic alone, or no events at all.
				if !first && (rs.pos != rs.from || len(rs.carry) > 0) {
					return resume.ErrRange
				}
				if rs.ex.wire == wireStream {
					rs.noContent()
					return nil
				}
				rs.start()
				return rs.flush()
			}
			return nil
		}
		if err != nil {
			return err
		}
		if first {
			rs.pos, first = start, false
			if start > rs.from {
				return resume.ErrRange
			}
		}
		if len(rs.carry) > 0 {
			rs.carry = append(rs.carry, p...)
			p = rs.carry
		}
		n, err := walk(p)
		if err != nil {
			return err
		}
		rs.carry = append(rs.carry[:0], p[n:]...)
		if rs.started {
			if err := rs.flush(); err != nil {
				return err
			}
		}
	}
}

// frames handles the whole frames at the start of p, returning the bytes
// they take.
func (rs *resumed) frames(p []byte) (int, error) {
	n := 0
	for {
		_, size, ok := frame.ParseHeader(p[n:])
		if !ok || len(p)-n < size {
			break
		}
		if err := rs.give(p[n:n+size], nil); err != nil {
			return n, err
		}
		n += size
	}
	return n, nil
}

// events handles the whole events at the start of p, returning the bytes
// they take: the kept events' canonical form ends each in "\n\n" (§13.1).
func (rs *resumed) events(p []byte) (int, error) {
	n := 0
	for {
		i := bytes.Index(p[n:], eventEnd)
		if i < 0 {
			return n, nil
		}
		size := i + len(eventEnd)
		if err := rs.give(p[n:n+size], appendEventIDs); err != nil {
			return n, err
		}
		n += size
	}
}

// give walks one frame, or one event, b at rs.pos: dropped before the
// cursor, which must fall between two (§13.2), and added to what the
// client gets from it on, through add when it is an event.
func (rs *resumed) give(b []byte, add func(dst, b []byte, off int64) []byte) error {
	end := rs.pos + int64(len(b))
	switch {
	case rs.pos >= rs.from:
		if !rs.started {
			if rs.pos != rs.from {
				return resume.ErrRange // not on a frame's or an event's boundary
			}
			rs.start()
		}
		if add != nil {
			rs.buf = add(rs.buf, b, rs.pos)
		} else {
			rs.buf = append(rs.buf, b...)
		}
		// A chunk may be the whole tail (a resume from 0): it is written
		// in writes of at most maxGather and one frame or event, so a
		// resume holds that much, not the tail.
		if len(rs.buf) >= maxGather {
			if err := rs.flush(); err != nil {
				return err
			}
		}
	case end > rs.from:
		return resume.ErrRange
	}
	rs.pos = end
	return nil
}

// start writes the headers, and the magic to come.
func (rs *resumed) start() {
	rs.started = true
	ex := rs.ex
	h := rs.w.Header()
	setStreamHeaders(h, rs.r.Method, ex.wire)
	h.Set(RequestIDHeader, ex.rec.ID)
	h.Set(ResumeIDHeader, ex.rec.ResumeID)
	if rs.g.cors != nil {
		rs.g.cors.respond(h, ex.origin)
	}
	rs.w.WriteHeader(http.StatusOK)
	rs.out = newFlusher(rs.w, rs.r, nil)
	if ex.wire == wireCoded || ex.wire == wireCodedType {
		rs.z = getCoder(ex.api.Dictionary())
		rs.raw = ex.api.RawEvents(rs.z.w)
		ex.rec.Coding = deflate.Encoding
	}
	if ex.wire != wireStream {
		rs.buf = frame.AppendMagic(rs.buf[:0])
	}
}

// noContent answers an event stream's resume at an ended tail's end: 204,
// which tells an event-stream client there is nothing to reconnect for
// (HTML's EventSource stops on it), where an empty 200 would have it
// reconnect again (§13.2).
func (rs *resumed) noContent() {
	h := rs.w.Header()
	h.Set(RequestIDHeader, rs.ex.rec.ID)
	if rs.g.cors != nil {
		rs.g.cors.respond(h, rs.ex.origin)
	}
	rs.w.WriteHeader(http.StatusNoContent)
}

// flush writes what the chunk gave.
func (rs *resumed) flush() error {
	b := rs.buf
	rs.buf = rs.buf[:0]
	if len(b) == 0 {
		return nil
	}
	if rs.z != nil {
		rs.z.out.Reset()
		if _, err := rs.raw.Write(b); err != nil {
			return err
		}
		rs.z.w.Flush()
		b = rs.z.out.Bytes()
	}
	_, err := rs.out.Write(b)
	return err
}

func (rs *resumed) finish() {
	if rs.z != nil {
		putCoder(rs.z)
		rs.z = nil
	}
}
