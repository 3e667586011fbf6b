package anthhttp_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/vocab"
)

// BenchmarkGatewayChatIDs is the gateway's CPU per stream of openai-go's
// recorded gpt-4o stream with logprobs (184 tokens), in memory: through a
// plain httputil.ReverseProxy (the baseline), through the Gateway to an
// ANTH client without ModelVocabularies, with them but a client that
// lists only the hash (the ordinary path: the decision is the request's),
// and to clients that list the hash and text, which get the IDs (plain
// and anth-deflate). ns/stream against reverse-proxy in the same run is
// the ratio.
func BenchmarkGatewayChatIDs(b *testing.B) {
	const name, model = "openai-go_streamaccumulator.sse", "gpt-4o-2024-05-13"
	body := testdata.Chat(b)[name]
	v := loadO200k(b)
	hash := v.Hash()
	hashOnly := string(vocab.AppendHolds(nil, vocab.Holds{Hashes: [][32]byte{hash}}))
	idsAndText := string(vocab.AppendHolds(nil, vocab.Holds{Hashes: [][32]byte{hash}, Text: true}))
	up, _ := url.Parse("http://upstream.test")
	tr := &memTransport{body: body}
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(up) }, Transport: tr, FlushInterval: -1}
	api := chat.API{Decoders: &chat.DecoderPool{}}
	gw := NewGateway(api, GatewayOptions{Upstream: up, Transport: tr})
	named := NewGateway(api, GatewayOptions{Upstream: up, Transport: tr, ModelVocabularies: map[string]*vocab.Vocabulary{model: v}})
	for _, c := range []struct {
		name, accept, encoding, holds string
		h                             http.Handler
	}{
		{"reverse-proxy", "text/event-stream", "", "", rp},
		{"gateway-anth", anthclient.Accept, "", "", gw},
		{"gateway-anth-named", anthclient.Accept, "", hashOnly, named},
		{"gateway-anth-ids", anthclient.Accept, "", idsAndText, named},
		{"gateway-anth-deflate-named", anthclient.Accept, AcceptEncoding, hashOnly, named},
		{"gateway-anth-deflate-ids", anthclient.Accept, AcceptEncoding, idsAndText, named},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			var w discardWriter
			for b.Loop() {
				req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"`+model+`","logprobs":true,"stream":true,"messages":[]}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", c.accept)
				if c.encoding != "" {
					req.Header.Set("Accept-Encoding", c.encoding)
				}
				if c.holds != "" {
					req.Header.Set(vocab.Header, c.holds)
				}
				w.h = http.Header{}
				c.h.ServeHTTP(&w, req)
			}
		})
	}
}

// loadO200k loads o200k_base from package vocab's testdata.
func loadO200k(t testing.TB) *vocab.Vocabulary {
	t.Helper()
	f, err := os.Open("../vocab/testdata/o200k_base.tiktoken.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	v, err := vocab.ParseTiktoken(b, vocab.O200KBaseSpecials())
	if err != nil {
		t.Fatal(err)
	}
	v, _ = v.Named("o200k_base")
	return v
}
