package fuzz

import (
	"bytes"
	"testing"
	stdutf8 "unicode/utf8"

	"github.com/layer0/anth/utf8"
)

// FuzzUTF8 decodes arbitrary bytes in one piece and split at points chosen
// by the fuzzer: the outputs must be equal and valid, valid input must come
// out unchanged, at most 3 bytes may be held, and strict mode must emit a
// prefix of the lenient output.
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

		var split utf8.Decoder
		var out []byte
		rest := in
		for c := cuts; len(rest) > 0; c >>= 4 {
			n := min(int(c&15), len(rest))
			if c == 0 {
				n = len(rest)
			}
			out = split.Append(out, rest[:n])
			rest = rest[n:]
			if split.Pending() > 3 {
				t.Fatalf("holding %d bytes", split.Pending())
			}
		}
		out = split.Flush(out)
		if !bytes.Equal(out, whole) {
			t.Fatalf("split output\n% X\ndiffers from one-piece\n% X", out, whole)
		}

		strict := utf8.Decoder{Strict: true}
		s := strict.Flush(strict.Append(nil, in))
		if !bytes.HasPrefix(whole, s) || (strict.Err() == nil) != bytes.Equal(s, in) {
			t.Fatalf("strict output % X (err %v) is not the valid prefix", s, strict.Err())
		}
	})
}
