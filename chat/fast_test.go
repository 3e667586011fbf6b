package chat

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// decodeBoth decodes src with the fast path and without it.
func decodeBoth(t tb, src []byte) (fast, general []byte) {
	fast = toANTH(t, src, DecoderOptions{})
	noFast = true
	defer func() { noFast = false }()
	return fast, toANTH(t, src, DecoderOptions{})
}

// TestFastPathAgrees: the fast path gives the general path's frames on
// every recording and on drawn streams, and takes most chunks of the
// recordings whose templates it may match (so that it is tested at all).
func TestFastPathAgrees(t *testing.T) {
	recs := recordings(t)
	for _, name := range sortedNames(recs) {
		fast, general := decodeBoth(t, recs[name])
		if !bytes.Equal(fast, general) {
			t.Errorf("%s: the fast path's ANTH differs from the general path's", name)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		src := genStream(t)
		if fast, general := decodeBoth(t, src); !bytes.Equal(fast, general) {
			t.Fatalf("the fast path's ANTH differs:\n% X\n% X\n%s", fast, general, src)
		}
	})
}

// TestFastPathTaken: the fast path takes the chunks it was made for: on
// the OpenAI API's shape every text chunk after the first, and most chunks
// of the recordings the official SDKs ship (logprobs included).
func TestFastPathTaken(t *testing.T) {
	d := NewDecoder(bytes.NewReader([]byte(textChunk("a")+textChunk("b")+textChunk("c \\\"q\\\"")+"data: [DONE]\n\n")), DecoderOptions{})
	if _, err := io.ReadAll(d); err != nil || d.core.hits != 2 {
		t.Errorf("the fast path took %d of the 2 chunks it should (%v)", d.core.hits, err)
	}
	// Three choices in turn (n: 3), a choice's chunks sometimes two in a
	// row, as the OpenAI API streams them: all but each choice's first
	// chunk (a new template) take the fast path.
	var choices strings.Builder
	for _, c := range "0120120011220120" {
		choices.WriteString(strings.Replace(textChunk("x"), `"index":0`, `"index":`+string(c), 1))
	}
	choices.WriteString("data: [DONE]\n\n")
	d = NewDecoder(strings.NewReader(choices.String()), DecoderOptions{})
	if _, err := io.ReadAll(d); err != nil || d.core.hits != 16-3 {
		t.Errorf("the fast path took %d of the %d chunks of three choices in turn it should (%v)", d.core.hits, 16-3, err)
	}
	for name, src := range recordings(t) {
		if strings.HasPrefix(name, "layer0-") || strings.HasPrefix(name, "chat-more/vercel-ai_") || name == "chat-more/pydantic-ai_huggingface_hf_model_thinking_part_iter.sse" || strings.HasPrefix(name, "chat-more/openllmetry_writer_") {
			// The OpenAI API's recordings only: other servers' chunks may
			// change every time (Perplexity's citations and usage), or
			// have holes the fast path leaves to the general one
			// (Together's and Writer's copies of the text, §7b.2 item 6).
			continue
		}
		d := NewDecoder(bytes.NewReader(src), DecoderOptions{})
		if _, err := io.ReadAll(d); err != nil {
			t.Fatal(err)
		}
		// All but the chunks that change a template, finish or report usage
		// (up to 8 a choice: n > 1 streams its choices in turn); at least one
		// in a stream of five chunks or more (the role's chunk, the first
		// text's, a second text chunk, the finish, the usage: the four-chunk
		// response cut by max_tokens has none to take).
		chunks, choices := bytes.Count(src, []byte("data: {")), len(accumulate(t, src).Choices)
		if d.core.hits < chunks-8*choices || d.core.hits == 0 && chunks >= 5 {
			t.Errorf("%s: the fast path took %d of %d chunks", name, d.core.hits, chunks)
		}
	}
}
