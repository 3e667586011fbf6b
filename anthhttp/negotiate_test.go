package anthhttp

import (
	"net/http/httptest"
	"testing"
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
