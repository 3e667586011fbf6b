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
	for name, src := range recordings(t) {
		if strings.HasPrefix(name, "layer0-") {
			continue
		}
		d := NewDecoder(bytes.NewReader(src), DecoderOptions{})
		if _, err := io.ReadAll(d); err != nil {
			t.Fatal(err)
		}
		// All but the chunks that change a template, finish or report usage.
		if chunks := bytes.Count(src, []byte("data: {")); d.core.hits < chunks-8 || d.core.hits == 0 {
			t.Errorf("%s: the fast path took %d of %d chunks", name, d.core.hits, chunks)
		}
	}
}
