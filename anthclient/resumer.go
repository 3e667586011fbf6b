package anthclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/frame"
)

// ResumeOptions configure how a client resumes a response its server
// offers to resume (anthhttp.ResumeIDHeader, SPEC.md §13). The zero value
// resumes with DefaultResumeTries tries and DefaultResumeBackoff.
type ResumeOptions struct {
	// Tries bounds the resume requests made in a row without a frame
	// read between them; zero is DefaultResumeTries, negative never
	// resumes (a cut response reads as anthhttp.ErrTruncated, as
	// without a server that offers resuming).
	Tries int
	// Backoff is the wait before the first resume request of a cut,
	// doubled before each next one; zero is DefaultResumeBackoff.
	Backoff time.Duration
	// Transport makes NewFrameReaderOptions' resume requests; nil is
	// http.DefaultTransport. Transport's resume requests go through its
	// own next.
	Transport http.RoundTripper
}

// The defaults of ResumeOptions.
const (
	// DefaultResumeTries is ResumeOptions.Tries' default: a cut is
	// resumed by up to 3 requests in a row that give no frame.
	DefaultResumeTries = 3
	// DefaultResumeBackoff is ResumeOptions.Backoff's default: the waits
	// before the 3 tries are 100, 200 and 400 ms, so a client gives up
	// after 0.7 s, well within a gateway's grace period (30 s).
	DefaultResumeBackoff = 100 * time.Millisecond
)

// resumer reads a resumable response's ANTH stream, the magic and then
// whole frames only, across as many HTTP responses as it takes: when a
// body fails or ends before the response's DONE or ERROR, it asks the
// server for the frames after the last whole one it gave (§13.2) and goes
// on with them, so its reader sees one unbroken stream. It holds at most
// one frame's bytes beyond what it gave (65,538) and its read buffer.
type resumer struct {
	req  *http.Request // the original request: URL, headers, context
	id   string
	rt   func(*http.Request) (*http.Response, error)
	api  bridge.API
	opts ResumeOptions

	body  io.ReadCloser // the current response's
	src   io.Reader     // … decoded
	magic int           // magic bytes still to read from a resumed body

	buf   []byte // bytes read: [given:ready) whole frames not yet given, [ready:) a frame's start
	given int
	ready int
	off   int64 // the frames' offset of buf[ready] (after the magic): the cursor
	first bool  // the first body's magic is still to give
	ended bool  // the response's DONE or ERROR has been read
	err   error
	tries int // resume requests since a frame was last read
}

func newResumer(req *http.Request, resp *http.Response, src io.Reader, api bridge.API, rt func(*http.Request) (*http.Response, error), opts ResumeOptions) *resumer {
	if opts.Tries == 0 {
		opts.Tries = DefaultResumeTries
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultResumeBackoff
	}
	return &resumer{req: req, id: resp.Header.Get(anthhttp.ResumeIDHeader), rt: rt, api: api, opts: opts, body: resp.Body, src: src, first: true, buf: make([]byte, 0, 16<<10)}
}

func (r *resumer) Read(p []byte) (int, error) {
	for r.given == r.ready {
		if r.err != nil {
			return 0, r.err
		}
		r.fill()
	}
	n := copy(p, r.buf[r.given:r.ready])
	r.given += n
	return n, nil
}

// fill reads from the current body, resuming when it fails, until there
// are bytes to give or an error to report.
func (r *resumer) fill() {
	// Keep the partial frame, drop what was given.
	if r.given > 0 {
		r.buf = r.buf[:copy(r.buf, r.buf[r.given:])]
		r.ready -= r.given
		r.given = 0
	}
	if len(r.buf) == cap(r.buf) {
		r.buf = append(r.buf, 0)[:len(r.buf)]
	}
	n, err := r.src.Read(r.buf[len(r.buf):cap(r.buf)])
	r.buf = r.buf[:len(r.buf)+n]
	r.scan()
	if err == nil || r.err != nil {
		return
	}
	if err == io.EOF && (r.ended || r.first) {
		// A whole response, or a body that is not one: the frame layer
		// judges what is left.
		r.ready = len(r.buf)
		r.err = io.EOF
		return
	}
	cut := fmt.Errorf("%w: %w", anthhttp.ErrTruncated, err)
	if err == io.EOF {
		cut = anthhttp.ErrTruncated // the body ended before the response did
	}
	if rerr := r.resume(); rerr != nil {
		r.ready = len(r.buf) // the frame layer reports the cut as always, at its offset
		if r.ended {
			// The response had ended (§3.11): what ignorable frames may
			// have followed are lost, the response is not.
			r.err = io.EOF
			return
		}
		r.err = &anthhttp.Error{Offset: r.off, Err: fmt.Errorf("%w; resuming: %w", cut, rerr), Detail: "the response was cut and could not be resumed"}
	}
}

// scan moves ready past the whole frames in buf (after the first body's
// magic, which it gives as it is; a resumed body's it checks and drops).
func (r *resumer) scan() {
	if r.first {
		if len(r.buf) < len(frame.Magic) {
			return
		}
		r.first = false
		r.ready = len(frame.Magic)
	}
	if r.magic > 0 {
		if len(r.buf)-r.ready < r.magic {
			return
		}
		if string(r.buf[r.ready:r.ready+r.magic]) != frame.Magic {
			r.err = &anthhttp.Error{Offset: r.off, Err: anthhttp.ErrMalformed, Detail: "the resumed stream does not start with the magic"}
			return
		}
		r.buf = append(r.buf[:r.ready], r.buf[r.ready+r.magic:]...)
		r.magic = 0
	}
	for {
		b := r.buf[r.ready:]
		t, size, ok := frame.ParseHeader(b)
		if !ok || len(b) < size {
			return
		}
		// §4: a DONE or ERROR value ends with its first frame that is not
		// full.
		if (t == frame.TypeDone || t == frame.TypeError) && size-frame.HeaderSize < frame.MaxPayload {
			r.ended = true
		}
		r.ready += size
		r.off += int64(size)
		r.tries = 0
	}
}

// resume asks for the frames after r.off, up to Tries times with backoff,
// and makes the answer the body read next.
func (r *resumer) resume() error {
	r.body.Close()
	if r.opts.Tries < 0 {
		return errors.New("resuming is turned off")
	}
	ctx := r.req.Context()
	wait := r.opts.Backoff
	var last error
	// Tries counts the requests since a frame was last read: a server
	// that answers every resume with a body that gives nothing new is
	// not asked forever.
	for ; r.tries < r.opts.Tries; r.tries++ {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait *= 2
		err := r.get(ctx)
		if err == nil {
			r.tries++
			return nil
		}
		last = err
		var se *StatusError
		if errors.As(err, &se) && se.StatusCode < 500 {
			return err // 404, 410, 416: asking again changes nothing
		}
	}
	if last == nil {
		last = errors.New("resumed " + strconv.Itoa(r.opts.Tries) + " times without a frame")
	}
	return last
}

// get makes one resume request.
func (r *resumer) get(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.req.URL.String(), nil)
	if err != nil {
		return err
	}
	req.Header = r.req.Header.Clone()
	for _, h := range []string{"Content-Type", "Content-Length", "Content-Encoding"} {
		req.Header.Del(h)
	}
	req.Header.Set(anthhttp.ResumeIDHeader, r.id)
	req.Header.Set(anthhttp.ResumeOffsetHeader, strconv.FormatInt(r.off, 10))
	resp, err := r.rt(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return statusError(resp, r.api)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != anthhttp.ContentType {
		resp.Body.Close()
		return &anthhttp.Error{Offset: -1, Err: anthhttp.ErrMediaType, Detail: "a resumed response of Content-Type " + strconv.Quote(mt)}
	}
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		gunzip(resp)
	}
	src, err := decodedBody(resp, r.api)
	if err != nil {
		resp.Body.Close()
		return err
	}
	// The resumed body starts with the frame at r.off: the partial one
	// read before the cut goes.
	r.buf = r.buf[:r.ready]
	r.body, r.src, r.magic = resp.Body, src, len(frame.Magic)
	if r.first {
		r.magic = 0 // cut inside the first magic: this one is it
	}
	return nil
}

func (r *resumer) Close() error { return r.body.Close() }
