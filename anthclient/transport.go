package anthclient

import (
	"bytes"
	"compress/gzip"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/internal/iox"
	"github.com/layer0/anth/sse"
	"github.com/layer0/anth/vocab"
)

// Accept is the Accept header a client sends to ask for ANTH and keep SSE
// and JSON acceptable: a server that does not know ANTH answers as it
// always has. It is under 128 bytes, so it stays CORS-safelisted.
const Accept = anthhttp.ContentType + ", text/event-stream;q=0.9, application/json;q=0.8"

// Transport is an http.RoundTripper that receives an API's streaming
// responses as ANTH and hands its caller the API's own event stream, so
// code written for the API — an official SDK, a plain http.Client — reads
// it unchanged. Use it as an http.Client's Transport, or, for the official
// Anthropic Go SDK, through Middleware:
// option.WithMiddleware(t.Middleware).
//
// On a streaming call — a POST to API.Path whose JSON body API.Streaming
// accepts — it asks for ANTH (Accept) and anth-deflate (Accept-Encoding,
// with gzip for a server that answers with the event stream), and converts
// a 2xx response whose Content-Type is anthhttp.ContentType; any other
// request and response pass through untouched, a gzip body decoded as
// http.Transport would have. A stream cut before its DONE or ERROR ends in an error the
// caller reads, not in a shorter message. Cancelling the request's context
// stops it as it stops any request.
type Transport struct {
	// API is the API whose streams are converted (messages.API{} for the
	// Anthropic Messages API). It is required.
	API bridge.API
	// Base makes the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// SendANTH sends the body of every POST to API.Path as ANTH (SPEC.md
	// §5), with Content-Type anthhttp.ContentType. Only a server that
	// reads ANTH requests (anthhttp.Gateway, anth proxy) accepts it: set
	// it for those alone.
	SendANTH bool
	// Resume configures how a response that names itself resumable
	// (anthhttp.ResumeIDHeader, SPEC.md §13) is resumed when its body
	// fails or ends before its DONE or ERROR: the resume requests go
	// through the same next (Base, or the SDK's middleware chain), and
	// the caller reads one unbroken event stream. Its Transport is not
	// used.
	Resume ResumeOptions
	// Vocabularies are the vocabularies the client holds. A streaming
	// call lists them in vocab.Header (SPEC.md §3.14), and a response
	// whose text a server sends as token IDs (a VOCAB frame without the
	// text flag naming one of them, §3.13) reaches the caller as the
	// API's ordinary text deltas, made from the IDs (vocab.Text); one
	// naming a vocabulary not held fails with vocab.ErrUnknownVocabulary,
	// and an ID the vocabulary lacks with vocab.ErrUnknownToken, never
	// with text left out.
	Vocabularies []*vocab.Vocabulary
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return t.Middleware(req, base.RoundTrip)
}

// Middleware is t as a client middleware, the function type of the
// official Anthropic Go SDK's option.Middleware written out (so this
// package does not import the SDK): it converts as RoundTrip does, with
// next making the request. t.Base is not used.
func (t *Transport) Middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	body, err := requestBody(req, t.API)
	if t.SendANTH && (body != nil || err != nil) {
		if err != nil {
			return nil, err
		}
		if req, err = sendANTH(req, body, t.API); err != nil {
			return nil, err
		}
	}
	if body == nil || !t.API.Streaming(body) {
		return next(req)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Accept", Accept)
	// Naming an encoding turns off the transport's own gzip, so it is
	// named here too and undone below, as the transport would.
	req.Header.Set("Accept-Encoding", anthhttp.AcceptEncoding+", gzip")
	if len(t.Vocabularies) > 0 {
		holds := vocab.Holds{Hashes: make([][32]byte, len(t.Vocabularies))}
		for i, v := range t.Vocabularies {
			holds.Hashes[i] = v.Hash()
		}
		req.Header.Set(vocab.Header, string(vocab.AppendHolds(nil, holds)))
	}
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
	mt, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != anthhttp.ContentType {
		return resp, nil
	}
	src, err := decodedBody(resp, t.API)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	coded := strings.EqualFold(strings.TrimSpace(resp.Header.Get("Content-Encoding")), deflate.Encoding) ||
		strings.EqualFold(params[anthhttp.CodingParam], deflate.Encoding)
	var closer io.Closer = resp.Body
	if resp.Header.Get(anthhttp.ResumeIDHeader) != "" {
		rs := newResumer(req, resp, src, t.API, next, t.Resume)
		src, closer = rs, rs
	}
	if len(t.Vocabularies) > 0 {
		src = newTokenText(src, t.Vocabularies)
	}
	resp.Body = newStreamBody(src, closer, t.API, coded, body)
	resp.Header.Del("Content-Encoding")
	resp.Header.Set("Content-Type", sse.MediaType)
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	return resp, nil
}

// requestBody returns the JSON body of a POST to api's Path, read through
// GetBody so req's own is untouched; nil for any other request, and for a
// body that cannot be replayed.
func requestBody(req *http.Request, api bridge.API) ([]byte, error) {
	if req.Method != http.MethodPost || req.GetBody == nil || !strings.HasSuffix(req.URL.Path, api.Path()) {
		return nil, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return io.ReadAll(io.LimitReader(body, 64<<20))
}

// sendANTH returns req with its JSON body, js, as ANTH.
func sendANTH(req *http.Request, js []byte, api bridge.API) (*http.Request, error) {
	anth, err := api.AppendRequestANTH(nil, js)
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(anth))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(anth)), nil }
	req.ContentLength = int64(len(anth))
	req.Header.Set("Content-Type", anthhttp.ContentType)
	return req, nil
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

// streamBody is an ANTH response body read as the API's event stream: an
// Encoder between the body and the reader.
type streamBody struct {
	src  io.Reader // the ANTH stream, decoded from body
	body io.Closer
	enc  bridge.Encoder
	out  bytes.Buffer // SSE not yet read
	in   []byte
	err  error // what follows out: io.EOF at the end of a whole response
}

func newStreamBody(src io.Reader, body io.Closer, api bridge.API, coded bool, request []byte) *streamBody {
	b := &streamBody{src: src, body: body, in: make([]byte, 16<<10)}
	b.enc = api.NewEncoder(&b.out, coded, request)
	return b
}

func (b *streamBody) Read(p []byte) (int, error) {
	for b.out.Len() == 0 {
		if b.err != nil {
			return 0, b.err
		}
		n, err := iox.Reader{R: b.src}.Read(b.in)
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

func (b *streamBody) Close() error { return b.body.Close() }
