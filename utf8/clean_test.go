package utf8

import (
	"bytes"
	"testing"
	stdutf8 "unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// invisibleRanges are the characters AppendClean's documentation lists,
// written out apart from the code: the model its tests check it against.
var invisibleRanges = [][2]rune{
	{0x061C, 0x061C}, {0x180E, 0x180E}, {0x200B, 0x200B}, {0x200E, 0x200F},
	{0x202A, 0x202E}, {0x2060, 0x2060}, {0x2066, 0x2069}, {0xFEFF, 0xFEFF},
	{0xE0000, 0xE007F},
}

func removed(r rune) bool {
	for _, rg := range invisibleRanges {
		if rg[0] <= r && r <= rg[1] {
			return true
		}
	}
	return false
}

// cleanModel is AppendClean by its documentation: decode as a Decoder
// does, then drop the listed characters.
func cleanModel(p []byte) []byte {
	out := []byte{}
	for _, r := range string(decodeAll(p)) {
		if !removed(r) {
			out = stdutf8.AppendRune(out, r)
		}
	}
	return out
}

// rangeEnds are the first and last character of each range and the
// characters just outside it, where an off-by-one would show.
func rangeEnds() []rune {
	var rs []rune
	for _, rg := range invisibleRanges {
		rs = append(rs, rg[0]-1, rg[0], rg[1], rg[1]+1)
	}
	return rs
}

// TestAppendCleanRangeEnds: the ends of each range are removed and their
// neighbours just outside are kept (U+200D, U+200E, U+200F, U+2010;
// U+2029, U+202A, ...; U+DFFFF, U+E0000, U+E007F, U+E0080), alone, between
// ASCII, and after text that needs replacing (the other path).
func TestAppendCleanRangeEnds(t *testing.T) {
	for _, r := range rangeEnds() {
		for _, pad := range []string{"", "a", "\xFF"} {
			in := []byte(pad + string(r) + pad)
			if got, want := AppendClean(nil, in), cleanModel(in); !bytes.Equal(got, want) {
				t.Errorf("U+%04X, removed=%v: AppendClean(% X) = % X, want % X", r, removed(r), in, got, want)
			}
		}
	}
}

// TestAppendCleanModel: AppendClean is its documentation, for any input,
// rich in the characters at the ends of the ranges.
func TestAppendCleanModel(t *testing.T) {
	ends := rangeEnds()
	piece := rapid.OneOf(
		genBytes(),
		rapid.Map(rapid.SampledFrom(ends), func(r rune) []byte { return stdutf8.AppendRune(nil, r) }),
		rapid.Map(rapid.Rune(), func(r rune) []byte { return stdutf8.AppendRune(nil, r) }),
	)
	rapid.Check(t, func(t *rapid.T) {
		p := bytes.Join(rapid.SliceOfN(piece, 0, 20).Draw(t, "pieces"), nil)
		if d := cmp.Diff(cleanModel(p), AppendClean([]byte{}, p)); d != "" {
			t.Fatalf("AppendClean(% X) (-model +got):\n%s", p, d)
		}
	})
}

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
