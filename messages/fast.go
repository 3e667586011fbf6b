package messages

import (
	"bytes"

	"github.com/layer0/anth/internal/jsonlex"

	"github.com/layer0/anth/frame"
)

// The hot path of the Decoder: a content_block_delta in the API's compact
// form, matched byte by byte instead of through encoding/json, which costs
// microseconds an event. Anything that does not match exactly (another key
// order, extra fields, escapes left to encoding/json) takes the general
// path, so the fast path changes speed, never output.

var (
	deltaPrefix = []byte(`{"type":"content_block_delta","index":`)
	// deltaHeads[k] is what follows the index in a delta of kind k, up to
	// the opening quote of its text (citations, whose value is an object,
	// take the general path).
	deltaHeads = func() (h [frame.DeltaSignature + 1][]byte) {
		for k := range h {
			h[k] = []byte(`,"delta":{"type":"` + deltaTypes[k].typ + `","` + deltaTypes[k].field + `":"`)
		}
		return h
	}()
	deltaTail = []byte(`"}}`)
)

// fastDelta matches a compact content_block_delta and appends its frame.
func fastDelta(b, js []byte, scratch *[]byte) ([]byte, bool) {
	if !bytes.HasPrefix(js, deltaPrefix) {
		return b, false
	}
	rest := js[len(deltaPrefix):]
	block, n := 0, 0
	for n < len(rest) && n < 6 && rest[n] >= '0' && rest[n] <= '9' {
		block = block*10 + int(rest[n]-'0')
		n++
	}
	if n == 0 || (n > 1 && rest[0] == '0') || block > 0xFFFF {
		return b, false
	}
	rest = rest[n:]
	for kind, head := range deltaHeads {
		if !bytes.HasPrefix(rest, head) {
			continue
		}
		s := rest[len(head):]
		if !bytes.HasSuffix(s, deltaTail) {
			return b, false
		}
		text, ok := jsonlex.AppendUnescaped((*scratch)[:0], s[:len(s)-len(deltaTail)])
		*scratch = text
		if !ok {
			return b, false
		}
		if kind == 0 {
			return frame.AppendText(b, uint16(block), text), true
		}
		return frame.AppendDelta(b, uint16(block), frame.DeltaKind(kind), text), true
	}
	return b, false
}
