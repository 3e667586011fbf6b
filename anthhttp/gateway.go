package anthhttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/sse"
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
// allocates at most twice that in all, as the buffer doubles. An ANTH body
// then costs what api.AppendRequestJSON does.
func ReadRequestBody(r *http.Request, api bridge.API, maxSize int) ([]byte, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxRequestSize
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "" && mt != "application/json" && mt != ContentType {
		return nil, &Error{Offset: -1, Err: ErrMediaType, Detail: "request Content-Type " + strconv.Quote(mt)}
	}
	// No Grow to r.ContentLength: 40 clients declaring 32 MiB and sending
	// a byte a second held 1.3 GB that way. bytes.Buffer grows by what
	// arrives.
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r.Body, int64(maxSize)+1))
	if err != nil {
		return nil, &Error{Offset: n, Err: err, Detail: "reading the request body"}
	}
	if n > int64(maxSize) {
		return nil, &Error{Offset: int64(maxSize), Err: ErrTooLarge, Detail: "request body over " + strconv.Itoa(maxSize) + " bytes"}
	}
	if mt == ContentType {
		return api.AppendRequestJSON(nil, buf.Bytes())
	}
	return buf.Bytes(), nil
}

// GatewayOptions configure NewGateway.
type GatewayOptions struct {
	// Upstream is the Messages API to forward to, such as
	// https://api.anthropic.com.
	Upstream *url.URL
	// Transport makes the upstream requests; default
	// http.DefaultTransport.
	Transport http.RoundTripper
	// MaxRequestSize bounds a request body; 0 means DefaultMaxRequestSize.
	// The API's own options bound what is converted.
	MaxRequestSize int
	// Proxy configures the streams served (padding).
	Proxy ProxyOptions
	// Log, if set, gets one line per request: method, path, status, the
	// wire kind served, bytes in and out, duration. It never gets a
	// header's value.
	Log *log.Logger
	// BodyTimeout bounds the time a request's body may take to arrive,
	// from when the gateway starts on the request (the headers are the
	// server's ReadHeaderTimeout): a body still arriving then is cut, and
	// POST /v1/messages answered 408. Zero is DefaultBodyTimeout; negative
	// sets no bound. It is a read deadline set through
	// http.ResponseController: under a ResponseWriter that cannot take one,
	// only the server's ReadTimeout applies.
	BodyTimeout time.Duration
}

// DefaultMaxRequestSize bounds a request body unless configured: 32 MiB,
// the Messages API's own limit.
const DefaultMaxRequestSize = 32 << 20

// DefaultBodyTimeout is GatewayOptions.BodyTimeout's default: 32 MiB, the
// largest body the Messages API takes, in a minute is 4.5 Mbit/s, while a
// client that sends nothing is let go after a minute.
const DefaultBodyTimeout = time.Minute

// Gateway is the zero-layer gateway, anth proxy's handler, for one API: a
// reverse proxy (httputil.ReverseProxy, for every request) that bridges
// the API's streams. A POST to the API's Path may carry a JSON or an ANTH
// body, and goes upstream as JSON; its streamed response comes back as ANTH
// to a client whose Accept asks for it (Negotiate), coded in anth-deflate
// when its Accept-Encoding names that too, else as the upstream's event
// stream, checked event by event; an upstream that breaks or ends early
// gives the client an ERROR frame or the API's error event, never a
// shorter message. Every other request and response passes through as
// ReverseProxy passes it.
//
// Headers go upstream as RFC 9110 §7.6.1 says a proxy sends them: every
// end-to-end header the client sent (credentials, the API's version and
// betas, the SDK's User-Agent and x-stainless-* headers, request IDs), and
// none of the hop-by-hop ones (Connection and the headers it names,
// Keep-Alive, Proxy-Authenticate, Proxy-Authorization, TE, Trailer,
// Transfer-Encoding, Upgrade), which ReverseProxy drops both ways. On a
// bridged request the gateway sets Content-Type (JSON), Accept (the
// API's event stream or JSON) and leaves Accept-Encoding to the transport,
// as the body it forwards and the one it reads are its own. An upstream
// that cannot be reached is answered 502 with the API's error JSON, which
// names no address; the cause goes to the log.
type Gateway struct {
	api  bridge.API
	opts GatewayOptions
	rp   *httputil.ReverseProxy
}

// NewGateway returns a Gateway for api, configured by opts.
func NewGateway(api bridge.API, opts GatewayOptions) *Gateway {
	if opts.Transport == nil {
		opts.Transport = http.DefaultTransport
	}
	if opts.BodyTimeout == 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	g := &Gateway{api: api, opts: opts}
	g.rp = &httputil.ReverseProxy{
		Rewrite:        g.rewrite,
		ModifyResponse: g.modifyResponse,
		ErrorHandler:   g.errorHandler,
		Transport:      withRequest{opts.Transport},
		FlushInterval:  -1,
		ErrorLog:       opts.Log,
	}
	return g
}

// bridged is what the gateway knows of a request it bridges, from the
// client's request to its response and the log line.
type bridged struct {
	wire   wire
	method string
	kind   string // the wire kind served: anth, sse or json
	relay  *relay
}

type bridgedKey struct{}

// ServeHTTP serves one request.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if g.opts.BodyTimeout > 0 && r.Body != nil && r.Body != http.NoBody {
		// net/http clears the deadline once the body has been read to its
		// end, so it never cuts the response's stream.
		http.NewResponseController(w).SetReadDeadline(start.Add(g.opts.BodyTimeout))
	}
	cw := &countingWriter{ResponseWriter: w}
	in := &countingReader{r: r.Body}
	r.Body = in
	kind := "proxy"
	var b *bridged
	switch {
	case dotSegment(r.URL.Path):
		// Joined to the upstream's base path, a ".." would name what is
		// beside it (https://host/base/../admin); net/http's server does
		// not clean a path for a handler that is not a ServeMux.
		g.apiError(cw, http.StatusBadRequest, "the path has a . or .. segment")
		kind = "json"
	case r.Method == http.MethodPost && r.URL.Path == g.api.Path():
		body, err := ReadRequestBody(r, g.api, g.opts.MaxRequestSize)
		if err != nil {
			status := http.StatusBadRequest
			switch {
			case errors.Is(err, ErrTooLarge):
				status = http.StatusRequestEntityTooLarge
			case errors.Is(err, os.ErrDeadlineExceeded):
				status = http.StatusRequestTimeout
			}
			g.apiError(cw, status, err.Error())
			kind = "json"
			break
		}
		b = &bridged{wire: negotiate(r, g.opts.Proxy.Padding != 0), method: r.Method, kind: "json"}
		out := r.WithContext(context.WithValue(r.Context(), bridgedKey{}, b))
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.ContentLength = int64(len(body))
		g.rp.ServeHTTP(cw, out)
		kind = b.kind
	default:
		g.rp.ServeHTTP(cw, r)
	}
	if g.opts.Log != nil {
		if b != nil && b.relay != nil && b.relay.fault != nil {
			g.opts.Log.Printf("%s %q: %v", r.Method, r.URL.Path, b.relay.fault)
		}
		// %q: a path is the client's bytes, and a decoded %0A in it must
		// not start a log line of its own.
		g.opts.Log.Printf("%s %q %d %s in=%d out=%d %s", r.Method, r.URL.Path, cw.status(), kind, in.n, cw.n, time.Since(start).Round(time.Microsecond))
	}
}

// rewrite is the ReverseProxy's: every request goes to the upstream, with
// the caller's query (the SDK's ?beta=true, for one); a bridged one as the
// JSON it now carries.
func (g *Gateway) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(g.opts.Upstream)
	pr.Out.Host = g.opts.Upstream.Host
	if pr.In.Context().Value(bridgedKey{}) == nil {
		return
	}
	h := pr.Out.Header
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	h.Set("Accept", sse.MediaType+", application/json")
	// The transport asks for gzip and undoes it: the body read is ours.
	h.Del("Accept-Encoding")
}

// modifyResponse bridges a bridged request's streamed response; any other
// response passes as it came.
func (g *Gateway) modifyResponse(resp *http.Response) error {
	b, _ := resp.Request.Context().Value(bridgedKey{}).(*bridged)
	if b == nil {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode/100 != 2 || mt != sse.MediaType {
		return nil
	}
	setStreamHeaders(resp.Header, b.method, b.wire)
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	b.relay = newRelay(resp.Request.Context(), resp.Body, g.api, b.wire, g.opts.Proxy.Padding)
	resp.Body = relayBody{b.relay, resp.Body}
	b.kind = "sse"
	if b.wire != wireStream {
		b.kind = "anth"
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

// errorHandler answers a request the upstream did not: 502 with the API's
// error, which names the fault's kind and no address; the fault itself,
// addresses and all, goes to the log. A client that left gets nothing.
func (g *Gateway) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	if g.opts.Log != nil {
		g.opts.Log.Printf("%s %q: upstream: %v", r.Method, r.URL.Path, err)
	}
	if r.Context().Err() != nil {
		return
	}
	g.apiError(w, http.StatusBadGateway, "upstream unreachable")
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

// apiError writes an error as the API does.
func (g *Gateway) apiError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	code := frame.ErrorCode(status)
	switch status {
	case http.StatusBadGateway:
		code = frame.CodeAPI
	case http.StatusRequestTimeout:
		// The API has no type for a client too slow to send its request.
		code = frame.CodeInvalidRequest
	}
	w.Write(g.api.AppendError(nil, code, message))
}

// countingWriter counts the bytes written and keeps the status, for the
// access log; Unwrap lets http.ResponseController reach the Flusher.
type countingWriter struct {
	http.ResponseWriter
	n    int64
	code int
}

func (c *countingWriter) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.code == 0 {
		c.code = http.StatusOK
	}
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// Flush lets httputil.ReverseProxy flush through the counter.
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
