package anthhttp

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAcceptsDeflate(t *testing.T) {
	for header, want := range map[string]bool{
		"":                               false,
		"gzip, deflate, br, zstd":        false,
		"*":                              false,
		"anth-deflate":                   true,
		"gzip, ANTH-Deflate":             true,
		" anth-deflate ;q=0.5":           true,
		"anth-deflate;q=0":               false,
		"anth-deflate;q=0.000":           false,
		"anth-deflate;q=x":               false,
		"anth-deflate-2":                 false,
		"gzip;q=1, anth-deflate;q=1":     true,
		"anth-deflate;q=1.000":           true,
		"anth-deflate;q=1.5":             false,
		"anth-deflate;q=0, anth-deflate": false, // the first names its quality
	} {
		r := httptest.NewRequest("POST", "/v1/messages", nil)
		if header != "" {
			r.Header.Set("Accept-Encoding", header)
		}
		if got := acceptsEncoding(r); got != want {
			t.Errorf("Accept-Encoding %q: %v, want %v", header, got, want)
		}
	}
}

// TestStreamHeadersNotShared: a caller that edits one response's header
// values in place edits no other response's: setStreamHeaders gives each
// response values of its own.
func TestStreamHeadersNotShared(t *testing.T) {
	for _, w := range []wire{wireStream, wireANTH, wireCoded, wireCodedType} {
		for _, method := range []string{http.MethodPost, http.MethodGet} {
			first, second := http.Header{}, http.Header{}
			setStreamHeaders(first, method, w)
			want := first.Clone()
			for _, v := range first {
				v[0] = "edited"
			}
			setStreamHeaders(second, method, w)
			if diff := cmp.Diff(want, second); diff != "" {
				t.Errorf("wire %d, %s: an edit of one response's values reached the next (-want +got):\n%s", w, method, diff)
			}
		}
	}
}
