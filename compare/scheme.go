package compare

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/andybalholm/brotli"
	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/internal/testdata"
)

// A scheme is one way to serve a Messages API stream: what the client asks
// for, what the server does with the upstream's SSE, and what the client
// does with the body.
type scheme struct {
	id       string // its name in benchmarks
	name     string
	accept   string // the client's Accept
	encoding string // the client's Accept-Encoding
	baseline bool   // compressed SSE: what a careful server deploys today
	slow     bool   // over a second a workload: measured with -report only over HTTP/2
	serve    func(w http.ResponseWriter, r *http.Request, upstream []byte, a *api)
	read     func(resp *http.Response, a *api) (reading, error)
}

// reading is what a client got from a response.
type reading struct {
	text   string // the text of its text deltas
	deltas int    // its deltas (TEXT and DELTA frames for ANTH)
}

// compressor is what gzip, brotli and zstd writers have in common.
type compressor interface {
	io.WriteCloser
	Flush() error
	Reset(io.Writer)
}

const acceptSSE = "text/event-stream"

// schemes are the compressed SSE a server deploys today, plain SSE, and
// ANTH in every mode anthhttp.Proxy offers.
func schemes() []scheme {
	sseScheme := func(id, name, coding string, newc func() compressor) scheme {
		return scheme{id: id, name: name, accept: acceptSSE, encoding: coding, baseline: coding != "", serve: serveSSE(coding, newc), read: readSSE}
	}
	proxy := func(id, name, encoding string, opts anthhttp.ProxyOptions) scheme {
		return scheme{id: id, name: name, accept: anthclient.Accept, encoding: encoding, serve: func(w http.ResponseWriter, r *http.Request, upstream []byte, a *api) {
			// An event a Read, as from a live upstream that flushes each
			// event: given all at once, Proxy would send them in one write.
			anthhttp.Proxy(w, r, &testdata.EventReader{Rest: upstream}, a.gateway, opts)
		}, read: readANTH}
	}
	return []scheme{
		sseScheme("sse", "SSE", "", nil),
		sseScheme("sse-gzip5", "SSE + gzip 5 (klauspost, gzhttp's default)", "gzip", func() compressor {
			z, _ := kgzip.NewWriterLevel(nil, 5)
			return z
		}),
		sseScheme("sse-gzip6", "SSE + gzip 6 (compress/gzip's default)", "gzip", func() compressor {
			z, _ := gzip.NewWriterLevel(nil, 6)
			return z
		}),
		sseScheme("sse-gzip9", "SSE + gzip 9", "gzip", func() compressor {
			z, _ := gzip.NewWriterLevel(nil, 9)
			return z
		}),
		sseScheme("sse-br6", "SSE + brotli 6", "br", func() compressor { return brotli.NewWriterLevel(nil, 6) }),
		slow(sseScheme("sse-br11", "SSE + brotli 11", "br", func() compressor { return brotli.NewWriterLevel(nil, 11) })),
		sseScheme("sse-zstd3", "SSE + zstd 3 (default)", "zstd", func() compressor {
			z, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
			return z
		}),
		sseScheme("sse-zstd19", "SSE + zstd 19 (best)", "zstd", func() compressor {
			z, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
			return z
		}),
		proxy("anth", "ANTH", "", anthhttp.ProxyOptions{}),
		proxy("anth-pad16", "ANTH, padded to 16", anthhttp.AcceptEncoding, anthhttp.ProxyOptions{Padding: 16}),
		proxy("anth-deflate", "ANTH + anth-deflate", anthhttp.AcceptEncoding, anthhttp.ProxyOptions{}),
		browser(proxy("anth-deflate-browser", browserScheme, acceptEncodingBrowser, anthhttp.ProxyOptions{})),
	}
}

// browserScheme names anth-deflate as a browser's fetch gets it through the
// JavaScript package: fetch cannot name anth-deflate in Accept-Encoding,
// so the package's ACCEPT asks for it as a parameter of ANTH's media type
// (SPEC.md §11.1), and the answer says so in its Content-Type rather than
// in Content-Encoding.
const browserScheme = "ANTH + anth-deflate, as a browser asks"

// acceptBrowser is js/src/http.js's ACCEPT, and acceptEncodingBrowser what
// Chromium's fetch sends by itself, which names no anth-deflate.
const (
	acceptBrowser         = anthhttp.ContentType + ";" + anthhttp.CodingParam + "=" + anthhttp.AcceptEncoding + "," + anthhttp.ContentType + ",text/event-stream;q=0.9,application/json;q=0.8"
	acceptEncodingBrowser = "gzip, deflate, br, zstd"
)

func browser(s scheme) scheme {
	s.accept = acceptBrowser
	return s
}

func slow(s scheme) scheme {
	s.slow = true
	return s
}

// serveSSE passes the upstream's events on, each through the compressor
// (if any) and flushed, as a gateway behind a compressing middleware does,
// with the headers a careful server sends with a stream: no caching, no
// proxy buffering (nginx's X-Accel-Buffering), and Vary for a coded body.
// Compressors are pooled, as gzhttp pools them.
func serveSSE(coding string, newc func() compressor) func(http.ResponseWriter, *http.Request, []byte, *api) {
	var pool sync.Pool
	return func(w http.ResponseWriter, r *http.Request, upstream []byte, _ *api) {
		h := w.Header()
		h.Set("Content-Type", "text/event-stream; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		rc := http.NewResponseController(w)
		var out io.Writer = w
		var c compressor
		if newc != nil {
			h.Set("Content-Encoding", coding)
			h.Set("Vary", "Accept-Encoding")
			c, _ = pool.Get().(compressor)
			if c == nil {
				c = newc()
			}
			c.Reset(w)
			out = c
		}
		for s := upstream; len(s) > 0; {
			n := bytes.Index(s, []byte("\n\n")) + 2
			if n < 2 {
				n = len(s)
			}
			out.Write(s[:n])
			s = s[n:]
			if c != nil {
				c.Flush()
			}
			rc.Flush()
		}
		if c != nil {
			c.Close()
			rc.Flush()
			pool.Put(c)
		}
	}
}

// Decompressors, pooled as a client that reads many responses pools them.
var (
	gunzips  sync.Pool
	unbrotli sync.Pool
	unzstd   sync.Pool
)

// readSSE reads SSE as a Go client of compressed SSE does: the transport's
// decompressor, then the API's SSE client.
func readSSE(resp *http.Response, a *api) (reading, error) {
	var body io.Reader = resp.Body
	var done func()
	switch ce := resp.Header.Get("Content-Encoding"); ce {
	case "":
	case "gzip":
		z, _ := gunzips.Get().(*gzip.Reader)
		if z == nil {
			z = new(gzip.Reader)
		}
		if err := z.Reset(resp.Body); err != nil {
			return reading{}, err
		}
		body, done = z, func() { gunzips.Put(z) }
	case "br":
		z, _ := unbrotli.Get().(*brotli.Reader)
		if z == nil {
			z = brotli.NewReader(resp.Body)
		} else if err := z.Reset(resp.Body); err != nil {
			return reading{}, err
		}
		body, done = z, func() { unbrotli.Put(z) }
	case "zstd":
		z, _ := unzstd.Get().(*zstd.Decoder)
		if z == nil {
			var err error
			if z, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true)); err != nil {
				return reading{}, err
			}
		}
		if err := z.Reset(resp.Body); err != nil {
			return reading{}, err
		}
		body, done = z, func() { unzstd.Put(z) }
	default:
		return reading{}, errors.New("Content-Encoding " + ce)
	}
	if done != nil {
		defer done()
	}
	return a.readSSE(body)
}
