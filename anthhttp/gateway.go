package anthhttp

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/resume"
	"github.com/layer0/anth/sse"
	"github.com/layer0/anth/vocab"
)

// ReadRequestBody reads a request body of api's that is JSON
// (application/json, or no Content-Type) or ANTH (ContentType) and returns
// it as JSON (api.AppendRequestJSON): one value for a server, whatever the
// client sent. It reads at most maxSize bytes (DefaultMaxRequestSize if
// maxSize <= 0) and fails with ErrTooLarge past them; a body of
// another Content-Type is ErrMediaType; a body that fails to arrive (a
// read deadline, a connection cut) is an *Error wrapping the read's error
// at the offset it reached.
//
// Memory follows the bytes received, never the Content-Length declared,
// which a client may send without the body: for n bytes received it holds
// at most 2n + 1 KiB (rounded up to the allocator's size class) and
// allocates at most twice that in all, as the buffer doubles. A body whose
// Content-Length is under 1 KiB, and is true, takes one allocation. An
// ANTH body then costs what api.AppendRequestJSON does.
func ReadRequestBody(r *http.Request, api bridge.API, maxSize int) ([]byte, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxRequestSize
	}
	mt := mediaType(r.Header.Get("Content-Type"))
	if mt != "" && mt != "application/json" && mt != ContentType {
		return nil, &Error{Offset: -1, Err: ErrMediaType, Detail: "request Content-Type " + strconv.Quote(mt)}
	}
	body, err := readBody(r.Body, r.ContentLength, maxSize)
	if err != nil {
		return nil, err
	}
	if mt == ContentType {
		return api.AppendRequestJSON(nil, body)
	}
	return body, nil
}

// readBody reads body to its end, at most maxSize bytes, into a buffer
// that starts at the declared length cl (and one byte for the read that
// finds the end) but never past 1 KiB, and doubles when full. Never Grow
// to a Content-Length: 40 clients declaring 32 MiB and sending a byte a
// second held 1.3 GB that way. The first buffer of 1 KiB at most, and
// doubling, keep ReadRequestBody's bounds; bytes.Buffer.ReadFrom, used
// before, made two buffers for a body of a few bytes, as it wants 512
// bytes free for every read.
func readBody(body io.Reader, cl int64, maxSize int) ([]byte, error) {
	size := int64(512) // bytes.Buffer's first, for a length not declared
	if cl >= 0 {
		size = min(cl+1, 1<<10)
	}
	buf := make([]byte, 0, min(size, int64(maxSize)+1))
	for {
		if len(buf) == cap(buf) {
			buf = append(make([]byte, 0, 2*cap(buf)), buf...)
		}
		room := buf[len(buf):cap(buf)]
		if rest := maxSize + 1 - len(buf); len(room) > rest {
			room = room[:rest]
		}
		n, err := body.Read(room)
		buf = buf[:len(buf)+n]
		if err != nil && err != io.EOF {
			return nil, &Error{Offset: int64(len(buf)), Err: err, Detail: "reading the request body"}
		}
		if len(buf) > maxSize {
			return nil, &Error{Offset: int64(maxSize), Err: ErrTooLarge, Detail: "request body over " + strconv.Itoa(maxSize) + " bytes"}
		}
		if err == io.EOF {
			return buf, nil
		}
	}
}

// GatewayOptions configure NewGateway.
type GatewayOptions struct {
	// Upstream is the API to forward to, such as
	// https://api.anthropic.com.
	Upstream *url.URL
	// Transport makes the upstream requests; default
	// http.DefaultTransport. Its own timeouts are the connect timeout
	// (its dialer's) and the response-header timeout
	// (http.Transport.ResponseHeaderTimeout): the Gateway tells them
	// apart (FaultConnectTimeout, FaultHeaderTimeout) and answers 504.
	Transport http.RoundTripper
	// MaxRequestSize bounds a request body; 0 means DefaultMaxRequestSize.
	// The API's own options bound what is converted.
	MaxRequestSize int
	// Proxy configures the streams served (padding).
	Proxy ProxyOptions
	// Logger, if set, gets one record per request as it ends, with
	// Record's fields (message "request"; level Warn for a response that
	// ended in error or was cut, else Info). It never gets a header's
	// value but the request IDs'.
	Logger *slog.Logger
	// Observer, if set, is given each request's Record as it ends, for
	// metrics.
	Observer Observer
	// BodyTimeout bounds the time a request's body may take to arrive,
	// from when the gateway starts on the request (the headers are the
	// server's ReadHeaderTimeout): a body still arriving then is cut, and
	// POST to the API's path answered 408. Zero is DefaultBodyTimeout;
	// negative sets no bound. It is a read deadline set through
	// http.ResponseController: under a ResponseWriter that cannot take one,
	// only the server's ReadTimeout applies.
	BodyTimeout time.Duration
	// UpstreamIdleTimeout, if positive, bounds the time between two
	// events of an upstream's stream (and before the first): a stream
	// idle that long is ended, its client told with an ERROR frame or the
	// API's error event of timeout_error, and the upstream request
	// cancelled (through its context: the Transport must honour it, as
	// http.Transport does).
	UpstreamIdleTimeout time.Duration
	// MaxStreams, if positive, bounds the requests to the API's path
	// served at once, streamed or not (each holds an upstream connection
	// for as long as its model writes): one past it is answered 503 with
	// the API's error JSON of overloaded_error before its body is read.
	MaxStreams int
	// ForwardHeaders, if not nil, is the allow-list of request headers
	// that go upstream: every other is dropped. Nil forwards every
	// end-to-end header (see Gateway).
	ForwardHeaders []string
	// CORSOrigins, if not empty, are the origins (scheme://host[:port] as
	// a browser sends Origin, or "*" for any) whose pages may call the
	// gateway: it answers their CORS preflights itself (they used to go
	// upstream), and gives each response to them
	// Access-Control-Allow-Origin and Access-Control-Expose-Headers (the
	// request IDs), replacing the upstream's Access-Control-* headers. A
	// preflight from another origin is answered 403. Credentials here are
	// the API's headers, not cookies: Access-Control-Allow-Credentials is
	// never sent. Empty leaves CORS to the upstream.
	CORSOrigins []string
	// Credentials, if set, make the gateway hold the upstream's key and
	// authenticate clients by tokens of their own (see Credentials): a
	// request without a known token is answered 401 with the API's error
	// JSON (authentication_error) and never goes upstream; a CORS
	// preflight, which carries no credentials, needs none.
	Credentials *Credentials
	// Resume, if set, makes streamed responses on the APIs' paths
	// resumable (SPEC.md §13): each is named in ResumeIDHeader, what its
	// client reads (an ANTH client's frames, an event stream's events,
	// each event then given its id:) is kept in Resume before it is
	// written to the client, and a GET on the API's path with that header
	// gets what the client missed and then the live rest. Nil keeps no
	// tails: responses are what they were, byte for byte.
	Resume resume.Store
	// ResumeTTL is how long a tail is kept after its last write; zero is
	// DefaultResumeTTL. A resume after it is 404.
	ResumeTTL time.Duration
	// ResumeMaxBytes bounds one response's tail; zero is
	// DefaultResumeMaxBytes. A response that grows past it streams on,
	// its tail dropped: a resume is 410.
	ResumeMaxBytes int64
	// ResumeGrace is how long the upstream of a resumable response keeps
	// generating, into the store, once no client reads it (the client
	// left and no resume is being served by this gateway); then it is
	// cancelled, as a response's whose client left always is without
	// Resume. Zero is DefaultResumeGrace; negative cancels at once. Such
	// a response still counts toward MaxStreams, as it holds its
	// upstream; a server's drain (ErrShutdown) no longer reaches it once
	// its client has left, so a drain should last at least ResumeGrace.
	ResumeGrace time.Duration
	// Vocabularies, if not empty, are served at VocabulariesPath by hash,
	// as vocabulary files a browser fetches once (SPEC.md §3.16).
	Vocabularies []*vocab.Vocabulary
	// ModelVocabularies names, by the model a request asks for, the
	// vocabulary whose IDs that model's streams carry as the API's own
	// data (vLLM's token_ids, SPEC.md §7b.2), which the bridge cannot
	// name. An ANTH client of such a stream gets a VOCAB frame naming it
	// before the first token frame (§3.13: with the text flag,
	// as the text travels too; by its special table's digest when the
	// request's vocab.Header lists its hash), so a client that holds it
	// can read the IDs, and the gateway serves it as it serves
	// Vocabularies. Another model's IDs stay as they are, their
	// vocabulary agreed out of band (§3.1). For an API that reports each
	// token's bytes but not its ID (the OpenAI API's logprobs), an ANTH
	// client whose vocab.Header lists a byte-level vocabulary's hash and
	// text gets the IDs too, as token_ids (§3.14,
	// vocab.Vocabulary.Lookup, chat.Decoder.SetLookup).
	ModelVocabularies map[string]*vocab.Vocabulary
}

// DefaultMaxRequestSize bounds a request body unless configured: 32 MiB,
// the Messages API's own limit.
const DefaultMaxRequestSize = 32 << 20

// DefaultBodyTimeout is GatewayOptions.BodyTimeout's default: 32 MiB, the
// largest body the Messages API takes, in a minute is 4.5 Mbit/s, while a
// client that sends nothing is let go after a minute.
const DefaultBodyTimeout = time.Minute

// RequestIDHeader is the response header in which a Gateway gives the
// client the ID it made for the request (Record.ID), the one its log line
// names; it replaces an upstream's header of that name, whose value the
// log keeps (Record.UpstreamID).
const RequestIDHeader = "X-Request-Id"

// Gateway is the zero-layer gateway, anth proxy's handler, for one API: a
// reverse proxy (httputil.ReverseProxy, for every request) that bridges
// the API's streams. A POST to the API's Path may carry a JSON or an ANTH
// body, and goes upstream as JSON; its streamed response comes back as ANTH
// to a client whose Accept asks for it (Negotiate), coded in anth-deflate
// when its Accept-Encoding names that too, else as the upstream's event
// stream, checked event by event; an upstream that breaks, ends early or
// idles past UpstreamIdleTimeout gives the client an ERROR frame or the
// API's error event, never a shorter message. A bridged stream's headers
// reach the client as soon as the upstream's reach the gateway, before its
// first event, and each of its writes is flushed. Every other request and
// response passes through as ReverseProxy passes it.
//
// Headers go upstream as RFC 9110 §7.6.1 says a proxy sends them: every
// end-to-end header the client sent (credentials, the API's version and
// betas, the SDK's User-Agent and x-stainless-* headers, anthropic-* and
// openai-* headers, request IDs), and none of the hop-by-hop ones
// (Connection and the headers it names, Keep-Alive, Proxy-Authenticate,
// Proxy-Authorization, TE but for "trailers", Trailer, Transfer-Encoding,
// Upgrade), which ReverseProxy drops both ways; nor Forwarded and
// X-Forwarded-*, which a client may forge and the gateway does not vouch
// for. GatewayOptions.ForwardHeaders narrows that to an allow-list. On a
// bridged request the gateway sets Content-Type (JSON), Accept (the API's
// event stream or JSON) and leaves Accept-Encoding to the transport, as
// the body it forwards and the one it reads are its own.
//
// The gateway's own answers are the API's error JSON (api.AppendError),
// which say what failed and name no address: "upstream unreachable" (502,
// or 504 when connecting timed out), "upstream did not answer in time"
// (504), "upstream reset the connection" (502); mid-stream, "upstream
// reset the stream". The causes, addresses and all, go to the log
// (Record.Err). Every response carries the request's ID in
// RequestIDHeader.
type Gateway struct {
	apis     []bridge.API // the first answers paths no API serves
	opts     GatewayOptions
	rp       *httputil.ReverseProxy
	allow    map[string]bool // ForwardHeaders, canonical; nil for none
	cors     *cors           // nil for none
	tokens   *tokens         // nil for none
	inFlight atomic.Int64
	logPC    atomic.Uintptr // the log line's caller, found on the first line (log)
	tails    tails          // the resumable responses this gateway is relaying
	vocabs   vocabularies
	named    map[string]vocabFrames // ModelVocabularies' VOCAB frames, by model
}

// NewGateway returns a Gateway for api, and for the further APIs more,
// configured by opts. Each API's Path is bridged (a Gateway for
// messages.API and chat.API serves /v1/messages and /v1/chat/completions);
// every other path passes through, and the gateway's own errors there (an
// upstream unreachable, say) are api's error JSON.
func NewGateway(api bridge.API, opts GatewayOptions, more ...bridge.API) *Gateway {
	if opts.Transport == nil {
		opts.Transport = http.DefaultTransport
	}
	if opts.BodyTimeout == 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	g := &Gateway{apis: append([]bridge.API{api}, more...), opts: opts, cors: newCORS(opts.CORSOrigins), tokens: newTokens(opts.Credentials), vocabs: newVocabularies(opts.Vocabularies, opts.ModelVocabularies), named: newVocabFrames(opts.ModelVocabularies)}
	if g.cors != nil && opts.Resume != nil {
		// A page resumes with the ID it reads (SPEC.md §13.1).
		g.cors.exposed += ", " + ResumeIDHeader
	}
	if opts.ForwardHeaders != nil {
		g.allow = make(map[string]bool, len(opts.ForwardHeaders))
		for _, h := range opts.ForwardHeaders {
			g.allow[http.CanonicalHeaderKey(h)] = true
		}
	}
	g.rp = &httputil.ReverseProxy{
		Rewrite:        g.rewrite,
		ModifyResponse: g.modifyResponse,
		ErrorHandler:   g.errorHandler,
		Transport:      withRequest{opts.Transport},
		// Zero: a bridged stream is flushed by its countingWriter
		// (flushStream); any other response as ReverseProxy flushes it,
		// at once when it is an event stream or of unknown length.
		FlushInterval: 0,
		BufferPool:    &copyBuffers{},
	}
	if opts.Logger != nil {
		g.rp.ErrorLog = slog.NewLogLogger(opts.Logger.Handler(), slog.LevelWarn)
	}
	return g
}

// InFlight returns the requests to the APIs' paths being served now, the
// ones GatewayOptions.MaxStreams bounds.
func (g *Gateway) InFlight() int { return int(g.inFlight.Load()) }

// exchange is what the gateway knows of a request, from the client's
// request to its response and its Record.
type exchange struct {
	rec       Record
	api       bridge.API // the API whose path it is, else the gateway's first
	bridged   bool       // a POST to the API's path, whose body was read
	wire      wire
	relay     *relay
	cancel    context.CancelCauseFunc // the upstream request's, for the idle timer
	ctx       context.Context         // the upstream request's
	owner     resume.Owner            // who may resume the response (Resume)
	request   []byte                  // the request's JSON
	tail      atomic.Pointer[tail]    // the response's, if resumable
	failed    bool                    // the gateway answered with its own error
	cut       bool                    // … because the drain's time ran out
	origin    string                  // the client's Origin, for CORS
	clientCtx context.Context         // the client's request's
	detached  context.Context         // the client's request's without its cancel: the upstream's parent when resumable
	kept      keptBody                // the response's body when resumable
	model     string                  // the request's model, when ModelVocabularies names any
	holds     string                  // the client's vocab.Header, when ModelVocabularies names any
	body      bytes.Reader            // the upstream request's body, when bridged
	id        [1]string               // the response's RequestIDHeader value
	w         *countingWriter         // the client's
}

type exchangeKey struct{}

// ServeHTTP serves one request.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if g.opts.BodyTimeout > 0 && r.Body != nil && r.Body != http.NoBody {
		// net/http clears the deadline once the body has been read to its
		// end, so it never cuts the response's stream.
		http.NewResponseController(w).SetReadDeadline(start.Add(g.opts.BodyTimeout))
	}
	api, bridged := g.apiFor(r.URL.Path)
	ex := &exchange{rec: Record{Method: r.Method, Path: r.URL.Path, Client: r.RemoteAddr, ID: newRequestID(), Kind: KindProxy}, api: api, origin: r.Header.Get("Origin"), clientCtx: r.Context()}
	cw := &countingWriter{ResponseWriter: w}
	ex.w = cw
	in := &countingReader{r: r.Body}
	r.Body = in
	// Deferred: httputil.ReverseProxy panics with http.ErrAbortHandler
	// when a write to a client that left fails, and that request is
	// logged and counted too.
	defer g.finish(ex, r, cw, in, start)
	switch {
	case g.cors != nil && g.cors.preflight(g, cw, r, ex):
	case g.vocabs.serve(g, cw, r, ex):
	case g.tokens != nil && !g.authenticate(r, ex):
		g.apiError(cw, ex, http.StatusUnauthorized, frame.CodeAuthentication, "a token this gateway issued is required (x-api-key or Authorization: Bearer)")
	case dotSegment(r.URL.Path):
		// Joined to the upstream's base path, a ".." would name what is
		// beside it (https://host/base/../admin); net/http's server does
		// not clean a path for a handler that is not a ServeMux.
		g.apiError(cw, ex, http.StatusBadRequest, frame.CodeInvalidRequest, "the path has a . or .. segment")
	case r.Method == http.MethodGet && bridged && g.opts.Resume != nil && r.Header.Get(ResumeIDHeader) != "":
		ex.rec.Resumed = true
		g.inFlight.Add(1)
		defer g.inFlight.Add(-1)
		g.serveResume(cw, r, ex)
	case r.Method == http.MethodPost && bridged:
		n := g.inFlight.Add(1)
		defer g.inFlight.Add(-1)
		if max := g.opts.MaxStreams; max > 0 && n > int64(max) {
			g.apiError(cw, ex, http.StatusServiceUnavailable, frame.CodeOverloaded, "too many streams in flight: the gateway serves at most "+strconv.Itoa(max)+" at once")
			return
		}
		body, err := ReadRequestBody(r, api, g.opts.MaxRequestSize)
		if err != nil {
			status, code := http.StatusBadRequest, frame.CodeInvalidRequest
			switch {
			case errors.Is(err, ErrTooLarge):
				status, code = http.StatusRequestEntityTooLarge, frame.CodeRequestTooLarge
			case errors.Is(err, os.ErrDeadlineExceeded):
				// The API has no type for a client too slow to send its
				// request.
				status = http.StatusRequestTimeout
			}
			g.apiError(cw, ex, status, code, err.Error())
			return
		}
		ex.bridged, ex.wire, ex.rec.Kind = true, negotiate(r, g.opts.Proxy.Padding != 0), KindJSON
		if g.named != nil {
			// The client's own header: ForwardHeaders may keep it from
			// the upstream's request.
			ex.model, ex.holds = modelOf(body), r.Header.Get(vocab.Header)
		}
		parent := r.Context()
		if g.opts.Resume != nil {
			// The upstream of a resumable response outlives its client by
			// the grace period (§13.4): it is cancelled by the tail, not by
			// the client's leaving.
			parent = context.WithoutCancel(parent)
			ex.detached = parent
			ex.owner = credentialsOf(r, api, ex.wire)
		}
		ctx, cancel := context.WithCancelCause(parent)
		defer cancel(nil)
		ex.cancel, ex.ctx = cancel, ctx
		if g.opts.Resume != nil {
			stop := context.AfterFunc(r.Context(), func() {
				cause := context.Cause(r.Context())
				if t := ex.tail.Load(); t != nil && !errors.Is(cause, ErrShutdown) {
					t.leave()
					return
				}
				cancel(cause)
			})
			defer stop()
		}
		out := r.WithContext(context.WithValue(ctx, exchangeKey{}, ex))
		// A stand-in until rewrite gives the upstream request its body,
		// ex.body (ReverseProxy wraps whatever body it is given).
		ex.body.Reset(body)
		out.Body = http.NoBody
		out.ContentLength = int64(len(body))
		g.rp.ServeHTTP(cw, out)
	default:
		g.rp.ServeHTTP(cw, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
	}
}

// finish completes ex's Record once the response is over, logs it and
// gives it to the Observer.
func (g *Gateway) finish(ex *exchange, r *http.Request, cw *countingWriter, in *countingReader, start time.Time) {
	rec := &ex.rec
	rec.Status, rec.In, rec.Out = cw.status(), in.n, cw.n
	rec.Duration = time.Since(start)
	if !cw.first.IsZero() {
		rec.FirstByte = cw.first.Sub(start)
	}
	ctx := r.Context()
	clientLeft := ctx.Err() != nil && !errors.Is(context.Cause(ctx), ErrShutdown)
	switch rl := ex.relay; {
	case rl != nil:
		rec.Frames, rec.InputTokens, rec.OutputTokens = rl.relayed, rl.input, rl.output
		switch {
		case rl.fault != nil && errors.Is(rl.fault, ErrShutdown):
			rec.End, rec.Err = EndCut, rl.fault
		case clientLeft:
			rec.End = EndClientLeft
		case rl.fault != nil:
			rec.End, rec.Fault, rec.Err = EndError, faultOf(rl.fault), rl.fault
		case rl.whole && rl.upstreamFailed:
			rec.End = EndError
		case rl.whole:
			rec.End = EndDone
		default:
			// The copy stopped before the stream's end with no fault: a
			// write to the client failed.
			rec.End = EndClientLeft
		}
	case ex.cut:
		rec.End = EndCut
	case ex.failed:
		rec.End = EndError
	case clientLeft:
		rec.End = EndClientLeft
	}
	if g.opts.Logger != nil {
		g.log(rec)
	}
	if g.opts.Observer != nil {
		g.opts.Observer.Observe(rec)
	}
}

// log writes rec's line to GatewayOptions.Logger, as Logger.LogAttrs
// would, but with the attributes in a stack array rather than a slice of
// their own, and with the caller's program counter found once rather than
// by unwinding the stack per request: the line's source (a handler's
// AddSource) is this call's in finish either way.
func (g *Gateway) log(rec *Record) {
	ctx := context.Background()
	level := slog.LevelInfo
	if rec.End == EndError || rec.End == EndCut {
		level = slog.LevelWarn
	}
	h := g.opts.Logger.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	pc := g.logPC.Load()
	if pc == 0 {
		var pcs [1]uintptr
		runtime.Callers(2, pcs[:]) // skip runtime.Callers and log
		pc = pcs[0]
		g.logPC.Store(pc)
	}
	r := slog.NewRecord(time.Now(), level, "request", pc)
	var a [maxAttrs]slog.Attr
	r.AddAttrs(rec.appendAttrs(a[:0])...)
	_ = h.Handle(ctx, r)
}

// authenticate checks r's token (GatewayOptions.Credentials), naming its
// client in ex's Record.
func (g *Gateway) authenticate(r *http.Request, ex *exchange) bool {
	name, ok := g.tokens.caller(r)
	ex.rec.Caller = name
	return ok
}

// newRequestID makes a request's ID: 16 hex digits, random. It is for
// finding a request's log line, not a secret.
func newRequestID() string {
	var b [16]byte
	v := rand.Uint64()
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = "0123456789abcdef"[v&15]
		v >>= 4
	}
	return string(b[:])
}

// rewrite is the ReverseProxy's: every request goes to the upstream, with
// the caller's query (the SDK's ?beta=true, for one); a bridged one as the
// JSON it now carries.
func (g *Gateway) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(g.opts.Upstream)
	pr.Out.Host = g.opts.Upstream.Host
	h := pr.Out.Header
	if g.allow != nil {
		for k := range h {
			if !g.allow[k] {
				delete(h, k)
			}
		}
	}
	if g.tokens != nil {
		g.tokens.replace(h)
	}
	ex, _ := pr.In.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil || !ex.bridged {
		return
	}
	if pr.Out.Body != nil { // nil for an empty body, as ReverseProxy sends it
		// Given here, after ReverseProxy wrapped the body it was given
		// in a type of its own: a *bytes.Reader under io.NopCloser is a
		// body net/http knows is in memory, and writes with the request's
		// headers in one write. Any other type makes it flush the headers
		// first: two writes and two packets a stream, which cost more CPU
		// than this allocation does (TestGatewayUpstreamOneWrite).
		pr.Out.Body = io.NopCloser(&ex.body)
	}
	// Shared values, as setStreamHeaders assigns: h.Set allocates.
	h["Content-Type"] = valueJSON
	h.Del("Content-Length")
	h["Accept"] = valueAcceptSSE
	// The transport asks for gzip and undoes it: the body read is ours.
	h.Del("Accept-Encoding")
}

// modifyResponse bridges a bridged request's streamed response; any other
// response passes as it came, with the request's ID.
func (g *Gateway) modifyResponse(resp *http.Response) error {
	ex, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return nil
	}
	ex.rec.UpstreamID = resp.Header.Get("Request-Id")
	if ex.rec.UpstreamID == "" {
		ex.rec.UpstreamID = resp.Header.Get("X-Request-Id")
	}
	// The exchange's own slice: resp.Header.Set would allocate one. It
	// has a cap of one, so an Add appends to a copy (see setStreamHeaders).
	ex.id[0] = ex.rec.ID
	resp.Header[RequestIDHeader] = ex.id[:]
	if g.cors != nil {
		g.cors.respond(resp.Header, ex.origin)
	}
	if !ex.bridged {
		return nil
	}
	if resp.StatusCode/100 != 2 || mediaType(resp.Header.Get("Content-Type")) != sse.MediaType {
		return nil
	}
	setStreamHeaders(resp.Header, resp.Request.Method, ex.wire)
	resp.Header.Del("Content-Length")
	ex.w.flushStream(resp)
	var t *tail
	if g.opts.Resume != nil {
		t = g.startTail(ex, resp.Header)
	}
	// No request: a resume's Encoder has none either, and both make the
	// same events (SPEC.md §13.3).
	rl := newRelay(resp.Request.Context(), resp.Body, ex.api, ex.wire, g.opts.Proxy.Padding, t)
	if d := g.opts.UpstreamIdleTimeout; d > 0 {
		// The cause is made when the watch expires, which few do: made
		// here, it was two allocations a stream.
		rl.idle = newIdleWatch(d, func() {
			ex.cancel(&Error{Offset: -1, Err: ErrUpstreamIdle, Detail: "no event for " + d.String()})
		})
	}
	if g.named != nil && ex.wire != wireStream {
		var lookup func([]byte) (uint32, bool)
		rl.vocab, lookup = g.named[ex.model].forRequest(ex.holds)
		if d, ok := rl.d.(lookupSetter); ok && lookup != nil {
			// The upstream's IDs as bytes (OpenAI's logprobs) become
			// TOKEN frames after the VOCAB frame (SPEC.md §3.14).
			d.SetLookup(lookup)
		}
	}
	ex.relay = rl
	resp.Body = relayBody{rl, resp.Body}
	if t != nil {
		ex.tail.Store(t)
		ex.kept = keptBody{relay: rl, upstream: resp.Body.(relayBody).upstream, g: g, client: ex.clientCtx}
		resp.Body = &ex.kept
	}
	ex.rec.Kind = KindSSE
	if ex.wire != wireStream {
		ex.rec.Kind = KindANTH
	}
	if ex.wire == wireCoded || ex.wire == wireCodedType {
		ex.rec.Coding = deflate.Encoding
	}
	return nil
}

// withRequest is a RoundTripper whose responses name their request, as
// http.Transport's do and a RoundTripper of the caller's may not: the
// request's context carries what modifyResponse needs.
type withRequest struct{ http.RoundTripper }

func (t withRequest) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.RoundTripper.RoundTrip(r)
	if resp != nil && resp.Request == nil {
		resp.Request = r
	}
	return resp, err
}

// relayBody is a relay as a response body: ReverseProxy reads it and
// closes the upstream's.
type relayBody struct {
	*relay
	upstream io.Closer
}

func (b relayBody) Close() error {
	b.relay.finish()
	return b.upstream.Close()
}

// keptBody is a resumable response's relay as a body: once its client has
// left, it reads the upstream into the store to the end (or until the
// grace period cancels it, §13.4) instead of giving it to the proxy.
type keptBody struct {
	*relay
	upstream io.Closer
	g        *Gateway
	client   context.Context
}

func (b *keptBody) Read(p []byte) (int, error) {
	if b.client.Err() != nil {
		b.drain()
		return 0, io.EOF
	}
	return b.relay.Read(p)
}

// drain keeps the rest of the stream.
func (b *keptBody) drain() {
	for {
		if _, err := b.relay.next(); err != nil {
			return
		}
	}
}

func (b *keptBody) Close() error {
	b.drain() // a write to the client failed: it left
	b.g.tails.remove(b.relay.tail.id)
	b.relay.finish()
	return b.upstream.Close()
}

// errorHandler answers a request the upstream did not: the API's error,
// which names the fault's kind and no address; the fault itself,
// addresses and all, goes to the log. A client that left gets nothing.
func (g *Gateway) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	ex, _ := r.Context().Value(exchangeKey{}).(*exchange)
	if ctx := r.Context(); ctx.Err() != nil {
		if !errors.Is(context.Cause(ctx), ErrShutdown) {
			return // the client left
		}
		// The drain's time ran out before the upstream answered.
		g.apiError(w, ex, http.StatusServiceUnavailable, frame.CodeOverloaded, ErrShutdown.Error())
		if ex != nil {
			ex.cut, ex.rec.Err = true, err
		}
		return
	}
	fault, status, message := roundTripFault(err)
	if ex != nil {
		ex.rec.Fault, ex.rec.Err = fault, err
	}
	code := frame.CodeAPI
	if status == http.StatusGatewayTimeout {
		code = frame.CodeTimeout
	}
	g.apiError(w, ex, status, code, message)
}

// roundTripFault classifies the error of an upstream request that got no
// response: its Fault, the status the client gets and what it is told.
func roundTripFault(err error) (Fault, int, string) {
	var ne net.Error
	timeout := errors.As(err, &ne) && ne.Timeout()
	var op *net.OpError
	dial := errors.As(err, &op) && op.Op == "dial"
	var cert *tls.CertificateVerificationError
	switch {
	case dial && timeout:
		return FaultConnectTimeout, http.StatusGatewayTimeout, "upstream unreachable: connecting timed out"
	case dial || errors.As(err, &cert):
		return FaultUnreachable, http.StatusBadGateway, "upstream unreachable"
	case timeout:
		return FaultHeaderTimeout, http.StatusGatewayTimeout, "upstream did not answer in time"
	}
	return FaultReset, http.StatusBadGateway, "upstream reset the connection"
}

// dotSegment reports whether path, decoded, has a "." or ".." segment
// (RFC 3986 §3.3), the ones that move out of where a path is joined.
func dotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// apiError writes the gateway's own error as the API does
// (api.AppendError), with the request's ID.
func (g *Gateway) apiError(w http.ResponseWriter, ex *exchange, status int, code frame.ErrorCode, message string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if ex != nil {
		h.Set(RequestIDHeader, ex.rec.ID)
		ex.rec.Kind, ex.failed = KindJSON, true
		if g.cors != nil {
			g.cors.respond(h, ex.origin)
		}
	}
	api := g.apis[0]
	if ex != nil {
		api = ex.api
	}
	w.WriteHeader(status)
	w.Write(api.AppendError(nil, code, message))
}

// apiFor returns the API whose Path is path and true, or the gateway's
// first API and false.
func (g *Gateway) apiFor(path string) (bridge.API, bool) {
	for _, a := range g.apis {
		if a.Path() == path {
			return a, true
		}
	}
	return g.apis[0], false
}

// countingWriter counts the bytes written and keeps the status, for the
// access log; Unwrap lets http.ResponseController reach the Flusher.
type countingWriter struct {
	http.ResponseWriter
	n      int64
	code   int
	first  time.Time // of the first byte written
	stream bool      // a bridged stream's, which it flushes itself (flushStream)
}

func (c *countingWriter) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
	}
	c.ResponseWriter.WriteHeader(code)
	if c.stream {
		c.Flush() // the headers, before the first event
	}
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.code == 0 {
		c.code = http.StatusOK
	}
	n, err := c.ResponseWriter.Write(p)
	if n > 0 && c.n == 0 {
		c.first = time.Now()
	}
	c.n += int64(n)
	if c.stream && err == nil {
		// Its error ignored, as ReverseProxy ignores it: a writer that
		// cannot flush still gets the stream, and a client that left
		// fails the next write.
		c.Flush()
	}
	return n, err
}

// flushStream makes c flush a bridged stream's headers and its every
// write itself, and hides from httputil.ReverseProxy what would make it
// flush them (resp's Content-Type, moved to c's header, which the
// proxy adds resp's to, and a ContentLength of -1, which only its choice
// of flushing reads): for such a response it arms a timer that fires at
// once (time.AfterFunc(-1)), to flush the headers from a goroutine of
// its own, which woke the network poller and cost a short stream more
// CPU than the bridge's work on it (BenchmarkGatewayStream, issue 26).
// Flushing in WriteHeader sends the headers as early, without them.
func (c *countingWriter) flushStream(resp *http.Response) {
	c.stream = true
	c.Header()["Content-Type"] = resp.Header["Content-Type"]
	delete(resp.Header, "Content-Type")
	resp.ContentLength = 0
}

func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// Flush lets httputil.ReverseProxy flush through the counter, and is how
// the counter flushes a bridged stream (flushStream).
func (c *countingWriter) Flush() { http.NewResponseController(c.ResponseWriter).Flush() }

func (c *countingWriter) status() int {
	if c.code == 0 {
		return http.StatusOK
	}
	return c.code
}

type countingReader struct {
	r io.ReadCloser
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }
