package anthhttp

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/sse"
)

// Negotiate reports whether the client of r asked for ANTH: its Accept
// header lists ContentType (with any parameters) with a quality above zero
// and at least that of text/event-stream. Wildcards never select ANTH: a
// client that has not named it may not read it.
func Negotiate(r *http.Request) bool {
	anth, _ := accepts(r)
	return anth
}

// wire is the form a stream takes for its client (SPEC.md §7a, §11.1).
type wire uint8

const (
	wireStream    wire = iota // the API's event stream
	wireANTH                  // ANTH
	wireCoded                 // ANTH in anth-deflate, named by Content-Encoding
	wireCodedType             // ANTH in anth-deflate, named by Content-Type's coding parameter
)

// CodingParam is the media type parameter with which a client that cannot
// set Accept-Encoding — a browser's fetch — asks for anth-deflate, and with
// which a server says it sent it: "application/x-anthropic-binary;
// coding=anth-deflate" (SPEC.md §11.1). A client reads a response coded
// when either names anth-deflate.
const CodingParam = "coding"

// AcceptEncoding is the Accept-Encoding a client sends with
// anthclient.Accept (or its own Accept naming ContentType) to be answered
// with the smallest ANTH stream, anth-deflate, where the server offers it
// (SPEC.md §11).
const AcceptEncoding = deflate.Encoding

// negotiate returns the wire for the client of r: ANTH if it negotiated
// it, coded if it also named anth-deflate — in Accept-Encoding, or as
// ContentType's coding parameter in Accept — and padded is false: a padded
// response is not compressed, since compressed sizes would follow the text
// again, which is what padding hides.
func negotiate(r *http.Request, padded bool) wire {
	anth, typed := accepts(r)
	switch {
	case !anth:
		return wireStream
	case padded:
		return wireANTH
	case acceptsEncoding(r):
		return wireCoded
	case typed:
		return wireCodedType
	}
	return wireANTH
}

// accepts reads r's Accept: whether it selects ANTH, and whether an element
// that names ContentType with a quality above zero has the coding
// parameter anth-deflate.
func accepts(r *http.Request) (anth, coded bool) {
	qANTH, qStream := -1.0, -1.0
	for _, h := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(h, ",") {
			mt, q, coding, ok := acceptElement(part)
			if !ok {
				continue
			}
			switch {
			case strings.EqualFold(mt, ContentType):
				qANTH = max(qANTH, q)
				coded = coded || q > 0 && strings.EqualFold(coding, deflate.Encoding)
			case strings.EqualFold(mt, sse.MediaType):
				qStream = max(qStream, q)
			}
		}
	}
	return qANTH > 0 && qANTH >= qStream, coded
}

// acceptElement splits one element of an Accept or Accept-Encoding header
// (RFC 9110 §12.5.1, §12.5.3) into its media range or coding, its quality
// (1 if it gives none) and its coding parameter; ok is false for an
// element that is not well formed, which counts as absent. It reads what
// mime.ParseMediaType would, without making a map of parameters for every
// element of every request.
func acceptElement(part string) (value string, q float64, coding string, ok bool) {
	value, params, _ := strings.Cut(part, ";")
	if value = strings.TrimSpace(value); value == "" || strings.ContainsAny(value, " \t\"") {
		return "", 0, "", false
	}
	q = 1
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, _ := strings.Cut(p, "=")
		switch k = strings.TrimSpace(k); {
		case strings.EqualFold(k, "q"):
			var err error
			if q, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil || q < 0 || q > 1 {
				return "", 0, "", false
			}
		case strings.EqualFold(k, CodingParam):
			coding = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return value, q, coding, true
}

// acceptsEncoding reports whether r's Accept-Encoding names
// deflate.Encoding with a quality above zero. As with Accept, a wildcard is
// not enough: "*" in a browser's or a proxy's Accept-Encoding was never
// written with this coding in mind.
func acceptsEncoding(r *http.Request) bool {
	for _, h := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(h, ",") {
			if coding, q, _, ok := acceptElement(part); ok && strings.EqualFold(coding, deflate.Encoding) {
				return q > 0
			}
		}
	}
	return false
}

// setStreamHeaders sets the headers of a stream's response, each for a case
// it fixes, in its cheapest form:
//   - Content-Type: ContentType (with coding=anth-deflate for wireCodedType),
//     or text/event-stream; charset=utf-8;
//   - Content-Encoding: anth-deflate for wireCoded, and none otherwise (an
//     upstream's copied header does not describe the body written here);
//   - Cache-Control: no-transform, so that an intermediary that transforms
//     bodies (compressing them, say) does not, holding back what it has not
//     yet transformed; and, but for a POST, no-store and Vary: Accept,
//     Accept-Encoding, since a GET's stream could be cached, and its body
//     depends on both. A POST's response is not stored by a cache without
//     freshness information it never has here (RFC 9111 §3), so those 45
//     bytes would say nothing;
//   - X-Accel-Buffering: no, which nginx (and proxies that copy it) read
//     as "pass each write on at once" instead of filling their buffers: a
//     gateway behind nginx's default proxy_buffering would otherwise hold
//     back the first tokens.
func setStreamHeaders(h http.Header, method string, w wire) {
	// This response's values share one backing array, each a slice of one
	// whose cap is its length, so that an Add copies it: h.Set would
	// allocate a slice a header, a stream. Not one array for every
	// response: a caller that edits a value in place (h[k][0] = ...)
	// would edit every later response's too. net/http only reads a value
	// or replaces it.
	v := new([5]string)
	switch w {
	case wireStream:
		v[0] = valueEventStream
	case wireCodedType:
		v[0] = valueANTHCoded
	default:
		v[0] = ContentType
	}
	h["Content-Type"] = v[0:1:1]
	if w == wireCoded {
		v[1] = deflate.Encoding
		h["Content-Encoding"] = v[1:2:2]
	} else {
		delete(h, "Content-Encoding")
	}
	if method == http.MethodPost {
		v[2] = "no-transform"
	} else {
		v[2] = "no-store, no-transform"
		if old := h["Vary"]; len(old) > 0 {
			h["Vary"] = append(old, valueVary)
		} else {
			v[3] = valueVary
			h["Vary"] = v[3:4:4]
		}
	}
	h["Cache-Control"] = v[2:3:3]
	v[4] = "no"
	h["X-Accel-Buffering"] = v[4:5:5]
}

// The values setStreamHeaders sets.
const (
	valueEventStream = sse.MediaType + "; charset=utf-8"
	valueANTHCoded   = ContentType + "; " + CodingParam + "=" + deflate.Encoding
	valueVary        = "Accept, Accept-Encoding"
)

// The values the Gateway's rewrite assigns to the upstream request it
// makes, each a slice whose cap is its length (an Add copies it), shared
// by every request: only the Gateway and its Transport, which reads
// them, see that request's header.
var (
	valueJSON      = []string{"application/json"}
	valueAcceptSSE = []string{sse.MediaType + ", application/json"}
)

// mediaType is the media type of a Content-Type value v, lower-cased, as
// mime.ParseMediaType returns it ("" where that fails), without the map of
// parameters ParseMediaType makes for every request and every response:
// the values a client or an upstream sends most are looked up first.
func mediaType(v string) string {
	for _, c := range commonContentTypes {
		if v == c[0] {
			return c[1]
		}
	}
	mt, _, _ := mime.ParseMediaType(v)
	return mt
}

// commonContentTypes are Content-Type values and their media types, each
// as mime.ParseMediaType reads it (TestMediaType checks).
var commonContentTypes = [...][2]string{
	{"", ""},
	{"application/json", "application/json"},
	{"application/json; charset=utf-8", "application/json"},
	{sse.MediaType, sse.MediaType},
	{sse.MediaType + "; charset=utf-8", sse.MediaType},
	{ContentType, ContentType},
}
