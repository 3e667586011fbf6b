package fuzz

import (
	"bytes"
	"testing"
	stdutf8 "unicode/utf8"

	"github.com/layer0/anth/utf8"
)

// utf8Pieces cuts in where cuts says: each 4 bits are the length of the
// next piece (0 makes an empty piece), and when no bits are left the rest
// is one piece.
func utf8Pieces(in []byte, cuts uint64) [][]byte {
	var pieces [][]byte
	for c := cuts; len(in) > 0; c >>= 4 {
		n := min(int(c&15), len(in))
		if c == 0 {
			n = len(in)
		}
		pieces = append(pieces, in[:n])
		in = in[n:]
	}
	return pieces
}

// FuzzUTF8 decodes arbitrary bytes in one piece and split at points chosen
// by the fuzzer, through Append and through Text: the outputs must be equal
// and valid, valid input must come out unchanged, at most 3 bytes may be
// held, cleaning each piece of the output must equal cleaning the whole,
// StripBOM must change nothing but a leading byte order mark, and strict
// mode must emit a prefix of the lenient output.
func FuzzUTF8(f *testing.F) {
	f.Add([]byte("\xF0\x9F\x98\x80 你好 \xC3A"), uint64(0x0102030405))
	f.Add([]byte("\xED\xA0\x80\xF4\x90\x80\x80\xE0\x80\xAF"), uint64(7))
	f.Fuzz(func(t *testing.T, in []byte, cuts uint64) {
		var one utf8.Decoder
		whole := one.Flush(one.Append(nil, in))
		if !stdutf8.Valid(whole) {
			t.Fatalf("invalid output % X", whole)
		}
		if stdutf8.Valid(in) && !bytes.Equal(whole, in) {
			t.Fatalf("valid input changed")
		}
		cleanWhole := utf8.AppendClean(nil, in)
		if !bytes.Equal(cleanWhole, utf8.AppendClean(nil, whole)) {
			t.Fatalf("AppendClean of the input and of its decoded text differ")
		}

		pieces := utf8Pieces(in, cuts)
		for _, text := range []bool{false, true} {
			var split utf8.Decoder
			var out, clean []byte
			for _, p := range pieces {
				var got []byte
				if text {
					got = split.Text(nil, p)
				} else {
					got = split.Append(nil, p)
				}
				out = append(out, got...)
				clean = utf8.AppendClean(clean, got)
				if split.Pending() > 3 {
					t.Fatalf("holding %d bytes", split.Pending())
				}
			}
			tail := split.Flush(nil)
			out, clean = append(out, tail...), utf8.AppendClean(clean, tail)
			if !bytes.Equal(out, whole) {
				t.Fatalf("split output (Text %v)\n% X\ndiffers from one-piece\n% X", text, out, whole)
			}
			if !bytes.Equal(clean, cleanWhole) {
				t.Fatalf("cleaned piece by piece (Text %v)\n% X\ndiffers from cleaned whole\n% X", text, clean, cleanWhole)
			}
		}

		strip := utf8.Decoder{StripBOM: true}
		var out []byte
		for _, p := range pieces {
			out = strip.Append(out, p)
		}
		if out = strip.Flush(out); !bytes.Equal(out, bytes.TrimPrefix(whole, []byte("\uFEFF"))) {
			t.Fatalf("StripBOM output\n% X\nis not the output without its leading BOM\n% X", out, whole)
		}

		strict := utf8.Decoder{Strict: true}
		s := strict.Flush(strict.Append(nil, in))
		if !bytes.HasPrefix(whole, s) || (strict.Err() == nil) != bytes.Equal(s, in) {
			t.Fatalf("strict output % X (err %v) is not the valid prefix", s, strict.Err())
		}
	})
}
