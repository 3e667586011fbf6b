package sse

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestFastDelta: whenever the fast path takes an event, it gives the frame
// the general path (encoding/json) gives.
func TestFastDelta(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.String().Draw(t, "text")
		if rapid.Bool().Draw(t, "raw bytes") {
			text = string(rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "bytes"))
		}
		kind := rapid.SampledFrom([]string{"text_delta/text", "input_json_delta/partial_json", "thinking_delta/thinking", "signature_delta/signature"}).Draw(t, "kind")
		typ, field, _ := strings.Cut(kind, "/")
		q, _ := json.Marshal(text)
		if rapid.Bool().Draw(t, "escape") {
			q = []byte(`"` + rapid.SampledFrom([]string{`\u00e9`, `\ud83d\ude00`, `\/`, `\b\f`, `\u12`, `\x`, `\ud800`}).Draw(t, "esc") + `"`)
		}
		js := []byte(`{"type":"content_block_delta","index":` + rapid.SampledFrom([]string{"0", "7", "65535", "65536", "01"}).Draw(t, "index") +
			`,"delta":{"type":"` + typ + `","` + field + `":` + string(q) + `}}`)
		var scratch []byte
		fast, ok := fastDelta(nil, js, &scratch)
		if !ok {
			return
		}
		e := &Encoder{}
		e.sc = newScanner(bytes.NewReader(nil), 0)
		e.opts.RawEvents = true
		slow, err := e.general(nil, []byte("content_block_delta"), js)
		if err != nil || !bytes.Equal(fast, slow) {
			t.Fatalf("%s: fast % x, general % x (%v)", js, fast, slow, err)
		}
	})
}
