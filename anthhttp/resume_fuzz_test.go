package anthhttp

import (
	"net/http"
	"strconv"
	"testing"
)

// FuzzResumeCursor: a resume's cursor header parses to an offset that
// formats back to itself (one form only: "-0", "01" and the "N.k" of
// earlier drafts are refused), or is refused; never a negative offset.
func FuzzResumeCursor(f *testing.F) {
	for _, s := range []string{"", "0", "12", "12.1", "12.0", "-1", "1.", ".1", "9223372036854775807", "9223372036854775808", "1.2.3", " 1", "0x10", "-0", "01", "1.01", "+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range []wire{wireANTH, wireStream} {
			r, _ := http.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set(ResumeOffsetHeader, s)
			r.Header.Set(LastEventIDHeader, s)
			off, ok := parseCursor(r, w)
			if !ok {
				continue
			}
			if off < 0 {
				t.Fatalf("%q: offset %d", s, off)
			}
			if back := strconv.FormatInt(off, 10); s != "" && back != s {
				t.Fatalf("%q parsed as %d, which is %q", s, off, back)
			}
		}
	})
}
