package anthclient

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/request"
)

// TestTransportMiddleware: streaming calls ask for ANTH, and an ANTH response
// reaches the SDK as the SSE the Encoder writes; everything else passes
// untouched; a cut response is an error.
func TestTransportMiddleware(t *testing.T) {
	mw := (&Transport{API: messages.API{}}).Middleware
	anth, _ := os.ReadFile(testdata.Path("golden", "layer0-basic.anth"))
	wantSSE, _ := os.ReadFile(testdata.Path("golden", "layer0-basic.sse"))
	call := func(body string, status int, ct string, payload []byte) (*http.Request, *http.Response, []byte, error) {
		req, _ := http.NewRequest("POST", "http://api.test/v1/messages", strings.NewReader(body))
		req.Header.Set("Accept", "application/json")
		var sent *http.Request
		resp, err := mw(req, func(r *http.Request) (*http.Response, error) {
			sent = r
			return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(bytes.NewReader(payload))}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, rerr := io.ReadAll(resp.Body)
		return sent, resp, got, rerr
	}
	sent, resp, got, err := call(`{"model":"m","stream": true}`, 200, anthhttp.ContentType, anth)
	if err != nil || sent.Header.Get("Accept") != Accept || resp.Header.Get("Content-Type") != "text/event-stream" || !bytes.Equal(got, wantSSE) {
		t.Fatalf("streaming call: Accept %q, Content-Type %q, %v, body equal %v", sent.Header.Get("Accept"), resp.Header.Get("Content-Type"), err, bytes.Equal(got, wantSSE))
	}
	for name, c := range map[string]struct {
		body, ct string
		status   int
		accept   string
	}{
		"not streaming": {`{"model":"m","stream":false}`, "application/json", 200, "application/json"},
		"SSE answer":    {`{"stream":true}`, "text/event-stream", 200, Accept},
		"error status":  {`{"stream":true}`, anthhttp.ContentType, 529, Accept},
		"a string true": {`{"stream":"true"}`, "application/json", 200, "application/json"},
		"nested stream": {`{"x":{"stream":true}}`, "application/json", 200, "application/json"},
	} {
		payload := []byte("untouched")
		sent, resp, got, err := call(c.body, c.status, c.ct, payload)
		if err != nil || sent.Header.Get("Accept") != c.accept || resp.Header.Get("Content-Type") != c.ct || !bytes.Equal(got, payload) {
			t.Errorf("%s: Accept %q, Content-Type %q, body %q, %v", name, sent.Header.Get("Accept"), resp.Header.Get("Content-Type"), got, err)
		}
	}
	// A cut stream reads as an error after what it carried.
	_, _, got, err = call(`{"stream":true}`, 200, anthhttp.ContentType, anth[:len(anth)-3])
	if !errors.Is(err, frame.ErrTruncated) || !bytes.Contains(got, []byte("content_block_delta")) {
		t.Fatalf("cut stream: %v after %d bytes", err, len(got))
	}
}

// TestMiddlewareSendANTH: with SendANTH a POST to /v1/messages goes as the
// ANTH of its JSON, replayable, with its length and Content-Type; any other
// call goes as it was; a body that cannot be read or converted is the
// call's error, and the call is not made.
func TestMiddlewareSendANTH(t *testing.T) {
	mw := (&Transport{API: messages.API{}, SendANTH: true}).Middleware
	body := `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"Hi"}]}`
	want, _ := request.AppendANTH(nil, []byte(body))
	for _, c := range []struct {
		method, url string
		anth        bool
	}{
		{"POST", "http://api.test/v1/messages", true},
		{"POST", "http://api.test/gateway/v1/messages", true},
		{"POST", "http://api.test/v1/messages/count_tokens", false},
		{"PUT", "http://api.test/v1/messages", false},
	} {
		req, _ := http.NewRequest(c.method, c.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		var sent *http.Request
		var sentBody []byte
		if _, err := mw(req, func(r *http.Request) (*http.Response, error) {
			sent = r
			sentBody, _ = io.ReadAll(r.Body)
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
		}); err != nil {
			t.Fatalf("%s %s: %v", c.method, c.url, err)
		}
		wantBody, wantCT := []byte(body), "application/json"
		if c.anth {
			wantBody, wantCT = want, anthhttp.ContentType
		}
		again := []byte(nil)
		if rc, err := sent.GetBody(); err == nil {
			again, _ = io.ReadAll(rc)
		}
		if !bytes.Equal(sentBody, wantBody) || !bytes.Equal(again, wantBody) || sent.ContentLength != int64(len(wantBody)) || sent.Header.Get("Content-Type") != wantCT {
			t.Errorf("%s %s: sent % X (again % X), length %d, Content-Type %q; want % X, %q", c.method, c.url, sentBody, again, sent.ContentLength, sent.Header.Get("Content-Type"), wantBody, wantCT)
		}
	}

	// A body that cannot be replayed is sent as it is.
	req, _ := http.NewRequest("POST", "http://api.test/v1/messages", io.NopCloser(strings.NewReader(body)))
	var sentBody []byte
	mw(req, func(r *http.Request) (*http.Response, error) {
		sentBody, _ = io.ReadAll(r.Body)
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
	})
	if string(sentBody) != body {
		t.Errorf("a body without GetBody: sent %q", sentBody)
	}

	broken := errors.New("broken")
	for name, getBody := range map[string]func() (io.ReadCloser, error){
		"GetBody fails": func() (io.ReadCloser, error) { return nil, broken },
		"Read fails":    func() (io.ReadCloser, error) { return io.NopCloser(iotest.ErrReader(broken)), nil },
		"not JSON":      func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(`{"model":`)), nil },
	} {
		req, _ := http.NewRequest("POST", "http://api.test/v1/messages", strings.NewReader(body))
		req.GetBody = getBody
		called := false
		resp, err := mw(req, func(r *http.Request) (*http.Response, error) {
			called = true
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
		})
		wantErr := broken
		if name == "not JSON" {
			wantErr = anthhttp.ErrMalformed
		}
		if !errors.Is(err, wantErr) || resp != nil || called {
			t.Errorf("%s: %v, %v, called %v; want %v and no call", name, resp, err, called, wantErr)
		}
	}
}

// TestMiddlewareResponses: only a 2xx ANTH response is converted, to SSE
// of unknown length that names the model the request asked for unless the
// options name one; an ANTH body in a coding the middleware does not read
// is an error.
func TestMiddlewareResponses(t *testing.T) {
	native := frame.AppendText(frame.AppendMagic(nil), 0, []byte("hi"))
	native = frame.AppendDone(native, frame.StopEndTurn, "")
	do := func(opts messages.API, status int, h http.Header, body []byte) (*http.Response, []byte, error) {
		req, _ := http.NewRequest("POST", "http://api.test/v1/messages", strings.NewReader(`{"model":"claude-asked","stream":true}`))
		h.Set("Content-Length", strconv.Itoa(len(body)))
		resp, err := (&Transport{API: opts}).Middleware(req, func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body))}, nil
		})
		if err != nil {
			return resp, nil, err
		}
		got, err := io.ReadAll(resp.Body)
		return resp, got, err
	}
	for _, status := range []int{199, 300, 404} {
		resp, got, err := do(messages.API{}, status, http.Header{"Content-Type": {anthhttp.ContentType}}, native)
		if err != nil || !bytes.Equal(got, native) || resp.Header.Get("Content-Type") != anthhttp.ContentType || resp.ContentLength != int64(len(native)) {
			t.Errorf("HTTP %d: %v, body % X, Content-Type %q; want it untouched", status, err, got, resp.Header.Get("Content-Type"))
		}
	}
	for _, c := range []struct {
		status      int
		model, want string
	}{{200, "", "claude-asked"}, {200, "claude-set", "claude-set"}, {299, "", "claude-asked"}} {
		resp, got, err := do(messages.API{Encoder: messages.EncoderOptions{Model: c.model}}, c.status, http.Header{"Content-Type": {anthhttp.ContentType}}, native)
		if err != nil || resp.ContentLength != -1 || resp.Header.Get("Content-Length") != "" || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("Model %q: %v, length %d, %v", c.model, err, resp.ContentLength, resp.Header)
		}
		if !bytes.Contains(got, []byte(`"model":"`+c.want+`"`)) {
			t.Errorf("Model %q: the message_start does not name %q:\n%s", c.model, c.want, got)
		}
	}
	if _, _, err := do(messages.API{}, 200, http.Header{"Content-Type": {anthhttp.ContentType}, "Content-Encoding": {"br"}}, native); !errors.Is(err, anthhttp.ErrMediaType) {
		t.Errorf("an ANTH body in br: %v, want ErrMediaType", err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(native)
	zw.Close()
	resp, got, err := do(messages.API{}, 200, http.Header{"Content-Type": {"application/json"}, "Content-Encoding": {"gzip"}}, gz.Bytes())
	if err != nil || !bytes.Equal(got, native) || resp.ContentLength != -1 || resp.Header.Get("Content-Length") != "" || !resp.Uncompressed {
		t.Errorf("a gzip body passed through: %v, % X, length %d, uncompressed %v", err, got, resp.ContentLength, resp.Uncompressed)
	}
}

// zeroReader returns nothing, and no error, n times, then reads r.
type zeroReader struct {
	n int
	r io.Reader
}

func (z *zeroReader) Read(p []byte) (int, error) {
	if z.n > 0 {
		z.n--
		return 0, nil
	}
	return z.r.Read(p)
}

// TestSSEBody: the body the SDK reads gives up after 100 reads in a row
// that return nothing, stops at the first conversion error without
// reading on, and reports a read error as it is.
func TestSSEBody(t *testing.T) {
	anth, _ := os.ReadFile(testdata.Path("golden", "layer0-basic.anth"))
	wantSSE, _ := os.ReadFile(testdata.Path("golden", "layer0-basic.sse"))
	read := func(src io.Reader) ([]byte, error) {
		return io.ReadAll(newStreamBody(src, io.NopCloser(nil), messages.API{}, false, nil))
	}
	for _, c := range []struct {
		name string
		src  io.Reader
		want []byte
		err  error
	}{
		{"99 empty reads", &zeroReader{99, bytes.NewReader(anth)}, wantSSE, nil},
		{"100 empty reads", &zeroReader{100, bytes.NewReader(anth)}, nil, io.ErrNoProgress},
		{"empty reads between data", io.MultiReader(bytes.NewReader(anth[:50]), &zeroReader{99, bytes.NewReader(anth[50:100])}, &zeroReader{99, bytes.NewReader(anth[100:])}), wantSSE, nil},
		{"data with its EOF", iotest.DataErrReader(bytes.NewReader(anth)), wantSSE, nil},
		{"malformed, then more", io.MultiReader(bytes.NewReader(frame.AppendBlock(frame.AppendMagic(nil), 3, frame.BlockStop)), iotest.ErrReader(errors.New("read past an error"))), nil, anthhttp.ErrMalformed},
		{"a read error", io.MultiReader(bytes.NewReader(anth[:9]), iotest.ErrReader(errors.New("reset")), bytes.NewReader(anth[9:])), nil, nil},
	} {
		got, err := read(c.src)
		switch {
		case c.name == "a read error":
			if err == nil || err.Error() != "reset" {
				t.Errorf("%s: %v, want the read error", c.name, err)
			}
		case c.err == nil && (err != nil || !bytes.Equal(got, c.want)):
			t.Errorf("%s: %v, SSE equal %v", c.name, err, bytes.Equal(got, c.want))
		case c.err != nil && !errors.Is(err, c.err):
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
}

// TestMiddlewareCodings: the middleware asks for anth-deflate and gzip,
// and hands the SDK SSE from either, as from an uncoded body.
func TestMiddlewareCodings(t *testing.T) {
	mw := (&Transport{API: messages.API{}}).Middleware
	wantSSE, _ := os.ReadFile(testdata.Path("golden", "layer0-basic.sse"))
	// Inside anth-deflate EVENT data travels raw (SPEC.md §11.2), as
	// Proxy sends it.
	anth, err := io.ReadAll(messages.NewDecoder(bytes.NewReader(wantSSE), messages.DecoderOptions{RawEvents: true}))
	if err != nil {
		t.Fatal(err)
	}
	var coded bytes.Buffer
	z := deflate.NewWriter(&coded, messages.API{}.Dictionary())
	for i := 0; i < len(anth); i += 7 {
		z.Write(anth[i:min(i+7, len(anth))])
		z.Flush()
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(wantSSE)
	zw.Close()
	for _, c := range []struct {
		ct, ce string
		body   []byte
	}{
		{anthhttp.ContentType, deflate.Encoding, coded.Bytes()},
		// A browser's form (SPEC.md §11.1): the coding named by the
		// media type's parameter, with no Content-Encoding.
		{anthhttp.ContentType + "; " + anthhttp.CodingParam + "=" + deflate.Encoding, "", coded.Bytes()},
		{"text/event-stream", "gzip", gz.Bytes()},
	} {
		req, _ := http.NewRequest("POST", "http://api.test/v1/messages", strings.NewReader(`{"stream":true}`))
		var sent *http.Request
		resp, err := mw(req, func(r *http.Request) (*http.Response, error) {
			sent = r
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {c.ct}, "Content-Encoding": {c.ce}}, Body: io.NopCloser(bytes.NewReader(c.body))}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		if err != nil || !bytes.Equal(got, wantSSE) || resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s, %q: %v, SSE equal %v, Content-Encoding %q", c.ct, c.ce, err, bytes.Equal(got, wantSSE), resp.Header.Get("Content-Encoding"))
		}
		if ae := sent.Header.Get("Accept-Encoding"); ae != anthhttp.AcceptEncoding+", gzip" {
			t.Errorf("Accept-Encoding %q", ae)
		}
	}
}
