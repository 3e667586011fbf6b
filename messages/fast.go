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

// fastDelta matches a compact content_block_delta and appends its frame:
// in the API's own order byte by byte, else in any order.
func fastDelta(b, js []byte, scratch *[]byte) ([]byte, bool) {
	if out, ok := apiOrderDelta(b, js, scratch); ok {
		return out, true
	}
	return anyOrderDelta(b, js, scratch)
}

// apiOrderDelta matches a content_block_delta written as the API writes it.
func apiOrderDelta(b, js []byte, scratch *[]byte) ([]byte, bool) {
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

// anyOrderDelta is fastDelta for a content_block_delta whose keys come in
// another order than the API's: exactly "type", "index" and "delta" at the
// top and "type" and the kind's field in the delta, each once, in any
// order, keys without escapes. An upstream that decodes and re-encodes the
// API's JSON (a gateway, an SDK's mock server) writes keys in its own
// order, and without this every such delta took encoding/json's path, at
// 2.8 to 3.2 times the gateway's CPU (issue 26). It reads the compact JSON
// the Decoder made with jsonlex, and allocates nothing.
func anyOrderDelta(b, js []byte, scratch *[]byte) ([]byte, bool) {
	var typ, index, delta []byte
	ok := jsonlex.Members(js, func(k, v []byte) bool {
		switch string(k) {
		case `"type"`:
			typ, v = v, typ
		case `"index"`:
			index, v = v, index
		case `"delta"`:
			delta, v = v, delta
		default:
			return false
		}
		return v == nil // each key once
	})
	if !ok || string(typ) != `"content_block_delta"` || index == nil || delta == nil {
		return b, false
	}
	block := 0
	for i, c := range index {
		if c < '0' || c > '9' || i > 5 || (i > 0 && index[0] == '0') {
			return b, false
		}
		block = block*10 + int(c-'0')
	}
	if block > 0xFFFF {
		return b, false
	}
	var dtype, field, value []byte
	ok = jsonlex.Members(delta, func(k, v []byte) bool {
		if string(k) == `"type"` {
			dtype, v = v, dtype
		} else {
			field, value, v = k, v, value
		}
		return v == nil
	})
	if !ok || dtype == nil || field == nil || len(value) < 2 || value[0] != '"' {
		return b, false
	}
	for kind, t := range deltaTypes {
		if frame.DeltaKind(kind) == frame.DeltaCitation || len(dtype) != len(t.typ)+2 || string(dtype[1:len(dtype)-1]) != t.typ ||
			len(field) != len(t.field)+2 || string(field[1:len(field)-1]) != t.field {
			continue
		}
		text, ok := jsonlex.AppendUnquoted((*scratch)[:0], value)
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
