package anthhttp

import (
	"strings"
	"testing"
)

// FuzzAcceptsGzip: acceptsGzip reads any Accept-Encoding without panic; it
// says yes only when gzip or * is named, always when a plain "gzip" member
// is added, and never for a value whose every gzip and * member has q=0.
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "br;q=1, gzip;q=0.5", "gzip;q=0, identity", "*;q=0.1", "GZIP ; Q=0.000", "gzip;q=x", "deflate", "", ",,;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got := acceptsGzip([]string{v})
		low := strings.ToLower(v)
		if got && !strings.Contains(low, "gzip") && !strings.Contains(low, "*") {
			t.Fatalf("%q: gzip accepted, not named", v)
		}
		if !acceptsGzip([]string{v + ", gzip"}) || !acceptsGzip([]string{v, "gzip"}) {
			t.Fatalf("%q plus gzip: not accepted", v)
		}
		if acceptsGzip([]string{"gzip;q=0, *;q=0, identity"}) {
			t.Fatal("q=0 accepted")
		}
	})
}

func TestAcceptsGzip(t *testing.T) {
	for v, want := range map[string]bool{
		"gzip": true, "x-gzip": false, "br;q=1, gzip;q=0.5": true, "gzip;q=0": false, "gzip; q=0.000": false,
		"GZIP;Q=0.001": true, "*": true, "*;q=0": false, "identity": false, "": false, "gzip;q=nope": false, "deflate, gzip": true,
	} {
		if got := acceptsGzip([]string{v}); got != want {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}
