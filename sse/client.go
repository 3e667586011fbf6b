package sse

import (
	"bytes"
	"compress/gzip"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/request"

	"github.com/layer0/anth/deflate"
)

// Accept is the Accept header a client sends to ask for ANTH and keep SSE
// and JSON acceptable: a server that does not know ANTH answers as it
// always has. It is under 128 bytes, so it stays CORS-safelisted.
const Accept = ContentType + ", text/event-stream;q=0.9, application/json;q=0.8"

// ClientOptions configure ClientMiddleware.
type ClientOptions struct {
	// Encoder configures the conversion of ANTH responses to SSE.
	Encoder EncoderOptions
	// SendANTH sends the body of every POST to /v1/messages as ANTH
	// (SPEC.md §5), with Content-Type ContentType. Only a server that
	// reads ANTH requests (NewGateway, anth proxy) accepts it: set it for
	// those alone.
	SendANTH bool
}

// ClientMiddleware returns an HTTP client middleware for the official
// Anthropic Go SDK — option.WithMiddleware(sse.ClientMiddleware(opts)) —
// that receives streaming responses as ANTH and hands the SDK the SSE it
// already reads, so its code does not change. The function type is the
// SDK's option.Middleware, written out, so this package does not import
// the SDK.
//
// It asks for ANTH (Accept) and anth-deflate (Accept-Encoding, with gzip
// for a server that answers SSE) on streaming calls — requests whose JSON
// body has "stream": true — and converts only a 2xx response whose
// Content-Type is ContentType; any other request and response pass through
// untouched, a gzip body decoded as the transport would have. A
// stream cut before its DONE or ERROR ends in an error the SDK reports, not
// in a shorter message. Cancelling the request's context stops it as it
// stops any request: the body is the transport's.
func ClientMiddleware(opts ClientOptions) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		stream, model := streaming(req)
		if opts.SendANTH && req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/v1/messages") {
			var err error
			if req, err = sendANTH(req); err != nil {
				return nil, err
			}
		}
		if !stream {
			return next(req)
		}
		req = req.Clone(req.Context())
		req.Header.Set("Accept", Accept)
		// Naming an encoding turns off the transport's own gzip, so it is
		// named here too and undone below, as the transport would.
		req.Header.Set("Accept-Encoding", AcceptEncoding+", gzip")
		resp, err := next(req)
		if err != nil {
			return resp, err
		}
		if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
			gunzip(resp)
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return resp, nil
		}
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != ContentType {
			return resp, nil
		}
		body, err := decodedBody(resp)
		if err != nil {
			resp.Body.Close()
			return nil, err
		}
		enc := opts.Encoder
		enc.Coded = strings.EqualFold(strings.TrimSpace(resp.Header.Get("Content-Encoding")), deflate.Encoding)
		if enc.Model == "" {
			// A stream from a server that never saw SSE names no model; the
			// one the request asked for is the best name for it.
			enc.Model = model
		}
		resp.Body = newSSEBody(body, resp.Body, enc)
		resp.Header.Del("Content-Encoding")
		resp.Header.Set("Content-Type", sseContentType)
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		return resp, nil
	}
}

// sendANTH returns req with its JSON body as ANTH.
func sendANTH(req *http.Request) (*http.Request, error) {
	if req.GetBody == nil {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	defer body.Close()
	js, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	anth, err := request.AppendANTH(nil, js)
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(anth))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(anth)), nil }
	req.ContentLength = int64(len(anth))
	req.Header.Set("Content-Type", ContentType)
	return req, nil
}

// streaming reports whether req is a call whose JSON body asks for a
// stream, and the model it names. It reads the body through GetBody,
// leaving req's own untouched.
func streaming(req *http.Request) (bool, string) {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return false, ""
	}
	body, err := req.GetBody()
	if err != nil {
		return false, ""
	}
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, 64<<20))
	if err != nil {
		return false, ""
	}
	if v, ok := jsonlex.Field(b, "stream"); !ok || string(v) != "true" {
		return false, ""
	}
	var model []byte
	if v, ok := jsonlex.Field(b, "model"); ok {
		model, _ = jsonlex.AppendUnquoted(nil, v)
	}
	return true, string(model)
}

// gunzip makes resp's body the gzip-decoded one, as http.Transport does for
// the gzip it asks for itself: the body is read through gzip, and the
// header and length no longer describe a coding.
func gunzip(resp *http.Response) {
	resp.Body = &gzipBody{body: resp.Body}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
}

// gzipBody reads a gzip body, opening the gzip stream at the first Read.
type gzipBody struct {
	body io.ReadCloser
	zr   *gzip.Reader
	err  error
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.zr == nil && g.err == nil {
		g.zr, g.err = gzip.NewReader(g.body)
	}
	if g.err != nil {
		return 0, g.err
	}
	return g.zr.Read(p)
}

func (g *gzipBody) Close() error { return g.body.Close() }

// sseBody is an ANTH response body read as SSE: an Encoder between the
// body and the reader.
type sseBody struct {
	src   io.Reader // the ANTH stream, decoded from body
	body  io.Closer
	enc   *Encoder
	out   bytes.Buffer // SSE not yet read
	in    []byte
	err   error // what follows out: io.EOF at the end of a whole response
	empty int   // reads in a row that returned nothing
}

func newSSEBody(src io.Reader, body io.Closer, opts EncoderOptions) *sseBody {
	b := &sseBody{src: src, body: body, in: make([]byte, 16<<10)}
	b.enc = NewEncoder(&b.out, opts)
	return b
}

func (b *sseBody) Read(p []byte) (int, error) {
	for b.out.Len() == 0 {
		if b.err != nil {
			return 0, b.err
		}
		n, err := b.src.Read(b.in)
		if n == 0 && err == nil {
			if b.empty++; b.empty >= 100 {
				b.err = io.ErrNoProgress
			}
			continue
		}
		b.empty = 0
		if n > 0 {
			if _, werr := b.enc.Write(b.in[:n]); werr != nil {
				b.err = werr
				continue
			}
		}
		switch {
		case err == io.EOF:
			// A response cut before its end is an error, not an end.
			if b.err = b.enc.Close(); b.err == nil {
				b.err = io.EOF
			}
		case err != nil:
			b.err = err
		}
	}
	return b.out.Read(p)
}

func (b *sseBody) Close() error { return b.body.Close() }
