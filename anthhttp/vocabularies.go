package anthhttp

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/vocab"
)

// VocabulariesPath is where a Gateway serves the vocabularies it holds
// (GatewayOptions.Vocabularies), each as a vocabulary file (SPEC.md §3.15)
// at this path followed by its hash (§3.12) in lower-case hex:
// GET /v1/anth/vocabularies/223921b7…b2a7 (SPEC.md §3.16).
const VocabulariesPath = "/v1/anth/vocabularies/"

// VocabularyContentType is the media type of a vocabulary file (SPEC.md
// §3.16).
const VocabularyContentType = "application/x-anth-vocabulary"

// KindVocabulary is Record.Kind of a request for a vocabulary the gateway
// answered itself (SPEC.md §3.16).
const KindVocabulary = "vocabulary"

// vocabularyCacheControl: a vocabulary's URL names its content (the hash
// is checked on load, §3.15), so it never changes and any cache may keep
// it for good (RFC 9111 §5.2.2.5, RFC 8246).
const vocabularyCacheControl = "public, max-age=31536000, immutable"

// vocabularies are the files a Gateway serves, by hash in hex. Each file
// is written, and gzipped, on its first request, then kept: cl100k_base
// is 744,298 bytes, 431,405 gzipped (SPEC.md §3.15).
type vocabularies map[string]*servedVocabulary

type servedVocabulary struct {
	v    *vocab.Vocabulary
	tag  string // the strong ETag: the hash in hex, quoted
	once sync.Once
	file []byte
	gz   []byte // file gzipped, or nil when that saves nothing
}

// newVocabularies indexes vs and the vocabularies of byModel by hash; nil
// when there are none, so that a Gateway without vocabularies passes the
// path through as before.
func newVocabularies(vs []*vocab.Vocabulary, byModel map[string]*vocab.Vocabulary) vocabularies {
	if len(vs) == 0 && len(byModel) == 0 {
		return nil
	}
	m := make(vocabularies, len(vs)+len(byModel))
	for _, v := range vs {
		if v == nil {
			continue
		}
		h := v.Hash()
		x := hex.EncodeToString(h[:])
		m[x] = &servedVocabulary{v: v, tag: `"` + x + `"`}
	}
	for _, v := range byModel {
		if v == nil {
			continue
		}
		h := v.Hash()
		if x := hex.EncodeToString(h[:]); m[x] == nil {
			m[x] = &servedVocabulary{v: v, tag: `"` + x + `"`}
		}
	}
	return m
}

func (s *servedVocabulary) load() {
	s.once.Do(func() {
		s.file = s.v.AppendFile(nil)
		var b bytes.Buffer
		z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		z.Write(s.file)
		z.Close()
		if b.Len() < len(s.file) {
			s.gz = b.Bytes()
		}
	})
}

// serve answers a request under VocabulariesPath and reports true, or
// reports false for a path outside it or a Gateway that holds no
// vocabularies (SPEC.md §3.16): GET and HEAD of a held hash get the file,
// immutable, with the hash as its strong ETag (and 304 to an If-None-Match
// that names it; http.ServeContent also answers Range); an unknown hash is
// 404 and another method 405, with the API's error JSON. Vocabularies are
// public and cost no upstream call: the Gateway serves them without
// credentials (GatewayOptions.Credentials), so a page may fetch one with a
// plain GET, and any cache may share it.
func (vs vocabularies) serve(g *Gateway, w http.ResponseWriter, r *http.Request, ex *exchange) bool {
	if vs == nil {
		return false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, VocabulariesPath)
	if !ok {
		return false
	}
	ex.rec.Kind = KindVocabulary
	h := w.Header()
	h.Set(RequestIDHeader, ex.rec.ID)
	s := vs[rest] // lower-case hex only: one URL a vocabulary, one cache entry
	if s == nil {
		g.apiError(w, ex, http.StatusNotFound, frame.CodeNotFound, "no vocabulary with hash "+rest+" here: the path is "+VocabulariesPath+" and a SHA-256 in lower-case hex (SPEC.md §3.16)")
		ex.rec.Kind = KindVocabulary
		return true
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		g.apiError(w, ex, http.StatusMethodNotAllowed, frame.CodeInvalidRequest, "a vocabulary is read with GET or HEAD")
		ex.rec.Kind = KindVocabulary
		return true
	}
	s.load()
	if g.cors != nil {
		g.cors.respond(h, ex.origin)
	}
	body, tag := s.file, s.tag
	h.Add("Vary", "Accept-Encoding")
	if s.gz != nil && acceptsGzip(r.Header.Values("Accept-Encoding")) {
		// Another representation, so another strong tag (RFC 9110 §8.8.3).
		body, tag = s.gz, s.tag[:len(s.tag)-1]+`.gz"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Type", VocabularyContentType)
	h.Set("Cache-Control", vocabularyCacheControl)
	h.Set("ETag", tag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	return true
}

// acceptsGzip reports whether Accept-Encoding values name gzip (or *)
// with a q above 0 (RFC 9110 §12.5.3), each element read as negotiation
// reads Accept's and Accept-Encoding's (acceptElement).
func acceptsGzip(values []string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			if coding, q, _, ok := acceptElement(part); ok && q > 0 && (strings.EqualFold(coding, "gzip") || coding == "*") {
				return true
			}
		}
	}
	return false
}
