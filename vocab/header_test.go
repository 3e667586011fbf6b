package vocab

import (
	"bytes"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/internal/testdata"
)

var headerExample = regexp.MustCompile(`^    Anth-Vocabularies: (.*)$`)

func mustHash(t testing.TB, s string) [32]byte {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("hash %q", s)
	}
	return [32]byte(b)
}

// TestHoldsSpecExample: SPEC.md §3.14's example header lists o200k_base and
// cl100k_base (by the hashes tiktoken pins) and asks for text, and
// AppendHolds writes it back byte for byte.
func TestHoldsSpecExample(t *testing.T) {
	rows := testdata.SpecRows(t, "3.14", headerExample)
	want := Holds{Hashes: [][32]byte{
		mustHash(t, "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
		mustHash(t, "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
	}, Text: true}
	got, err := ParseHolds(rows[0][1])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseHolds (-want +got):\n%s", diff)
	}
	if b := AppendHolds(nil, want); string(b) != rows[0][1] {
		t.Errorf("AppendHolds gives %q, SPEC.md says %q", b, rows[0][1])
	}
	if !got.Has(want.Hashes[1]) || got.Has([32]byte{}) {
		t.Errorf("Has")
	}
}

// TestHoldsParse: spaces, empty and unknown members; a sha256 member that
// is no hash is ErrMalformed at its offset.
func TestHoldsParse(t *testing.T) {
	h := strings.Repeat("A", 43) + "="
	for _, c := range []struct {
		in     string
		hashes int
		text   bool
		off    int64 // of the error, or -1
	}{
		{"", 0, false, -1},
		{"text", 0, true, -1},
		{" sha256=" + h + " ,\ttext\t, future=1,,", 1, true, -1},
		{"texts, sha256=" + h, 1, false, -1},
		{"text, sha256=abc", 0, false, 6},
		{"sha256=" + strings.Repeat("A", 44), 0, false, 0},        // no padding where 32 bytes need it
		{"sha256=" + strings.Repeat("A", 42) + "B=", 0, false, 0}, // trailing bits set
		{"sha256=" + strings.Repeat("!", 43) + "=", 0, false, 0},
	} {
		got, err := ParseHolds(c.in)
		var e *Error
		switch {
		case c.off >= 0 && (!errors.As(err, &e) || !errors.Is(err, ErrMalformed) || e.Offset != c.off):
			t.Errorf("%q: %v, want ErrMalformed at %d", c.in, err, c.off)
		case c.off < 0 && (err != nil || len(got.Hashes) != c.hashes || got.Text != c.text):
			t.Errorf("%q: %+v, %v; want %d hashes, text %v", c.in, got, err, c.hashes, c.text)
		}
	}
}

// FuzzParseHolds: no panic; an error is an *Error inside the value; what
// parses writes back (AppendHolds) to a value that parses the same.
func FuzzParseHolds(f *testing.F) {
	f.Add("sha256=RGqVOMtsNI41FhINfAiwn1fDZJXirP/+WaW/iwz7Gi0=, text")
	f.Add(" ,text,, x")
	f.Add("sha256=abc")
	f.Fuzz(func(t *testing.T, in string) {
		h, err := ParseHolds(in)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrMalformed) || e.Offset < 0 || e.Offset > int64(len(in)) {
				t.Fatalf("%v", err)
			}
			return
		}
		b := AppendHolds(nil, h)
		again, err := ParseHolds(string(b))
		if err != nil || !cmp.Equal(h, again) || !bytes.Equal(AppendHolds(nil, again), b) {
			t.Fatalf("%q: %+v written as %q reads %+v, %v", in, h, b, again, err)
		}
	})
}
