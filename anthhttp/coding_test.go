package anthhttp_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

// fetchCoded POSTs to srv with the given Accept and Accept-Encoding and
// returns the response, its body still coded, read whole.
func fetchCoded(t *testing.T, srv *httptest.Server, accept, encoding string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL, nil)
	req.Header.Set("Accept", accept)
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, body
}

// browserAccept is what the JavaScript package's fetch sends (js ACCEPT):
// 128 bytes, the most a CORS-safelisted Accept may hold.
const browserAccept = "application/x-anthropic-binary;coding=anth-deflate,application/x-anthropic-binary,text/event-stream;q=0.9,application/json;q=0.8"

// TestCodedHeaders: a client gets anth-deflate only if it asked for ANTH
// and named the coding, and a padded response is never coded.
func TestCodedHeaders(t *testing.T) {
	rec := testdata.SSE(t)["layer0-basic.sse"]
	handlers := map[string]http.HandlerFunc{
		"NewResponseWriter": func(w http.ResponseWriter, r *http.Request) {
			fw := NewResponseWriter(w, r, messages.API{}, frame.WriterOptions{})
			fw.WriteText(0, []byte("x"))
			fw.WriteDone(frame.StopEndTurn, "")
		},
		"NewResponseWriter padded": func(w http.ResponseWriter, r *http.Request) {
			fw := NewResponseWriter(w, r, messages.API{}, frame.WriterOptions{Padding: 16})
			fw.WriteText(0, []byte("x"))
			fw.WriteDone(frame.StopEndTurn, "")
		},
		"Proxy": func(w http.ResponseWriter, r *http.Request) {
			// An upstream's own coding does not describe what Proxy writes.
			w.Header().Set("Content-Encoding", "br")
			Proxy(w, r, io.NopCloser(bytes.NewReader(rec)), messages.API{}, ProxyOptions{})
		},
		"Proxy padded": func(w http.ResponseWriter, r *http.Request) {
			Proxy(w, r, io.NopCloser(bytes.NewReader(rec)), messages.API{}, ProxyOptions{Padding: 16})
		},
	}
	for name, h := range handlers {
		srv := httptest.NewServer(h)
		for _, c := range []struct {
			accept, encoding, want, ct string
		}{
			{acceptANTH, AcceptEncoding, deflate.Encoding, ContentType},
			{acceptANTH, "gzip, anth-deflate;q=0.5", deflate.Encoding, ContentType},
			{acceptANTH, "anth-deflate;q=0", "", ContentType},
			{acceptANTH, "*", "", ContentType},
			{acceptANTH, "gzip", "", ContentType},
			{"text/event-stream", AcceptEncoding, "", "text/event-stream; charset=utf-8"},
			// A browser's fetch cannot set Accept-Encoding: it names the
			// coding as a parameter of the media type, and is answered in
			// kind, with no Content-Encoding for it to trip on (§11.1).
			{browserAccept, "gzip, deflate, br, zstd", "", ContentType + "; coding=anth-deflate"},
			{ContentType + "; coding=anth-deflate;q=0, " + ContentType, "", "", ContentType},
			{ContentType + "; coding=anth-deflate-2", "", "", ContentType},
			// Both: the Content-Encoding form, which the client named.
			{browserAccept, AcceptEncoding, deflate.Encoding, ContentType},
		} {
			want, wantCT := c.want, c.ct
			if strings.HasSuffix(name, "padded") && wantCT != "text/event-stream; charset=utf-8" {
				want, wantCT = "", ContentType
			}
			resp, _ := fetchCoded(t, srv, c.accept, c.encoding)
			if got := resp.Header.Get("Content-Encoding"); got != want {
				t.Errorf("%s, Accept-Encoding %q, Accept %q: Content-Encoding %q, want %q", name, c.encoding, c.accept, got, want)
			}
			if got := resp.Header.Get("Content-Type"); got != wantCT {
				t.Errorf("%s, Accept-Encoding %q, Accept %q: Content-Type %q, want %q", name, c.encoding, c.accept, got, wantCT)
			}
			if _, err := readFrames(resp); err != nil {
				t.Errorf("%s, Accept-Encoding %q: %v", name, c.encoding, err)
			}
		}
		srv.Close()
	}
}

// TestCodedProxy: every recording, proxied with anth-deflate, reads back
// through NewFrameReader as the same response as without it (the same SSE
// once converted back: EVENT data travels raw inside the coding), in fewer
// bytes over all; and a coded response cut anywhere reads as truncated.
func TestCodedProxy(t *testing.T) {
	recs := testdata.SSE(t)
	names := make([]string, 0, len(recs))
	for name := range recs {
		names = append(names, name)
	}
	sort.Strings(names)
	var plainBytes, codedBytes int
	for _, name := range names {
		rec := recs[name]
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			Proxy(w, r, io.NopCloser(bytes.NewReader(rec)), messages.API{}, ProxyOptions{})
		}))
		plainResp, plain := fetchCoded(t, srv, acceptANTH, "")
		codedResp, coded := fetchCoded(t, srv, acceptANTH, AcceptEncoding)
		srv.Close()
		if codedResp.Header.Get("Content-Encoding") != deflate.Encoding {
			t.Fatalf("%s: not coded", name)
		}
		plainBytes += len(plain)
		codedBytes += len(coded)
		want, werr := asSSE(plainResp)
		got, gerr := asSSE(codedResp)
		if diff := cmp.Diff(want, got); diff != "" || (werr == nil) != (gerr == nil) {
			t.Fatalf("%s: coded and plain differ (%v, %v) (-plain +coded):\n%s", name, werr, gerr, diff)
		}
		if werr != nil {
			continue // the error recording: its stream ends with ERROR, read above
		}
		for cut := range len(coded) {
			resp := &http.Response{StatusCode: 200, Header: codedResp.Header, Body: io.NopCloser(bytes.NewReader(coded[:cut]))}
			if _, err := readFrames(resp); !errors.Is(err, frame.ErrTruncated) {
				t.Fatalf("%s cut at %d of %d: %v, want truncated", name, cut, len(coded), err)
			}
		}
	}
	if codedBytes >= plainBytes {
		t.Fatalf("coded %d bytes, plain %d", codedBytes, plainBytes)
	}
	t.Logf("15 recordings through Proxy: ANTH %d bytes, anth-deflate %d", plainBytes, codedBytes)
}

// asSSE reads a response with NewFrameReader and writes its frames as SSE.
func asSSE(resp *http.Response) (string, error) {
	fs, err := readFrames(resp)
	var out bytes.Buffer
	enc := messages.NewEncoder(&out, messages.EncoderOptions{})
	w := frame.NewWriter(enc, frame.WriterOptions{})
	for _, f := range fs {
		if werr := w.WriteFrame(f); werr != nil {
			return out.String(), werr
		}
	}
	return out.String(), err
}

// TestCodedResponseWriter: a handler's frames reach a coded client as
// they were written, each as soon as it is written, coalesced or not.
func TestCodedResponseWriter(t *testing.T) {
	for _, opts := range []frame.WriterOptions{{}, {Coalesce: 5e6}} {
		var want []frame.Frame
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fw := NewResponseWriter(w, r, messages.API{}, opts)
			want = want[:0]
			for _, p := range strings.Fields("the model streams 文本 the model streams") {
				fw.WriteText(0, []byte(p+" "))
				want = append(want, frame.Frame{Type: frame.TypeText, Payload: append([]byte{0, 0}, p+" "...)})
			}
			fw.WriteDone(frame.StopEndTurn, "")
			want = append(want, frame.Frame{Type: frame.TypeDone, Payload: []byte{byte(frame.StopEndTurn)}})
			fw.Flush()
		}))
		resp, _ := fetchCoded(t, srv, acceptANTH, AcceptEncoding)
		srv.Close()
		got, err := readFrames(resp)
		if err != nil || resp.Header.Get("Content-Encoding") != deflate.Encoding {
			t.Fatalf("%+v: %v, Content-Encoding %q", opts, err, resp.Header.Get("Content-Encoding"))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%+v: frames differ (-written +read):\n%s", opts, diff)
		}
	}
}

var (
	codedValidRow   = regexp.MustCompile("^\\| `(anth-deflate-[a-z0-9-]+)` \\| `([0-9A-F ]+)` \\| `([0-9A-F ]+)` \\|$")
	codedInvalidRow = regexp.MustCompile("^\\| `(anth-deflate-[a-z0-9-]+)` \\| `([0-9A-F ]+)` \\| (Err[A-Za-z]+) \\| ([0-9]+) \\|$")
)

// TestDeflateVectors: SPEC.md §11.5's coded bodies decode to their ANTH
// streams with the EVENT dictionary, and the Writer writes the one it
// says the Writer writes (the other keeps its whole sync flush); the
// invalid ones fail as the table says.
func TestDeflateVectors(t *testing.T) {
	for _, m := range testdata.SpecRows(t, "11.5", codedValidRow) {
		anth, coded := testdata.Hex(t, m[2]), testdata.Hex(t, m[3])
		got, err := io.ReadAll(deflate.NewReader(bytes.NewReader(coded), messages.API{}.Dictionary()))
		if err != nil || !bytes.Equal(got, anth) {
			t.Errorf("%s: decodes to % X, %v", m[1], got, err)
		}
		if m[1] != "anth-deflate-stream" {
			continue
		}
		// The frames, one record each, as the vector says it was written.
		var out bytes.Buffer
		z := deflate.NewWriter(&out, messages.API{}.Dictionary())
		for rest := anth; len(rest) > 0; {
			n := len(frame.Magic)
			if len(out.Bytes()) > 0 || rest[0] != 'A' {
				n = 0
			}
			_, k, _ := frame.Parse(rest[n:])
			z.Write(rest[:n+k])
			z.Flush()
			rest = rest[n+k:]
		}
		if !bytes.Equal(out.Bytes(), coded) {
			t.Errorf("%s: the Writer writes % X", m[1], out.Bytes())
		}
	}
	kinds := map[string]error{"ErrMalformed": deflate.ErrMalformed, "ErrTruncated": deflate.ErrTruncated}
	for _, m := range testdata.SpecRows(t, "11.5", codedInvalidRow) {
		_, err := io.ReadAll(deflate.NewReader(bytes.NewReader(testdata.Hex(t, m[2])), messages.API{}.Dictionary()))
		var e *deflate.Error
		if !errors.Is(err, kinds[m[3]]) || !errors.As(err, &e) || strconv.FormatInt(e.Offset, 10) != m[4] {
			t.Errorf("%s: %v, want %s at offset %s", m[1], err, m[3], m[4])
		}
	}
}
