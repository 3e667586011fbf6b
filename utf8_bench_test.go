package anth_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	stdutf8 "unicode/utf8"

	"github.com/layer0/anth/utf8"
)

// utf8Texts are 64 KiB of English, Chinese and mixed text. They are drawn
// from a seeded generator rather than one sentence repeated: a short period
// lets a branch predictor learn the whole input, which real text does not
// allow, and would flatter branchy validators.
var utf8Texts = func() map[string][]byte {
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("the model streams each token as it is sampled and a client shows it at once " +
		"so latency matters more than throughput for people reading along while long answers arrive")
	english := func(b []byte) []byte {
		b = append(b, words[rng.IntN(len(words))]...)
		if rng.IntN(12) == 0 {
			return append(b, ". "...)
		}
		return append(b, ' ')
	}
	chinese := func(b []byte) []byte {
		for range 1 + rng.IntN(12) {
			b = stdutf8.AppendRune(b, rune(0x4E00+rng.IntN(0x9FA5-0x4E00)))
		}
		return stdutf8.AppendRune(b, []rune("，。、；：？！")[rng.IntN(7)])
	}
	fill := func(next func([]byte) []byte) []byte {
		var b []byte
		for len(b) < 64<<10 {
			b = next(b)
		}
		// Cut at a character boundary: every text is valid as a whole.
		for n := 64 << 10; ; n-- {
			if stdutf8.Valid(b[:n]) {
				return b[:n]
			}
		}
	}
	return map[string][]byte{
		"ascii":   fill(english),
		"chinese": fill(chinese),
		"mixed": fill(func(b []byte) []byte {
			if rng.IntN(2) == 0 {
				return english(b)
			}
			return chinese(b)
		}),
	}
}()

// utf8Split cuts p the two ways text arrives: 4 KiB reads, and 1–8 byte
// pieces, the size of byte-level BPE tokens. Cuts fall anywhere, inside
// characters too, unless aligned, which moves each cut back to a character
// boundary: utf8.Valid needs that to check anything past a cut (on a piece
// that starts inside a character it returns false at the first byte, and
// would be timed doing almost nothing).
func utf8Split(p []byte, kind string, aligned bool) [][]byte {
	var out [][]byte
	for i, k := 0, 0; i < len(p); k++ {
		n := 4 << 10
		if kind == "pieces" {
			n = 1 + (k*7+k/3)%8
		}
		end := min(i+n, len(p))
		for aligned && end < len(p) && end > i && p[end]&0xC0 == 0x80 {
			end--
		}
		if end == i { // a piece shorter than the character: take it whole
			for end = i + 1; end < len(p) && p[end]&0xC0 == 0x80; end++ {
			}
		}
		out = append(out, p[i:end])
		i = end
	}
	return out
}

// seedParser is the seed design's reassembly class ported straight to Go,
// as people write it by hand: buffer the bytes, cut by the lead byte's
// length, keep what validates, drop the rest (including the valid ASCII
// that followed a bad lead byte), never flush the tail.
type seedParser struct{ buf []byte }

func (s *seedParser) feed(out, data []byte) []byte {
	s.buf = append(s.buf, data...)
	i := 0
	for i < len(s.buf) {
		b := s.buf[i]
		var n int
		switch {
		case b < 0x80:
			n = 1
		case b>>5 == 0b110:
			n = 2
		case b>>4 == 0b1110:
			n = 3
		case b>>3 == 0b11110:
			n = 4
		default:
			i++
			continue
		}
		if i+n > len(s.buf) {
			break
		}
		if stdutf8.Valid(s.buf[i : i+n]) {
			out = append(out, s.buf[i:i+n]...)
		}
		i += n
	}
	s.buf = s.buf[:copy(s.buf, s.buf[i:])]
	return out
}

func BenchmarkUTF8(b *testing.B) {
	for _, text := range []string{"ascii", "chinese", "mixed"} {
		for _, split := range []string{"4KiB", "pieces"} {
			pieces := utf8Split(utf8Texts[text], split, false)
			whole := utf8Split(utf8Texts[text], split, true)
			dst := make([]byte, 0, 8<<10)
			perPiece := func(b *testing.B) {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(pieces)), "ns/piece")
			}
			b.Run(text+"/"+split+"/Decoder", func(b *testing.B) {
				var d utf8.Decoder
				b.SetBytes(int64(len(utf8Texts[text])))
				b.ReportAllocs()
				for b.Loop() {
					for _, p := range pieces {
						dst = d.Append(dst[:0], p)
					}
				}
				perPiece(b)
			})
			b.Run(text+"/"+split+"/Decoder.Text", func(b *testing.B) {
				var d utf8.Decoder
				var out []byte
				b.SetBytes(int64(len(utf8Texts[text])))
				b.ReportAllocs()
				for b.Loop() {
					for _, p := range pieces {
						out = d.Text(dst[:0], p) // may alias p: dst stays ours
					}
				}
				_ = out
				perPiece(b)
			})
			b.Run(text+"/"+split+"/utf8.Valid", func(b *testing.B) {
				b.SetBytes(int64(len(utf8Texts[text])))
				b.ReportAllocs()
				ok := true
				for b.Loop() {
					for _, p := range whole {
						ok = stdutf8.Valid(p) && ok
					}
				}
				if !ok {
					b.Fatal("utf8.Valid rejects whole characters")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(whole)), "ns/piece")
				_ = ok
			})
			b.Run(text+"/"+split+"/seed", func(b *testing.B) {
				var s seedParser
				b.SetBytes(int64(len(utf8Texts[text])))
				b.ReportAllocs()
				for b.Loop() {
					for _, p := range pieces {
						dst = s.feed(dst[:0], p)
					}
				}
				perPiece(b)
			})
		}
	}
}

// utf8Invalid are 64 KiB of what a decoder meets when a body is not UTF-8
// at all: Latin-1 text (a server that ignored the charset: every accented
// letter is a lone byte), random bytes (a binary body), and continuation
// bytes alone, the worst case for a validator that scans a block ahead.
var utf8Invalid = func() map[string][]byte {
	rng := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields("café naïve über déjà vu façade the model streams each token résumé à la carte")
	var latin1, binary, cont []byte
	for len(latin1) < 64<<10 {
		for _, r := range words[rng.IntN(len(words))] + " " {
			latin1 = append(latin1, byte(r)) // every rune here is below U+0100
		}
	}
	for range 64 << 10 {
		binary = append(binary, byte(rng.Uint32()))
		cont = append(cont, 0x80|byte(rng.IntN(64)))
	}
	return map[string][]byte{"latin1": latin1[:64<<10], "binary": binary, "continuation": cont}
}()

// BenchmarkUTF8Invalid decodes the invalid texts beside what a user would
// otherwise reach for: bytes.ToValidUTF8 (one U+FFFD a run, not SPEC.md §7,
// and a new slice a call) and the seed design's parser (which drops bytes).
func BenchmarkUTF8Invalid(b *testing.B) {
	for _, text := range []string{"latin1", "binary", "continuation"} {
		for _, split := range []string{"4KiB", "pieces"} {
			pieces := utf8Split(utf8Invalid[text], split, false)
			var d utf8.Decoder
			var s seedParser
			for _, m := range []struct {
				name   string
				decode func(dst, p []byte) []byte
			}{
				{"Decoder", d.Append},
				{"bytes.ToValidUTF8", func(dst, p []byte) []byte { return append(dst, bytes.ToValidUTF8(p, []byte("\uFFFD"))...) }},
				{"seed", s.feed},
			} {
				b.Run(text+"/"+split+"/"+m.name, func(b *testing.B) {
					dst := make([]byte, 0, 16<<10)
					b.SetBytes(int64(len(utf8Invalid[text])))
					b.ReportAllocs()
					for b.Loop() {
						for _, p := range pieces {
							dst = m.decode(dst[:0], p)
						}
					}
				})
			}
		}
	}
}
