package deflate

import (
	"bytes"
	"compress/flate"
	"io"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// blockDict is a dictionary of the size of the EVENT dictionary, of JSON
// like it, for the block encoder's tests.
var (
	blockDictText = strings.Repeat(`{"type":"message_start","message":{"id":"msg_","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`, 12)
	blockDict     = NewDictionary([]byte(blockDictText))
)

func inflateStd(t interface {
	Helper()
	Fatalf(string, ...any)
}, z []byte) []byte {
	t.Helper()
	out, err := io.ReadAll(flate.NewReaderDict(bytes.NewReader(z), blockDict.b))
	if err != nil {
		t.Fatalf("compress/flate cannot inflate % X: %v", z, err)
	}
	return out
}

// TestDeflateRoundTrip: whatever the encoder is given, compress/flate
// inflates it back with the dictionary: event JSON, the dictionary's own
// bytes, runs, random bytes, and inputs past the 32 KiB window.
func TestDeflateRoundTrip(t *testing.T) {
	alphabet := []byte(blockDictText[:200])
	rapid.Check(t, func(t *rapid.T) {
		var in []byte
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			in = rapid.SliceOfN(rapid.Byte(), 0, 3000).Draw(t, "random")
		case 1:
			in = rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 5000).Draw(t, "json-ish")
		case 2:
			lo := rapid.IntRange(0, len(blockDictText)).Draw(t, "lo")
			hi := rapid.IntRange(lo, len(blockDictText)).Draw(t, "hi")
			in = []byte(strings.Repeat(blockDictText[lo:hi], rapid.IntRange(1, 20).Draw(t, "times")))
		case 3:
			in = bytes.Repeat([]byte{rapid.Byte().Draw(t, "b")}, rapid.IntRange(0, 70_000).Draw(t, "run"))
		}
		if got := inflateStd(t, AppendBlock(nil, in, blockDict)); !bytes.Equal(got, in) {
			t.Fatalf("round trip of %d bytes gives %d different bytes", len(in), len(got))
		}
	})
	big := []byte(strings.Repeat(blockDictText, 40)) // 90 KB: distances capped at 32 KiB
	if got := inflateStd(t, AppendBlock(nil, big, blockDict)); !bytes.Equal(got, big) {
		t.Fatal("a 90 KB input does not round-trip")
	}
	// What is appended follows dst untouched.
	dst := AppendBlock([]byte("keep"), []byte(`{"type":"ping"}`), blockDict)
	if !bytes.HasPrefix(dst, []byte("keep")) || !bytes.Equal(inflateStd(t, dst[4:]), []byte(`{"type":"ping"}`)) {
		t.Fatal("AppendBlock does not append")
	}
}

// TestDeflateMatches: the encoder finds what a reader can use: a repeat of
// the event's own first bytes, repeats up to 32 KiB back deep into a long
// event, and the dictionary at exactly the farthest distance DEFLATE
// allows, and no farther.
func TestDeflateMatches(t *testing.T) {
	size := func(s string) int {
		z := AppendBlock(nil, []byte(s), blockDict)
		if got := inflateStd(t, z); string(got) != s {
			t.Fatalf("%d bytes do not round-trip", len(s))
		}
		return len(z)
	}
	if rep, none := size("#%&!#%&!"), size("#%&!)(*@"); rep >= none {
		t.Errorf("a repeat of the first 4 bytes: %d bytes, as many as without one (%d)", rep, none)
	}
	if n := size(strings.Repeat("x", 20_000)); n > 200 {
		t.Errorf("a run of 20,000 bytes: %d bytes", n)
	}
	// The event's first bytes again at exactly 32,768 bytes, and one more.
	first := "!Q#W$E%R^T&Y*U(I)O_P+{}|"
	for _, c := range []struct {
		dist  int
		found bool
	}{{32_768, true}, {32_769, false}} {
		prefix := first + strings.Repeat("x", c.dist-len(first))
		grew := size(prefix+first) - size(prefix)
		if found := grew < len(first)/2; found != c.found {
			t.Errorf("the first bytes again at distance %d: %d bytes for %d, found %v, want %v", c.dist, grew, len(first), found, c.found)
		}
	}
	// A piece of the dictionary whose first 4 bytes are indexed where it
	// starts, at distance exactly 32,768 and one more.
	d := blockDictText
	p := int(blockDict.head[hash4([]byte(d[len(d)-300:]))]) - 1
	piece := d[p:min(p+200, len(d))]
	for _, c := range []struct {
		dist  int
		found bool
	}{{32_768, true}, {32_769, false}, {30_000, true}} {
		filler := strings.Repeat("x", c.dist-(len(d)-p))
		grew := size(filler+piece) - size(filler)
		if found := grew < len(piece)/2; found != c.found {
			t.Errorf("the dictionary at distance %d: %d bytes for %d, found %v, want %v", c.dist, grew, len(piece), found, c.found)
		}
	}
}

// TestDeflateBlockTypes: a short value gets fixed codes, a long one of text
// dynamic codes, and both inflate; any text of a few hundred bytes
// round-trips whichever type it gets.
func TestDeflateBlockTypes(t *testing.T) {
	btype := func(z []byte) byte { return z[0] >> 1 & 3 }
	short := []byte(`{"type":"content_block_stop","index":0}`)
	if z := AppendBlock(nil, short, blockDict); btype(z) != 1 || !bytes.Equal(inflateStd(t, z), short) {
		t.Errorf("a short event: block type %d, want 1 (fixed)", btype(z))
	}
	text := []byte(strings.Repeat("Certified eclipse glasses block enough light to make direct viewing safe; ordinary sunglasses do not. ", 3) +
		"A pinhole projector is an easy, safe alternative that projects an image of the Sun onto a flat surface.")
	if z := AppendBlock(nil, text, blockDict); btype(z) != 2 || !bytes.Equal(inflateStd(t, z), text) {
		t.Errorf("%d bytes of text: block type %d, want 2 (dynamic)", len(text), btype(z))
	}
	words := strings.Fields(blockDictText + " the a of and to in is that it was for on are with as I his they be at one have this from")
	rapid.Check(t, func(t *rapid.T) {
		ws := rapid.SliceOfN(rapid.SampledFrom(words), 0, 400).Draw(t, "words")
		in := []byte(strings.Join(ws, " "))
		if got := inflateStd(t, AppendBlock(nil, in, blockDict)); !bytes.Equal(got, in) {
			t.Fatalf("%d bytes of words do not round-trip", len(in))
		}
	})
}

// TestFixedBits: appendTokens's count of fixed-code bits is the size of
// the block of fixed codes AppendBlock writes for a value too short for
// dynamic codes.
func TestFixedBits(t *testing.T) {
	for _, s := range []string{"", "x", blockDictText[:100], "\x90\xff\x00abc abc abc abc", blockDictText[:150] + "\xf0\xf1\xf2"} {
		var f blockFreq
		_, bits := appendTokens(nil, []byte(s), blockDict, nil, &f)
		if got := len(AppendBlock(nil, []byte(s), blockDict)); got != (bits+7)/8 {
			t.Errorf("%q: %d bits counted, %d bytes written", s, bits, got)
		}
	}
}

// TestInflaterAgreesWithStd: the Inflater (klauspost/compress's flate)
// reads every value as compress/flate does: AppendBlock's output, whole,
// and that output with bytes flipped or cut off, which both must refuse
// or read alike, byte for byte, under the Inflater's bound.
func TestInflaterAgreesWithStd(t *testing.T) {
	alphabet := []byte(blockDictText[:200])
	var inf Inflater
	rapid.Check(t, func(t *rapid.T) {
		in := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 3000).Draw(t, "json-ish")
		if rapid.Bool().Draw(t, "random") {
			in = rapid.SliceOfN(rapid.Byte(), 0, 3000).Draw(t, "bytes")
		}
		z := AppendBlock(nil, in, blockDict)
		switch rapid.IntRange(0, 2).Draw(t, "change") {
		case 1:
			for range rapid.IntRange(1, 4).Draw(t, "flips") {
				i := rapid.IntRange(0, len(z)-1).Draw(t, "at")
				z[i] ^= rapid.ByteRange(1, 255).Draw(t, "mask")
			}
		case 2:
			z = z[:rapid.IntRange(0, len(z)-1).Draw(t, "cut")]
		}
		const max = 4096
		std, stdErr := io.ReadAll(io.LimitReader(flate.NewReaderDict(bytes.NewReader(z), blockDict.b), max+1))
		got, err := inf.Inflate(z, blockDict, max)
		switch {
		case stdErr != nil:
			if err == nil {
				t.Fatalf("compress/flate refuses (%v) what the Inflater reads as %d bytes", stdErr, len(got))
			}
		case len(std) > max:
			if err == nil {
				t.Fatalf("%d bytes over the bound of %d, and no error", len(got), max)
			}
		case err != nil || !bytes.Equal(got, std):
			t.Fatalf("compress/flate reads %d bytes; the Inflater %d bytes, %v", len(std), len(got), err)
		}
	})
}

// TestDeflateAfterRoundTrip: AppendBlockAfter's block inflates back, with
// compress/flate given the dictionary followed by prev (its last 32 KiB)
// and with InflateAfter, whatever prev and src are: the event before as
// JSON like src, an unrelated one, none, one longer than the window, and
// the dictionary alone unreachable behind a long prev. prev makes a
// value that repeats it smaller than AppendBlock does.
func TestDeflateAfterRoundTrip(t *testing.T) {
	var inf Inflater
	alphabet := []byte(`{}[]":,0123456789abcdefghijklmnopqrstuvwxyz_ "`)
	rapid.Check(t, func(t *rapid.T) {
		gen := func(label string) []byte {
			switch rapid.IntRange(0, 3).Draw(t, label+"-kind") {
			case 0:
				return rapid.SliceOfN(rapid.Byte(), 0, 2000).Draw(t, label+"-random")
			case 1:
				return rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 3000).Draw(t, label+"-json-ish")
			case 2:
				lo := rapid.IntRange(0, len(blockDictText)).Draw(t, label+"-lo")
				hi := rapid.IntRange(lo, len(blockDictText)).Draw(t, label+"-hi")
				return []byte(strings.Repeat(blockDictText[lo:hi], rapid.IntRange(1, 20).Draw(t, label+"-times")))
			}
			return bytes.Repeat([]byte{rapid.Byte().Draw(t, label+"-b")}, rapid.IntRange(0, 40_000).Draw(t, label+"-run"))
		}
		prev := gen("prev")
		src := gen("src")
		if rapid.Bool().Draw(t, "src-repeats-prev") && len(prev) > 0 {
			lo := rapid.IntRange(0, len(prev)).Draw(t, "from")
			src = append(append(src, prev[lo:]...), src...)
		}
		z := AppendBlockAfter(nil, src, blockDict, prev)
		win := append([]byte(blockDictText), prev...)
		win = win[max(0, len(win)-window):]
		out, err := io.ReadAll(flate.NewReaderDict(bytes.NewReader(z), win))
		if err != nil || !bytes.Equal(out, src) {
			t.Fatalf("compress/flate: %v, %d bytes back of %d", err, len(out), len(src))
		}
		got, err := inf.InflateAfter(z, blockDict, prev, len(src))
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("InflateAfter: %v, %d bytes back of %d", err, len(got), len(src))
		}
	})
	prev := []byte(`{"id":"chatcmpl-9hZp4xKq","object":"chat.completion.chunk","created":1719929234,"model":"gpt-4o-2024-05-13","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":null}]}`)
	src := bytes.Replace(prev, []byte("9hZp4xKq"), []byte("Aq81MbwZ"), 1)
	if a, b := len(AppendBlockAfter(nil, src, blockDict, prev)), len(AppendBlock(nil, src, blockDict)); a*3 > b {
		t.Errorf("the event again but for its id: %d bytes after it, %d without it", a, b)
	}
}
