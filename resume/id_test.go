package resume_test

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/resume"
)

// FuzzIDValid: Valid accepts exactly what NewID's encoding decodes at
// NewID's length, less the CRs and LFs that DecodeString skips (the seed
// in testdata is 16 digits and six CRs, which Valid took for an ID while
// it called DecodeString).
func FuzzIDValid(f *testing.F) {
	for _, s := range []string{string(resume.NewID()), "", "AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAA=", "AAAAAAAAAAAAAAAAAAAA a", "AAAAAAAAAAAAAAAAAAAAA+", "AAAAAAAAAAAAAAAAAAAAA/", "AAAAAAAAAAAAAAAAAAAAA\n", "-09AZ_az-09AZ_az-09AZ_", "AAAAAAAAAAAAAAAAAAAAA@", "AAAAAAAAAAAAAAAAAAAAA\x80"} {
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

// TestOwnerOf: an Owner is SHA-256 of "anth-resume-owner\0" and the
// credentials (SPEC.md §13.1), whatever their length (past the array
// OwnerOf hashes from on the stack too), and hashing short ones allocates
// nothing.
func TestOwnerOf(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapid.StringN(0, 600, -1).Draw(t, "credentials")
		want := resume.Owner(sha256.Sum256([]byte("anth-resume-owner\x00" + c)))
		if diff := cmp.Diff(want, resume.OwnerOf(c)); diff != "" {
			t.Fatalf("OwnerOf(%q) (-want +got):\n%s", c, diff)
		}
	})
	c := "/v1/messages\x00anth\x00sk-ant-api03-" + strings.Repeat("x", 95) + "\x00"
	if n := testing.AllocsPerRun(100, func() { resume.OwnerOf(c) }); n != 0 {
		t.Fatalf("OwnerOf: %v allocs", n)
	}
}
