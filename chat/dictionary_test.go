package chat

import (
	"bytes"
	"io"
	"testing"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
)

// eventData returns the data of the EVENT frames a Decoder makes of an
// SSE stream, raw: the JSON ones, which the dictionary is for.
func eventData(t testing.TB, src []byte) [][]byte {
	t.Helper()
	r := frame.NewReader(bytes.NewReader(toANTH(t, src, DecoderOptions{RawEvents: true})), frame.ReaderOptions{})
	var out [][]byte
	for {
		f, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		// A binary32 EVENT (a logprob, SPEC.md §3.10) is not JSON and is
		// never deflated: the dictionary is measured on the JSON ones.
		if ev, err := f.Event(); err == nil && ev.Encoding != frame.EventBinary32 {
			out = append(out, append([]byte(nil), ev.Data...))
		}
	}
}

// TestDictionaryPays measures EventDictionary against the Messages
// dictionary and none on the EVENT data the Decoder makes of every
// recording, each EVENT coded alone as plain ANTH codes it (SPEC.md
// §7b.6), and fails if it does not code them smaller than both, in all and
// for the recordings the official SDKs ship.
func TestDictionaryPays(t *testing.T) {
	dicts := []struct {
		name string
		d    *deflate.Dictionary
	}{{"chat", eventDict()}, {"messages", deflate.NewDictionary([]byte(messages.EventDictionary))}, {"none", nil}}
	recs := recordings(t)
	var total, sdk [4]int // raw, then by dictionary
	for _, name := range sortedNames(recs) {
		var sizes [4]int
		for _, ev := range eventData(t, recs[name]) {
			sizes[0] += len(ev)
			for i, d := range dicts {
				sizes[i+1] += len(deflate.AppendBlock(nil, ev, d.d))
			}
		}
		for i := range sizes {
			total[i] += sizes[i]
			if !bytes.HasPrefix([]byte(name), []byte("layer0-")) {
				sdk[i] += sizes[i]
			}
		}
		t.Logf("%-60s EVENT data %6d B: chat %5d, messages %5d, none %5d", name, sizes[0], sizes[1], sizes[2], sizes[3])
	}
	for _, s := range []struct {
		what  string
		sizes [4]int
	}{{"all", total}, {"SDK recordings", sdk}} {
		t.Logf("%s: EVENT data %d B: chat %d, messages %d, none %d", s.what, s.sizes[0], s.sizes[1], s.sizes[2], s.sizes[3])
		if s.sizes[1] >= s.sizes[2] || s.sizes[1] >= s.sizes[3] {
			t.Errorf("%s: the chat dictionary does not pay: %v", s.what, s.sizes)
		}
	}
}
