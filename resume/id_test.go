package resume_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/layer0/anth/resume"
)

// FuzzIDValid: Valid accepts exactly what NewID's encoding decodes at
// NewID's length, less the CRs and LFs that DecodeString skips (the seed
// in testdata is 16 digits and six CRs, which Valid took for an ID while
// it called DecodeString).
func FuzzIDValid(f *testing.F) {
	for _, s := range []string{string(resume.NewID()), "", "AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAA=", "AAAAAAAAAAAAAAAAAAAA a", "AAAAAAAAAAAAAAAAAAAAA+", "AAAAAAAAAAAAAAAAAAAAA/", "AAAAAAAAAAAAAAAAAAAAA\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := base64.RawURLEncoding.DecodeString(s)
		want := len(s) == 22 && err == nil && !strings.ContainsAny(s, "\r\n")
		if got := resume.ID(s).Valid(); got != want {
			t.Fatalf("Valid(%q) = %v, decoding says %v", s, got, want)
		}
	})
}

func TestIDValidAllocs(t *testing.T) {
	id := resume.NewID()
	if n := testing.AllocsPerRun(100, func() { id.Valid() }); n != 0 {
		t.Fatalf("Valid: %v allocs", n)
	}
}
