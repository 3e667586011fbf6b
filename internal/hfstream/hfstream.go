// Package hfstream is the baseline the detokenizer benchmarks set package
// vocab against: Hugging Face tokenizers' DecodeStream (the way vLLM and TGI
// detokenize), which decodes the window of IDs since the last emitted text
// twice per token, as a string each time, and holds its output while the
// decoding ends in U+FFFD. It is for benchmarks only; one copy, so the
// package's benchmark and the module's measure the same baseline.
package hfstream

import (
	"strings"
	stdutf8 "unicode/utf8"

	"github.com/layer0/anth/utf8"
)

// Vocabulary gives a token's bytes (vocab.Vocabulary does).
type Vocabulary interface {
	Bytes(id uint32) ([]byte, bool)
}

// Stream is one DecodeStream. Its zero value with V set is ready.
type Stream struct {
	V           Vocabulary
	ids         []uint32
	prefix      string
	prefixIndex int
	scratch     []byte
	dec         utf8.Decoder
}

// decode is the tokenizer's batch decode: the tokens' bytes joined, as a
// string with ill-formed bytes replaced as from_utf8_lossy does (package
// utf8's replacement, SPEC.md §7).
func (h *Stream) decode(ids []uint32) string {
	b := h.scratch[:0]
	for _, id := range ids {
		p, _ := h.V.Bytes(id)
		b = append(b, p...)
	}
	h.scratch = b
	if stdutf8.Valid(b) {
		return string(b)
	}
	h.dec = utf8.Decoder{}
	return string(h.dec.Flush(h.dec.Append(nil, b)))
}

// Step is tokenizers' step_decode_stream: the text id completes, if any.
func (h *Stream) Step(id uint32) (string, bool) {
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
