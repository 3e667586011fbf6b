package chat

import (
	"bytes"
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

// TestFastPathTaken: on a stream of the OpenAI API's shape the fast path
// takes every text chunk after the first.
func TestFastPathTaken(t *testing.T) {
	d := NewDecoder(bytes.NewReader([]byte(textChunk("a")+textChunk("b")+textChunk("c \\\"q\\\"")+"data: [DONE]\n\n")), DecoderOptions{})
	taken := 0
	for i := 0; ; i++ {
		before := d.core.last
		_, err := d.Next()
		if err != nil {
			break
		}
		if i > 0 && i < 3 && before == 0 && d.core.last == 0 {
			taken++
		}
	}
	if taken != 2 {
		t.Errorf("the fast path took %d of the 2 chunks it should", taken)
	}
}
