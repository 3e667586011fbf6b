package anthclient

import (
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/sse"
)

// NewFrameReader reads a streaming response of api's of either kind as
// ANTH frames: an ANTH body directly, or inflated if its Content-Encoding
// is anth-deflate (SPEC.md §11), an event stream through api's Decoder, so
// the client gets the same frames either way (SPEC.md §7a), and a response
// cut short reads as anthhttp.ErrTruncated either way.
// anthhttp.AcceptEncoding is what a request sends to be answered with
// anth-deflate.
//
// A response that is not a success gives a *StatusError, with the API's
// error type and message when its body is the API's JSON error; a success
// whose Content-Type is neither, or whose Content-Encoding is one this
// package does not read, gives an *anthhttp.Error of kind
// anthhttp.ErrMediaType. On error NewFrameReader closes the body;
// otherwise the caller does.
//
// A response that names itself resumable (anthhttp.ResumeIDHeader, SPEC.md
// §13) is resumed when its ANTH body fails or ends before its DONE or
// ERROR, as NewFrameReaderOptions does with the zero ResumeOptions.
func NewFrameReader(resp *http.Response, api bridge.API) (*frame.Reader, error) {
	return NewFrameReaderOptions(resp, api, ResumeOptions{})
}

// NewFrameReaderOptions is NewFrameReader with the resume requests made as
// opts say: when the ANTH body of a response with anthhttp.ResumeIDHeader
// fails or ends before its DONE or ERROR, it asks, with resp.Request's URL
// and headers (a GET, SPEC.md §13.2), for the frames after the last whole
// one read, up to opts.Tries times with backoff, and goes on with them:
// the frames read are one unbroken stream. Only when resuming fails does
// the reader report the cut, as an *anthhttp.Error matching
// anthhttp.ErrTruncated and wrapping why resuming failed (a *StatusError:
// 404, 410, 416). resp.Body is replaced by one that closes whichever
// response is being read. An event-stream body, or one without the
// header, is read as NewFrameReader always did.
func NewFrameReaderOptions(resp *http.Response, api bridge.API, opts ResumeOptions) (*frame.Reader, error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, statusError(resp, api)
	}
	body, err := decodedBody(resp, api)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case anthhttp.ContentType:
		if resp.Header.Get(anthhttp.ResumeIDHeader) != "" && resp.Request != nil {
			rt := opts.Transport
			if rt == nil {
				rt = http.DefaultTransport
			}
			rs := newResumer(resp.Request, resp, body, api, rt.RoundTrip, opts)
			resp.Body = rs
			body = rs
		}
		return frame.NewReader(body, frame.ReaderOptions{}), nil
	case sse.MediaType:
		return frame.NewReader(api.NewDecoder(body, false), frame.ReaderOptions{}), nil
	}
	resp.Body.Close()
	return nil, &anthhttp.Error{Offset: -1, Err: anthhttp.ErrMediaType, Detail: "Content-Type " + strconv.Quote(ct) + ", want " + anthhttp.ContentType + " or " + sse.MediaType}
}

// decodedBody returns the body of resp as its Content-Encoding, or its
// Content-Type's coding parameter, says to read it: anth-deflate inflated,
// an unencoded body as it is.
func decodedBody(resp *http.Response, api bridge.API) (io.Reader, error) {
	switch ce := strings.TrimSpace(resp.Header.Get("Content-Encoding")); {
	case ce == "" || strings.EqualFold(ce, "identity"):
		if _, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); strings.EqualFold(params[anthhttp.CodingParam], deflate.Encoding) {
			return newInflating(resp.Body, api.Dictionary()), nil // a browser's form (SPEC.md §11.1)
		}
		return resp.Body, nil
	case strings.EqualFold(ce, deflate.Encoding):
		return newInflating(resp.Body, api.Dictionary()), nil
	default:
		return nil, &anthhttp.Error{Offset: -1, Err: anthhttp.ErrMediaType, Detail: "Content-Encoding " + strconv.Quote(ce) + ", want none or " + deflate.Encoding}
	}
}

// statusError reads a failed response's body, at most 64 KiB of it.
func statusError(resp *http.Response, api bridge.API) *StatusError {
	e := &StatusError{StatusCode: resp.StatusCode}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e.Type, e.Message, _ = api.ParseError(body)
	return e
}
