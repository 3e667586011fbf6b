package anthhttp_test

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/vocab"
)

// testVocabularies are vocab/testdata's tok512 (llama2.c, SentencePiece)
// and tiny.tiktoken (byte-level); a missing file fails the test.
func testVocabularies(t *testing.T) []*vocab.Vocabulary {
	t.Helper()
	var vs []*vocab.Vocabulary
	for _, name := range []string{"tok512.bin", "tiny.tiktoken"} {
		b, err := os.ReadFile("../vocab/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := vocab.Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		vs = append(vs, v)
	}
	return vs
}

func hashHex(v *vocab.Vocabulary) string {
	h := v.Hash()
	return hex.EncodeToString(h[:])
}

// vocabGateway is a Gateway holding vs in front of a recordingUpstream,
// and a client that asks for no compression of its own.
func vocabGateway(t *testing.T, opts GatewayOptions) (*httptest.Server, *recordingUpstream, *http.Client) {
	t.Helper()
	up := &recordingUpstream{}
	us := httptest.NewServer(up)
	t.Cleanup(us.Close)
	opts.Upstream, _ = url.Parse(us.URL)
	gw := httptest.NewServer(NewGateway(messages.API{}, opts))
	t.Cleanup(gw.Close)
	return gw, up, &http.Client{Transport: &http.Transport{DisableCompression: true}}
}

func do(t *testing.T, c *http.Client, method, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestGatewayVocabularies: SPEC.md §3.16. Each vocabulary held is served
// at its hash, as a vocabulary file that loads (ParseFile checks it) to
// the hash its path names, immutable, with the hash as its strong ETag, a
// 304 for If-None-Match, HEAD's headers without the body, gzip when asked
// for under a tag of its own; an unknown hash is 404 and another method
// 405, and none of it goes upstream.
func TestGatewayVocabularies(t *testing.T) {
	vs := testVocabularies(t)
	gw, up, c := vocabGateway(t, GatewayOptions{Vocabularies: vs})
	for _, v := range vs {
		x := hashHex(v)
		u := gw.URL + VocabulariesPath + x
		resp, body := do(t, c, "GET", u)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
		}
		want := map[string]string{
			"Content-Type":   VocabularyContentType,
			"Cache-Control":  "public, max-age=31536000, immutable",
			"Etag":           `"` + x + `"`,
			"Content-Length": strconv.Itoa(len(body)),
		}
		for k, w := range want {
			if got := resp.Header.Get(k); got != w {
				t.Errorf("%s: %s %q, want %q", x, k, got, w)
			}
		}
		if !strings.Contains(strings.Join(resp.Header.Values("Vary"), ","), "Accept-Encoding") || resp.Header.Get(RequestIDHeader) == "" {
			t.Errorf("%s: Vary %q, request ID %q", x, resp.Header.Values("Vary"), resp.Header.Get(RequestIDHeader))
		}
		got, err := vocab.ParseFile(body)
		if err != nil {
			t.Fatalf("%s: the body is no vocabulary file: %v", x, err)
		}
		if hashHex(got) != x || !bytes.Equal(body, v.AppendFile(nil)) {
			t.Errorf("%s: the body holds vocabulary %s", x, hashHex(got))
		}

		resp, b := do(t, c, "HEAD", u)
		if resp.StatusCode != 200 || len(b) != 0 || resp.Header.Get("Content-Length") != strconv.Itoa(len(body)) || resp.Header.Get("Etag") != `"`+x+`"` {
			t.Errorf("HEAD: %d, %d bytes, Content-Length %q, ETag %q", resp.StatusCode, len(b), resp.Header.Get("Content-Length"), resp.Header.Get("Etag"))
		}
		for _, inm := range []string{`"` + x + `"`, `W/"` + x + `"`, `"other", "` + x + `"`, "*"} {
			resp, b := do(t, c, "GET", u, "If-None-Match", inm)
			if resp.StatusCode != http.StatusNotModified || len(b) != 0 || resp.Header.Get("Etag") != `"`+x+`"` || resp.Header.Get("Cache-Control") == "" {
				t.Errorf("If-None-Match %s: %d, %d bytes, ETag %q", inm, resp.StatusCode, len(b), resp.Header.Get("Etag"))
			}
		}
		if resp, _ := do(t, c, "GET", u, "If-None-Match", `"`+strings.Repeat("0", 64)+`"`); resp.StatusCode != 200 {
			t.Errorf("If-None-Match of another tag: %d", resp.StatusCode)
		}

		for _, m := range []string{"POST", "PUT", "DELETE"} {
			resp, b := do(t, c, m, u)
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" || !bytes.Contains(b, []byte(`"type":"error"`)) {
				t.Errorf("%s: %d, Allow %q, %s", m, resp.StatusCode, resp.Header.Get("Allow"), b)
			}
		}

		resp, gz := do(t, c, "GET", u, "Accept-Encoding", "br;q=1, gzip;q=0.5")
		if !compresses(body) {
			// tiny.tiktoken's file is 106 bytes: gzip's would be longer.
			if resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(gz, body) {
				t.Errorf("a file gzip does not shrink: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
			}
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if resp.Header.Get("Content-Encoding") != "gzip" || err != nil {
			t.Fatalf("gzip: Content-Encoding %q, %v", resp.Header.Get("Content-Encoding"), err)
		}
		if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, body) || len(gz) >= len(body) {
			t.Errorf("gzip: %d bytes giving %d, want %d giving the file", len(gz), len(plain), len(body))
		}
		gzTag := resp.Header.Get("Etag")
		if gzTag == `"`+x+`"` || !strings.HasPrefix(gzTag, `"`+x) {
			t.Errorf("gzip's ETag %q, want its own, after the hash", gzTag)
		}
		if resp, _ := do(t, c, "GET", u, "Accept-Encoding", "gzip", "If-None-Match", gzTag); resp.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match of the gzip tag: %d", resp.StatusCode)
		}
		if resp, _ := do(t, c, "GET", u, "Accept-Encoding", "gzip;q=0, identity"); resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("gzip;q=0: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
		}

	}
	for _, p := range []string{strings.Repeat("0", 64), strings.ToUpper(hashHex(vs[0])), hashHex(vs[0]) + "/", "", "x"} {
		resp, b := do(t, c, "GET", gw.URL+VocabulariesPath+p)
		if resp.StatusCode != http.StatusNotFound || !bytes.Contains(b, []byte("not_found_error")) {
			t.Errorf("%q: %d %s", p, resp.StatusCode, b)
		}
	}
	if len(up.paths) != 0 {
		t.Errorf("went upstream: %q", up.paths)
	}
}

// TestGatewayVocabulariesOpen: a vocabulary needs no credentials (a page
// fetches it with a plain GET), gets the gateway's CORS headers, and is
// logged as KindVocabulary; a Gateway that holds none passes the path
// upstream, as before.
func TestGatewayVocabulariesOpen(t *testing.T) {
	vs := testVocabularies(t)
	var logs bytes.Buffer
	gw, up, c := vocabGateway(t, GatewayOptions{Vocabularies: vs, CORSOrigins: []string{"https://app.example"},
		Credentials: &Credentials{Key: "k", Tokens: map[string]string{"t": "app"}}, Logger: jsonLogger(&logs)})
	u := gw.URL + VocabulariesPath + hashHex(vs[1])
	resp, _ := do(t, c, "GET", u, "Origin", "https://app.example")
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("from a page: %d, Access-Control-Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	if resp, _ := do(t, c, "GET", gw.URL+"/v1/models"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("another path without a token: %d, want 401", resp.StatusCode)
	}
	lines := logLines(t, &logs)
	if len(lines) == 0 || lines[0]["kind"] != KindVocabulary || lines[0]["status"] != float64(200) {
		t.Errorf("log: %v", lines)
	}

	plain, up2, c2 := vocabGateway(t, GatewayOptions{})
	if resp, _ := do(t, c2, "GET", plain.URL+VocabulariesPath+hashHex(vs[1])); resp.StatusCode != http.StatusNotFound {
		t.Errorf("no vocabularies: %d, want the upstream's 404", resp.StatusCode)
	}
	if want := []string{VocabulariesPath + hashHex(vs[1])}; !cmp.Equal(up2.paths, want) || len(up.paths) != 0 {
		t.Errorf("upstream saw %q, want %q", up2.paths, want)
	}
}

func compresses(b []byte) bool {
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return z.Len() < len(b)
}

// BenchmarkGatewayVocabulary: a request for cl100k_base's vocabulary
// file from a Gateway (the first request writes and gzips it; these are
// every later one): 200 gzipped, 200 identity, and 304 for its ETag,
// against the baseline an operator would otherwise deploy, the same file
// from http.FileServer (identity, its own ETag-less Last-Modified
// validation). Bytes/op is the body's size, so MB/s is body bytes served.
func BenchmarkGatewayVocabulary(b *testing.B) {
	zb, err := os.ReadFile("../vocab/testdata/cl100k_base.tiktoken.gz")
	if err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zb))
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	v, err := vocab.Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	file := v.AppendFile(nil)
	dir := b.TempDir()
	if err := os.WriteFile(dir+"/cl100k_base.antv", file, 0o644); err != nil {
		b.Fatal(err)
	}
	gw := NewGateway(messages.API{}, GatewayOptions{Upstream: &url.URL{Scheme: "http", Host: "127.0.0.1:1"}, Vocabularies: []*vocab.Vocabulary{v}})
	path := VocabulariesPath + hashHex(v)
	run := func(b *testing.B, h http.Handler, path string, header ...string) {
		req := httptest.NewRequest("GET", path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		b.SetBytes(int64(w.Body.Len()))
		b.ReportAllocs()
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 && w.Code != 304 {
				b.Fatal(w.Code)
			}
		}
	}
	b.Run("gateway/gzip", func(b *testing.B) { run(b, gw, path, "Accept-Encoding", "gzip") })
	b.Run("gateway/identity", func(b *testing.B) { run(b, gw, path) })
	b.Run("gateway/304", func(b *testing.B) { run(b, gw, path, "If-None-Match", `"`+hashHex(v)+`"`) })
	b.Run("baseline/FileServer", func(b *testing.B) { run(b, http.FileServer(http.Dir(dir)), "/cl100k_base.antv") })
}

// A Gateway holding a vocabulary serves it by hash, immutable, so a
// browser fetches it once (SPEC.md §3.16).
func ExampleGatewayOptions_vocabularies() {
	data, err := os.ReadFile("../vocab/testdata/tok512.bin") // any form vocab.Parse reads
	if err != nil {
		panic(err)
	}
	v, err := vocab.Parse(data)
	if err != nil {
		panic(err)
	}
	upstream, _ := url.Parse("https://api.anthropic.com")
	gw := NewGateway(messages.API{}, GatewayOptions{Upstream: upstream, Vocabularies: []*vocab.Vocabulary{v}})

	h := v.Hash()
	w := httptest.NewRecorder()
	gw.ServeHTTP(w, httptest.NewRequest("GET", VocabulariesPath+hex.EncodeToString(h[:]), nil))
	fmt.Println(w.Code, w.Header().Get("Content-Type"), w.Header().Get("Cache-Control"))
	fmt.Println(w.Header().Get("ETag"))
	got, err := vocab.ParseFile(w.Body.Bytes())
	fmt.Println(got.Len(), err)
	// Output:
	// 200 application/x-anth-vocabulary public, max-age=31536000, immutable
	// "1e5d259c75f42dff15a1b8da30bb2f6ddace95fbfc765ed68004f43acdb2abcf"
	// 512 <nil>
}
