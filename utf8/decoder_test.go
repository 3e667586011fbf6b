package utf8

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	stdutf8 "unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// whatwg is the WHATWG Encoding Standard's UTF-8 decoder transcribed step
// by step (§9.1.1), one byte at a time: the oracle the fast Decoder is
// checked against. It also records where the first error's sequence began.
type whatwg struct {
	needed, seen int
	lower, upper byte
	cp           rune
	seqStart     int64 // offset of the current sequence's first byte
	off          int64
	firstErr     int64 // -1 until an error
	emitted      int   // output bytes so far
	errOut       int   // output bytes before the first error
}

func newWHATWG() *whatwg { return &whatwg{lower: 0x80, upper: 0xBF, firstErr: -1} }

// fail records the first error; emitted is the output length before it.
func (w *whatwg) fail(at int64, emitted int) {
	if w.firstErr < 0 {
		w.firstErr, w.errOut = at, emitted
	}
}

func (w *whatwg) decode(out, p []byte) []byte {
	base := w.emitted - len(out) // base+len(out) is the output so far
	defer func() { w.emitted = base + len(out) }()
	for i := 0; i < len(p); i++ {
		b := p[i]
		if w.needed == 0 {
			w.seqStart = w.off
			switch {
			case b <= 0x7F:
				out = append(out, b)
			case b >= 0xC2 && b <= 0xDF:
				w.needed, w.cp = 1, rune(b&0x1F)
			case b >= 0xE0 && b <= 0xEF:
				if b == 0xE0 {
					w.lower = 0xA0
				}
				if b == 0xED {
					w.upper = 0x9F
				}
				w.needed, w.cp = 2, rune(b&0xF)
			case b >= 0xF0 && b <= 0xF4:
				if b == 0xF0 {
					w.lower = 0x90
				}
				if b == 0xF4 {
					w.upper = 0x8F
				}
				w.needed, w.cp = 3, rune(b&0x7)
			default:
				w.fail(w.off, base+len(out))
				out = stdutf8.AppendRune(out, 0xFFFD)
			}
			w.off++
			continue
		}
		if b < w.lower || b > w.upper {
			w.fail(w.seqStart, base+len(out))
			w.cp, w.needed, w.seen, w.lower, w.upper = 0, 0, 0, 0x80, 0xBF
			out = stdutf8.AppendRune(out, 0xFFFD)
			i-- // the byte is read again
			continue
		}
		w.lower, w.upper = 0x80, 0xBF
		w.cp = w.cp<<6 | rune(b&0x3F)
		w.seen++
		w.off++
		if w.seen == w.needed {
			out = stdutf8.AppendRune(out, w.cp)
			w.cp, w.needed, w.seen = 0, 0, 0
		}
	}
	return out
}

func (w *whatwg) flush(out []byte) []byte {
	if w.needed != 0 {
		w.fail(w.seqStart, w.emitted)
		w.emitted += 3
		w.cp, w.needed, w.seen, w.lower, w.upper = 0, 0, 0, 0x80, 0xBF
		out = stdutf8.AppendRune(out, 0xFFFD)
	}
	return out
}

// genBytes makes inputs rich in the cases that matter: valid characters of
// every length, cut characters, stray continuation bytes, invalid leads,
// surrogates and overlongs.
func genBytes() *rapid.Generator[[]byte] {
	piece := rapid.OneOf(
		rapid.Map(rapid.Rune(), func(r rune) []byte { return stdutf8.AppendRune(nil, r) }),
		rapid.Map(rapid.Rune(), func(r rune) []byte {
			b := stdutf8.AppendRune(nil, r)
			return b[:len(b)/2+len(b)%2]
		}),
		rapid.SliceOfN(rapid.Byte(), 1, 4),
		rapid.SampledFrom([][]byte{
			{0xED, 0xA0, 0x80}, {0xC0, 0xAF}, {0xE0, 0x80, 0xAF}, {0xF4, 0x90, 0x80, 0x80},
			{0xF0, 0x9F, 0x98}, {0xEF, 0xBB, 0xBF}, {0x80}, {0xFF}, []byte("汉字"), []byte("plain ascii text"),
			// Longer than the validator's block and errorWindow.
			[]byte(strings.Repeat("汉字 and 😀 ", 25)),
		}),
	)
	return rapid.Map(rapid.SliceOfN(piece, 0, 40), func(ps [][]byte) []byte { return bytes.Join(ps, nil) })
}

// genSplit cuts p into pieces at random points, empty pieces included.
func genSplit(t *rapid.T, p []byte) [][]byte {
	cuts := rapid.SliceOfN(rapid.IntRange(0, len(p)), 0, 12).Draw(t, "cuts")
	pieces := [][]byte{}
	prev := 0
	for _, c := range cuts {
		c = max(c, prev)
		pieces = append(pieces, p[prev:c])
		prev = c
	}
	return append(pieces, p[prev:])
}

// TestMatchesWHATWG: for any input and any split, every call emits exactly
// what the WHATWG streaming decoder emits for that call, the output is
// valid, and at most 3 bytes are ever held.
func TestMatchesWHATWG(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genBytes().Draw(t, "input")
		var d Decoder
		ref := newWHATWG()
		var all []byte
		for i, piece := range genSplit(t, p) {
			got := d.Append(nil, piece)
			want := ref.decode(nil, piece)
			if !bytes.Equal(got, want) {
				t.Fatalf("call %d (% X): got % X, want % X", i, piece, got, want)
			}
			if d.Pending() > 3 {
				t.Fatalf("holding %d bytes", d.Pending())
			}
			all = append(all, got...)
		}
		got, want := d.Flush(nil), ref.flush(nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("flush: got % X, want % X", got, want)
		}
		all = append(all, got...)
		if !stdutf8.Valid(all) {
			t.Fatalf("output not valid UTF-8: % X", all)
		}
		if one := decodeAll(p); !bytes.Equal(one, all) {
			t.Fatalf("split output differs from one-piece output")
		}
	})
}

func TestValidUnchanged(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := []byte(rapid.String().Draw(t, "text"))
		var d Decoder
		var out []byte
		for _, piece := range genSplit(t, s) {
			out = d.Append(out, piece)
		}
		if out = d.Flush(out); !bytes.Equal(out, s) {
			t.Fatalf("valid input changed: % X -> % X", s, out)
		}
	})
}

// TestStrict: a strict Decoder emits exactly the text before the first
// ill-formed sequence, then nothing, and reports its absolute offset.
func TestStrict(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genBytes().Draw(t, "input")
		ref := newWHATWG()
		refOut := ref.flush(ref.decode(nil, p))

		d := Decoder{Strict: true}
		var out []byte
		for _, piece := range genSplit(t, p) {
			out = d.Append(out, piece)
		}
		out = d.Flush(out)
		err := d.Err()
		if ref.firstErr < 0 {
			if err != nil || !bytes.Equal(out, p) {
				t.Fatalf("valid input: %v, output % X", err, out)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || e.Offset != ref.firstErr {
			t.Fatalf("error %v, want ErrInvalid at %d", err, ref.firstErr)
		}
		// The text before the error is the lenient output up to where the
		// first error was replaced.
		want := refOut[:ref.errOut]
		if !bytes.Equal(out, want) {
			t.Fatalf("strict output % X, want % X", out, want)
		}
		if more := d.Append(nil, []byte("more")); len(more) != 0 {
			t.Fatalf("emitted % X after the error", more)
		}
	})
}

// TestPadded runs hand-picked cases with 0–99 ASCII bytes on each side, the
// standard library's trick for shaking out boundary bugs in the fast paths.
func TestPadded(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"\xC3\xA9", "é"},
		{"\xE4\xBD\xA0", "你"},
		{"\xF0\x9F\x98\x80", "😀"},
		{"\xC3A", "\uFFFDA"},
		{"\xC3\x41\x42", "\uFFFDAB"},
		{"\xF0A", "\uFFFDA"},
		{"\xF0\x9F\x98A", "\uFFFDA"},
		{"\xED\xA0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xC0\xAF", "\uFFFD\uFFFD"},
		{"\xE0\x80\xAF", "\uFFFD\uFFFD\uFFFD"},
		{"\xF4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"\xF8\x88\x80\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"\x80\xBF", "\uFFFD\uFFFD"},
		{"\xEF\xBB\xBF", "\uFEFF"},
		{"\xF4\x8F\xBF\xBF", "\U0010FFFF"},
		{"\xE1\x80\xE2\xF0\x91\x92\xF1\xBF\x41", "\uFFFD\uFFFD\uFFFD\uFFFDA"},
	}
	for _, c := range cases {
		for pad := 0; pad < 100; pad++ {
			left, right := strings.Repeat("a", pad), strings.Repeat("z", 99-pad)
			in := []byte(left + c.in + right)
			want := []byte(left + c.want + right)
			checkCase(t, c.in, in, want)
		}
		// At the end of the stream, a cut character is one U+FFFD.
		if c.in != "" && stdutf8.ValidString(c.in) {
			cut := c.in[:len(c.in)-1]
			want := "\uFFFD"
			if cut == "" {
				want = ""
			}
			checkCase(t, "cut "+c.in, []byte(strings.Repeat("a", 37)+cut), []byte(strings.Repeat("a", 37)+want))
		}
	}
}

// TestEmitEarly: invalid bytes are replaced as soon as they are known to be
// invalid, not held for the next call.
func TestEmitEarly(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		held int
	}{
		{"\xF0A", "\uFFFDA", 0},
		{"\xF0\x9F", "", 2},
		{"\xF0\x9F\x98", "", 3},
		{"\xF0\x8F", "\uFFFD\uFFFD", 0},
		{"\xE0\x9F", "\uFFFD\uFFFD", 0},
		{"\xED\xA0", "\uFFFD\uFFFD", 0},
		{"ab\xC3", "ab", 1},
		{"\xFF", "\uFFFD", 0},
	} {
		var d Decoder
		if got := string(d.Append(nil, []byte(c.in))); got != c.want || d.Pending() != c.held {
			t.Errorf("Append(% X) = %q holding %d; want %q holding %d", c.in, got, d.Pending(), c.want, c.held)
		}
	}
}

// bom is a byte order mark, U+FEFF in UTF-8.
const bom = "\xEF\xBB\xBF"

// genStream is genBytes, started with a byte order mark half the time.
func genStream() *rapid.Generator[[]byte] {
	return rapid.Custom(func(t *rapid.T) []byte {
		p := genBytes().Draw(t, "text")
		if rapid.Bool().Draw(t, "bom") {
			p = append([]byte(bom), p...)
		}
		return p
	})
}

// feed gives d each piece through Append, or through Text if text is set,
// and flushes.
func feed(d *Decoder, pieces [][]byte, text bool) []byte {
	return d.Flush(feedOpen(d, pieces, text))
}

// TestStripBOM: only a byte order mark that is the first character of the
// stream is stripped, through every path of Append and Text: the short and
// the long one (more than smallInput bytes), the ill-formed one, and a mark
// completed by a later piece. A mark at the start of a later piece is text.
func TestStripBOM(t *testing.T) {
	long := strings.Repeat("a", 2*smallInput)
	for _, c := range []struct {
		pieces []string
		strip  bool
		want   string
	}{
		{[]string{bom + "hi"}, false, "\uFEFFhi"},
		{[]string{bom + "hi"}, true, "hi"},
		{[]string{"\xEF", "\xBB", "\xBF", "hi"}, true, "hi"},
		{[]string{bom + bom}, true, "\uFEFF"},
		{[]string{"x" + bom}, true, "x\uFEFF"},
		{[]string{"\xFF" + bom}, true, "\uFFFD\uFEFF"},
		{[]string{"", bom + "x"}, true, "x"}, // an empty piece starts nothing
		// The long path and the ill-formed path.
		{[]string{bom + long}, true, long},
		{[]string{bom + long}, false, "\uFEFF" + long},
		{[]string{bom + "\xFF"}, true, "\uFFFD"},
		{[]string{bom + long + "\xFF"}, true, long + "\uFFFD"},
		{[]string{"\xEF\xBB", "\xBF" + long}, true, long},
		{[]string{"\xEF\xBB", "\xBF\xFF"}, true, "\uFFFD"},
		// A mark at the start of a later piece is kept.
		{[]string{"hi", bom + "x"}, true, "hi\uFEFFx"},
		{[]string{"hi", bom + long}, true, "hi\uFEFF" + long},
		{[]string{"hi", bom + "\xFF"}, true, "hi\uFEFF\uFFFD"},
		{[]string{"\xC3", "\xA9" + bom}, true, "é\uFEFF"},
		{[]string{"\xFF", bom}, true, "\uFFFD\uFEFF"},
		{[]string{"\xE4\xBD\xA0", "\xEF", "\xBB\xBF"}, true, "你\uFEFF"},
	} {
		pieces := make([][]byte, len(c.pieces))
		for i, p := range c.pieces {
			pieces[i] = []byte(p)
		}
		for _, text := range []bool{false, true} {
			d := Decoder{StripBOM: c.strip}
			if got := string(feed(&d, pieces, text)); got != c.want {
				t.Errorf("%+q strip=%v text=%v: got %+q, want %+q", c.pieces, c.strip, text, got, c.want)
			}
		}
	}

	// Flush ends the stream: the next one may start with a mark again.
	d := Decoder{StripBOM: true}
	out := d.Flush(d.Append(nil, []byte(bom+"a")))
	out = d.Flush(d.Text(out, []byte(bom+"b")))
	if string(out) != "ab" {
		t.Errorf("two streams: got %+q, want \"ab\"", out)
	}
}

// TestStripBOMAnySplit: for any input, split, mode and method, StripBOM
// changes the output only by the byte order mark at its start, and leaves
// a strict Decoder's error (offsets count the mark) as it was.
func TestStripBOMAnySplit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pieces := genSplit(t, genStream().Draw(t, "input"))
		strict := rapid.Bool().Draw(t, "strict")
		text := rapid.Bool().Draw(t, "text")
		keep, strip := Decoder{Strict: strict}, Decoder{Strict: strict, StripBOM: true}
		want := bytes.TrimPrefix(feed(&keep, pieces, text), []byte(bom))
		if d := cmp.Diff(want, feed(&strip, pieces, text), cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("text (-want +got):\n%s", d)
		}
		if d := cmp.Diff(keep.Err(), strip.Err()); d != "" {
			t.Fatalf("error (-without StripBOM +with):\n%s", d)
		}
	})
}

// checkOracle checks in, in one piece and byte by byte, against the WHATWG
// decoder, and a strict Decoder's error offset against the oracle's.
func checkOracle(t *testing.T, name string, in []byte) {
	t.Helper()
	ref := newWHATWG()
	checkCase(t, name, in, ref.flush(ref.decode(nil, in)))
	d := Decoder{Strict: true}
	d.Flush(d.Append(nil, in))
	var e *Error
	if ref.firstErr < 0 && d.Err() != nil || ref.firstErr >= 0 && (!errors.As(d.Err(), &e) || e.Offset != ref.firstErr) {
		t.Errorf("%s: strict: %v, want an error at %d (-1: none)", name, d.Err(), ref.firstErr)
	}
}

// TestContinuationRun: a run of continuation bytes longer than the
// validator's two-stream block (2*half bytes), at any alignment and after
// any text, is one U+FFFD a byte, and a strict Decoder stops at its start.
func TestContinuationRun(t *testing.T) {
	for _, n := range []int{2*half - 1, 2 * half, 2*half + 1, 3 * half, 1000} {
		run := make([]byte, n)
		for i := range run {
			run[i] = 0x80 | byte(i%64)
		}
		for _, lead := range []string{
			"", "a", "ab", "abc", "你", "\xE4", "\xF0\x9F",
			strings.Repeat("a", half+1), strings.Repeat("你", half),
		} {
			in := append(append([]byte(lead), run...), 'z')
			checkOracle(t, fmt.Sprintf("%+q and %d continuation bytes", lead, n), in)
		}
	}
}

// TestAfterError: after an ill-formed sequence, Append checks errorWindow
// bytes one step at a time, then goes back to the block pass; the window
// may end at any point of a character, and another error or the end of the
// input may follow.
func TestAfterError(t *testing.T) {
	text := strings.Repeat("汉字 and 😀 ", 40)
	for shift := range 16 { // the text repeats every 16 bytes
		for _, next := range []string{"", "\xFF", "\xE4\xBD", "\xC3A" + text} {
			in := []byte("\xFF" + strings.Repeat("a", shift) + text[:errorWindow+4] + next)
			checkOracle(t, fmt.Sprintf("shift %d, then %+.8q", shift, next), in)
		}
	}
}

// TestText: Text gives the same text, error and held bytes as Append for
// any input, split and mode (Strict, StripBOM), and aliases the input when
// it needs no change.
func TestText(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genStream().Draw(t, "input")
		mode := Decoder{Strict: rapid.Bool().Draw(t, "strict"), StripBOM: rapid.Bool().Draw(t, "stripBOM")}
		a, b := mode, mode
		var want, got []byte
		for _, piece := range genSplit(t, p) {
			want = a.Append(want, piece)
			got = append(got, b.Text(nil, piece)...)
			if a.Pending() != b.Pending() {
				t.Fatalf("pending %d vs %d", a.Pending(), b.Pending())
			}
		}
		want, got = a.Flush(want), b.Flush(got)
		if !bytes.Equal(want, got) {
			t.Fatalf("Text gives % X, Append % X", got, want)
		}
		if d := cmp.Diff(a.Err(), b.Err()); d != "" {
			t.Fatalf("error (-Append +Text):\n%s", d)
		}
	})
	var d Decoder
	in := []byte("plain text, 你好\xE4")
	out := d.Text(nil, in)
	if len(out) == 0 || &out[0] != &in[0] || string(out) != "plain text, 你好" || d.Pending() != 1 {
		t.Fatalf("Text did not alias clean input: %q", out)
	}

	// After a strict error, Text emits nothing, clean input included.
	d = Decoder{Strict: true}
	if out := d.Text(nil, []byte("ok\xFF")); string(out) != "ok" || d.Err() == nil {
		t.Fatalf("strict Text: %q, %v", out, d.Err())
	}
	if out := d.Text(nil, []byte("clean")); len(out) != 0 {
		t.Fatalf("strict Text emitted %q after the error", out)
	}
}

// TestBlockBoundary: validPrefix's block pass may end inside a character;
// the next block then starts in that character's state. A character of
// every length cut there, whole or followed by what ends it early (ASCII,
// another lead, a stray continuation byte), long text after it or not,
// decodes as the WHATWG decoder does.
func TestBlockBoundary(t *testing.T) {
	for _, char := range []string{"é", "你", "\xE0\xA0\x80", "\xED\x9F\xBF", "😀", "\xF4\x8F\xBF\xBF"} {
		for cut := 1; cut <= len(char); cut++ {
			for _, next := range []string{"", "a", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "\xC3\xA9", "\x80", "你好"} {
				for _, after := range []int{0, 40, 2*half + 5} {
					for at := 2*half - len(char); at <= 2*half; at++ {
						in := []byte(strings.Repeat("😀", at/4) + strings.Repeat("a", at%4))
						in = append(in, char[:cut]...)
						in = append(in, next...)
						in = append(in, strings.Repeat("z", after)...)
						checkOracle(t, fmt.Sprintf("%+q cut to %d at %d, then %+q and %d bytes", char, cut, at, next, after), in)
					}
				}
			}
		}
	}
}

// TestStripBOMSetLate: StripBOM acts on the first character of the
// stream, so setting it (or clearing it) before some call matters exactly
// when no character was decoded before that call, through Append or Text:
// an empty piece, or one whose bytes are all held, starts nothing.
func TestStripBOMSetLate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pieces := genSplit(t, genStream().Draw(t, "input"))
		strict := rapid.Bool().Draw(t, "strict")
		text := rapid.Bool().Draw(t, "text")
		from := rapid.Bool().Draw(t, "from")
		at := rapid.IntRange(0, len(pieces)).Draw(t, "at")

		d := Decoder{Strict: strict, StripBOM: from}
		before := feedOpen(&d, pieces[:at], text)
		d.StripBOM = !from
		got := d.Flush(append(before, feedOpen(&d, pieces[at:], text)...))

		// Nothing decoded yet (a mark stripped counts): as if StripBOM
		// had always been what it is now; else as if it had never changed.
		plain := Decoder{Strict: strict}
		ref := Decoder{Strict: strict, StripBOM: from}
		if len(feedOpen(&plain, pieces[:at], text)) == 0 {
			ref.StripBOM = !from
		}
		if d := cmp.Diff(feed(&ref, pieces, text), got, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("StripBOM %v until call %d, emitted %q before (-want +got):\n%s", from, at, before, d)
		}
	})
	// The cases in words.
	for _, c := range []struct {
		pieces []string
		want   string
	}{
		{[]string{"", bom + "x"}, "x"},
		{[]string{"\xEF\xBB", "\xBFx"}, "x"},
		{[]string{"hi", bom + "x"}, "hi\uFEFFx"},
	} {
		for _, text := range []bool{false, true} {
			var d Decoder
			out := feedOpen(&d, [][]byte{[]byte(c.pieces[0])}, text)
			d.StripBOM = true
			out = d.Flush(append(out, feedOpen(&d, [][]byte{[]byte(c.pieces[1])}, text)...))
			if string(out) != c.want {
				t.Errorf("%+q, StripBOM set before the second, text=%v: got %+q, want %+q", c.pieces, text, out, c.want)
			}
		}
	}
}

// feedOpen is feed without the Flush.
func feedOpen(d *Decoder, pieces [][]byte, text bool) []byte {
	var out []byte
	for _, p := range pieces {
		if text {
			out = append(out, d.Text(nil, p)...)
		} else {
			out = d.Append(out, p)
		}
	}
	return out
}

// The three tests below were lost in 5176486, which replaced the tests
// around them; TestDFATable is the check dfaTable's comment refers to.

func TestStrictFlushAndReset(t *testing.T) {
	d := Decoder{Strict: true}
	out := d.Append(nil, []byte("ok\xE4\xBD"))
	out = d.Flush(out)
	var e *Error
	if !errors.As(d.Err(), &e) || e.Offset != 2 || string(out) != "ok" {
		t.Fatalf("cut tail: %v, output %q", d.Err(), out)
	}
	if want := "utf8: offset 2: ill-formed UTF-8: e4 bd"; e.Error() != want {
		t.Fatalf("message %q, want %q", e.Error(), want)
	}
	d.Reset()
	if d.Err() != nil || !d.Strict || string(d.Append(nil, []byte("\xE4\xBD\xA0"))) != "你" {
		t.Fatal("Reset did not clear the error or kept state")
	}
}

func TestDFATable(t *testing.T) {
	if d := cmp.Diff(dfaTable(), dfa, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("the literal table is stale (-built +literal):\n%s", d)
	}
}

func TestZeroAllocs(t *testing.T) {
	in := []byte(strings.Repeat("Hello, 世界! \xF0\x9F\x98", 50))
	dst := make([]byte, 0, 4096)
	var d Decoder
	if n := testing.AllocsPerRun(100, func() {
		dst = d.Append(dst[:0], in)
		dst = d.Append(dst, in[:5])
		dst = d.Flush(dst)
	}); n != 0 {
		t.Fatalf("%v allocations per run", n)
	}
}
