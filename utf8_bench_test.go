package anth_test

import (
	"strings"
	"testing"
	stdutf8 "unicode/utf8"

	"github.com/layer0/anth/utf8"
)

// utf8Texts are 64 KiB of English, Chinese and mixed text.
var utf8Texts = func() map[string][]byte {
	fill := func(s string) []byte { return []byte(strings.Repeat(s, 64<<10/len(s)+1)[:64<<10]) }
	return map[string][]byte{
		"ascii":   fill("Streaming an answer token by token is cheap for the model and costly on the wire. "),
		"chinese": fill("流式输出时，每个词元都被包成一个完整的事件，字节多得多。中文字符常被切成两三个词元。"),
		"mixed":   fill("ANTH sends the same text 用更少的字节, and 中文 stays intact; tokens 切分 anywhere. "),
	}
}()

// utf8Splits are the two ways text arrives: 4 KiB reads, and 1–8 byte
// pieces, the size of byte-level BPE tokens.
func utf8Split(p []byte, kind string) [][]byte {
	var out [][]byte
	for i, k := 0, 0; i < len(p); k++ {
		n := 4 << 10
		if kind == "pieces" {
			n = 1 + (k*7+k/3)%8
		}
		n = min(n, len(p)-i)
		out = append(out, p[i:i+n])
		i += n
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
			pieces := utf8Split(utf8Texts[text], split)
			dst := make([]byte, 0, 8<<10)
			perPiece := func(b *testing.B) {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(pieces)), "ns/piece")
			}
			b.Run(text+"/"+split+"/Decoder", func(b *testing.B) {
				var d utf8.Decoder
				b.SetBytes(64 << 10)
				b.ReportAllocs()
				for b.Loop() {
					for _, p := range pieces {
						dst = d.Append(dst[:0], p)
					}
				}
				perPiece(b)
			})
			b.Run(text+"/"+split+"/utf8.Valid", func(b *testing.B) {
				b.SetBytes(64 << 10)
				b.ReportAllocs()
				ok := true
				for b.Loop() {
					for _, p := range pieces {
						ok = stdutf8.Valid(p) && ok
					}
				}
				perPiece(b)
				_ = ok
			})
			b.Run(text+"/"+split+"/seed", func(b *testing.B) {
				var s seedParser
				b.SetBytes(64 << 10)
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
