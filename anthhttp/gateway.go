package anthhttp

import (
	"bytes"
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

// forwardedHeaders are the caller's headers a gateway passes upstream on
// /v1/messages: the credentials and the API's version and betas.
var forwardedHeaders = []string{"X-Api-Key", "Authorization", "Anthropic-Version", "Anthropic-Beta"}

// Gateway is the zero-layer gateway, anth proxy's handler, for one API: it
// accepts POST to the API's Path with a JSON or ANTH body and forwards it
// upstream as JSON, with the caller's x-api-key, authorization,
// anthropic-version and anthropic-beta; it streams the response back as
// ANTH to a client whose Accept asks for it (Negotiate), else as the
// upstream's event stream, through Proxy, so upstream faults reach the
// client as an error frame or event. Responses that are not streams,
// errors with their status, and every other path pass through as a plain
// reverse proxy.
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
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(opts.Upstream)
			pr.Out.Host = opts.Upstream.Host
		},
		Transport:     opts.Transport,
		FlushInterval: -1,
	}
	if opts.BodyTimeout == 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	return &Gateway{api: api, opts: opts, rp: rp}
}

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
	switch {
	case dotSegment(r.URL.Path):
		// Joined to the upstream's base path, a ".." would name what is
		// beside it (https://host/base/../admin); net/http's server does
		// not clean a path for a handler that is not a ServeMux.
		g.apiError(cw, http.StatusBadRequest, "the path has a . or .. segment")
		kind = "json"
	case r.Method == http.MethodPost && r.URL.Path == g.api.Path():
		kind = g.stream(cw, r)
	default:
		g.rp.ServeHTTP(cw, r)
	}
	if g.opts.Log != nil {
		// %q: a path is the client's bytes, and a decoded %0A in it must
		// not start a log line of its own.
		g.opts.Log.Printf("%s %q %d %s in=%d out=%d %s", r.Method, r.URL.Path, cw.status(), kind, in.n, cw.n, time.Since(start).Round(time.Microsecond))
	}
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

// stream serves a POST to the API's Path and returns the wire kind it
// served.
func (g *Gateway) stream(w http.ResponseWriter, r *http.Request) string {
	body, err := ReadRequestBody(r, g.api, g.opts.MaxRequestSize)
	if err != nil {
		status := http.StatusBadRequest
		switch {
		case errors.Is(err, ErrTooLarge):
			status = http.StatusRequestEntityTooLarge
		case errors.Is(err, os.ErrDeadlineExceeded):
			status = http.StatusRequestTimeout
		}
		g.apiError(w, status, err.Error())
		return "json"
	}
	// The caller's query goes upstream as httputil.ReverseProxy's SetURL
	// sends it on every other path (the SDK's ?beta=true, for one).
	target := g.opts.Upstream.JoinPath(g.api.Path())
	switch {
	case target.RawQuery == "":
		target.RawQuery = r.URL.RawQuery
	case r.URL.RawQuery != "":
		target.RawQuery += "&" + r.URL.RawQuery
	}
	up, err := http.NewRequestWithContext(r.Context(), http.MethodPost, target.String(), bytes.NewReader(body))
	if err != nil {
		g.apiError(w, http.StatusInternalServerError, err.Error())
		return "json"
	}
	for _, h := range forwardedHeaders {
		if v := r.Header.Values(h); len(v) > 0 {
			up.Header[h] = v
		}
	}
	up.Header.Set("Content-Type", "application/json")
	up.Header.Set("Accept", "text/event-stream, application/json")
	resp, err := g.opts.Transport.RoundTrip(up)
	if err != nil {
		g.apiError(w, http.StatusBadGateway, "upstream: "+err.Error())
		return "json"
	}
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode/100 != 2 || mt != sse.MediaType {
		copyHeader(w.Header(), resp.Header)
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
		return "json"
	}
	copyHeader(w.Header(), resp.Header)
	w.Header().Del("Content-Length")
	kind := "sse"
	if Negotiate(r) {
		kind = "anth"
	}
	if err := Proxy(w, r, resp.Body, g.api, g.opts.Proxy); err != nil && g.opts.Log != nil {
		g.opts.Log.Printf("%s %q: %v", r.Method, r.URL.Path, err)
	}
	return kind
}

// copyHeader copies an upstream response's headers, but those of a hop.
func copyHeader(dst, src http.Header) {
	for k, v := range src {
		switch strings.ToLower(k) {
		case "connection", "keep-alive", "transfer-encoding", "trailer", "upgrade", "proxy-connection":
			continue
		}
		dst[k] = v
	}
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
