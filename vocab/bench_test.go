package vocab

import (
	"strings"
	"testing"
	stdutf8 "unicode/utf8"
)

// hfStream is the baseline: Hugging Face tokenizers' DecodeStream (also
// the way vLLM and TGI detokenize), which decodes the window of IDs since
// the last emitted text twice per token, as a String each time, and holds
// its output while the decoding ends in U+FFFD.
type hfStream struct {
	v           *Vocabulary
	ids         []uint32
	prefix      string
	prefixIndex int
	scratch     []byte
}

// decode is the tokenizer's batch decode: the tokens' bytes joined, as a
// string with ill-formed bytes replaced.
func (h *hfStream) decode(ids []uint32) string {
	b := h.scratch[:0]
	for _, id := range ids {
		p, _ := h.v.Bytes(id)
		b = append(b, p...)
	}
	h.scratch = b
	if stdutf8.Valid(b) {
		return string(b)
	}
	return lossy(b)
}

// step is tokenizers' step_decode_stream.
func (h *hfStream) step(id uint32) (string, bool) {
	if h.prefix == "" && len(h.ids) > 0 {
		if p := h.decode(h.ids); !strings.HasSuffix(p, "\uFFFD") {
			h.prefix, h.prefixIndex = p, len(h.ids)
		}
	}
	h.ids = append(h.ids, id)
	s := h.decode(h.ids)
	if len(s) > len(h.prefix) && !strings.HasSuffix(s, "\uFFFD") {
		text := s[len(h.prefix):]
		newPrefixIndex := len(h.ids) - h.prefixIndex
		h.ids = append(h.ids[:0], h.ids[h.prefixIndex:]...)
		h.prefix = h.decode(h.ids)
		h.prefixIndex = newPrefixIndex
		return text, true
	}
	return "", false
}

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
	h := &hfStream{v: v}
	var got []byte
	for _, id := range ids {
		s, _ := h.step(id)
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
			h := &hfStream{v: v}
			for _, id := range ids {
				if s, ok := h.step(id); ok {
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
