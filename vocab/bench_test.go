package vocab

import (
	"strings"
	"testing"

	"github.com/layer0/anth/internal/hfstream"
)

// benchText is multilingual chat-like text: English, code, CJK, emoji,
// Cyrillic, Arabic.
func benchText() string {
	parts := []string{
		"once upon a time she dreamt of the sea, and the sea dreamt of her. ",
		"func main() {\n\treturn 0\n}\n\n",
		"你好，日本語のテキストと中文混在。",
		"😀 🇫🇷 café ação naïve ",
		"Привет, мир! مرحبا بالعالم ",
	}
	return strings.Repeat(strings.Join(parts, ""), 20)
}

func benchmarkDetokenize(b *testing.B, v *Vocabulary, text string, baseline bool) {
	ids := newEncoder(v).encode(nil, text)
	want := lossy([]byte(text))
	out := make([]byte, 0, 2*len(text))
	// Both decoders give the same text, or the comparison is void.
	h := &hfstream.Stream{V: v}
	var got []byte
	for _, id := range ids {
		s, _ := h.Step(id)
		got = append(got, s...)
	}
	if string(got) != want {
		b.Fatalf("baseline gives %q, want %q", got, want)
	}
	d := NewDetokenizer(v)
	for _, id := range ids {
		out, _, _ = d.Next(out, id)
	}
	if string(d.Flush(out)) != want {
		b.Fatalf("Detokenizer gives %q, want %q", out, want)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if baseline {
			h := &hfstream.Stream{V: v}
			for _, id := range ids {
				if s, ok := h.Step(id); ok {
					out = append(out[:0], s...)
				}
			}
		} else {
			d.Reset()
			out = out[:0]
			for _, id := range ids {
				out, _, _ = d.Next(out, id)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ids)), "ns/token")
}

// BenchmarkDetokenize measures ns/token against the baseline a user would
// otherwise write (Hugging Face's window re-decoding), on the same IDs.
func BenchmarkDetokenize(b *testing.B) {
	text := benchText()
	bl := byteLevel(b)
	sp := tok512(b)
	b.Run("byte-level/Detokenizer", func(b *testing.B) { benchmarkDetokenize(b, bl, text, false) })
	b.Run("byte-level/hf-window", func(b *testing.B) { benchmarkDetokenize(b, bl, text, true) })
	b.Run("sentencepiece/Detokenizer", func(b *testing.B) { benchmarkDetokenize(b, sp, text, false) })
	b.Run("sentencepiece/hf-window", func(b *testing.B) { benchmarkDetokenize(b, sp, text, true) })
}
