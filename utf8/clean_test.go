package utf8

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

func TestAppendClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"\uFEFFhello", "hello"},
		{"a\u200Bb\u2060c", "abc"},
		{"safe\u202Eevil\u202C", "safeevil"},
		{"\u2066x\u2069", "x"},
		{"hi\U000E0041\U000E0042", "hi"},
		{"👨\u200D👩\u200D👧", "👨\u200D👩\u200D👧"},
		{"می\u200Cخواهم", "می\u200Cخواهم"},
		{"bad\xC3\x41", "bad\uFFFDA"},
		{"é\xFF\u200B", "é\uFFFD"},
	} {
		if got := string(AppendClean(nil, []byte(c.in))); got != c.want {
			t.Errorf("AppendClean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestAppendCleanStream: cleaning each piece a Decoder emits gives what
// cleaning the whole decoded text gives, however the input was split, as
// AppendClean's documentation promises for streams; and AppendClean only
// ever appends to dst.
func TestAppendCleanStream(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genBytes().Draw(t, "input")
		want := AppendClean([]byte("dst:"), decodeAll(p))
		var d Decoder
		got := []byte("dst:")
		var text []byte
		for _, piece := range genSplit(t, p) {
			text = d.Append(text[:0], piece)
			got = AppendClean(got, text)
		}
		got = AppendClean(got, d.Flush(text[:0]))
		if !bytes.Equal(got, want) {
			t.Fatalf("cleaned piece by piece % X, whole % X", got, want)
		}
	})
}
