package messages

import (
	"bytes"

	"github.com/layer0/anth/internal/jsonlex"

	"github.com/layer0/anth/frame"
)

// The hot path of the Decoder: a content_block_delta in the API's compact
// form (its padding allowed), or compact with its keys in another order,
// matched byte by byte as it comes, before any compacting, instead of
// through encoding/json, which costs microseconds an event. What it
// matches is one JSON value, so nothing goes unchecked. Anything that does
// not match exactly (whitespace elsewhere, extra fields, escapes left to
// encoding/json) is compacted and tried again, and then takes the general
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
	block, kind, quoted, ok := apiOrderShape(js)
	if !ok {
		return b, false
	}
	text, ok := jsonlex.AppendUnescaped((*scratch)[:0], quoted[1:len(quoted)-1])
	*scratch = text
	if !ok {
		return b, false
	}
	if kind == 0 {
		return frame.AppendText(b, block, text), true
	}
	return frame.AppendDelta(b, block, kind, text), true
}

// apiOrderShape matches js against a content_block_delta in the API's
// order, padded or not (cutDeltaTail): its block, its kind and its text as
// written, quotes included, which the caller checks. So js is one JSON
// value exactly when the text is one JSON string.
func apiOrderShape(js []byte) (block uint16, kind frame.DeltaKind, quoted []byte, ok bool) {
	if !bytes.HasPrefix(js, deltaPrefix) {
		return 0, 0, nil, false
	}
	rest := js[len(deltaPrefix):]
	i, n := 0, 0
	for n < len(rest) && n < 6 && rest[n] >= '0' && rest[n] <= '9' {
		i = i*10 + int(rest[n]-'0')
		n++
	}
	if n == 0 || (n > 1 && rest[0] == '0') || i > 0xFFFF {
		return 0, 0, nil, false
	}
	rest = rest[n:]
	for k, head := range deltaHeads {
		if !bytes.HasPrefix(rest, head) {
			continue
		}
		text, ok := cutDeltaTail(rest[len(head):])
		if !ok {
			return 0, 0, nil, false
		}
		// The quotes are around the text in rest: head ends with one.
		return uint16(i), frame.DeltaKind(k), rest[len(head)-1 : len(head)+len(text)+1], true
	}
	return 0, 0, nil, false
}

// validDelta reports whether js is a content_block_delta, in the API's
// order or compact in any other, whose text is one JSON string, and so is one JSON value, as
// jsonlex.Valid finds reading all of it: the check an event-stream
// client's every delta gets (API.CheckEvent), where the structure around
// the text costs a few comparisons. False says only that js is not such a
// delta.
func validDelta(js []byte) bool {
	_, _, quoted, ok := apiOrderShape(js)
	if !ok {
		_, _, quoted, ok = anyOrderShape(js)
	}
	return ok && jsonlex.Valid(quoted)
}

// cutDeltaTail returns s, the rest of a delta in the API's order after the
// opening quote of its text, without the text's closing quote and the two
// braces after it: `"}}`, or as the API pads it against length side
// channels, `"}` and spaces before the last brace (whitespace after it
// too: JSON allows it). AppendUnescaped then refuses an unescaped quote
// in what is left, so a match is one JSON value.
func cutDeltaTail(s []byte) ([]byte, bool) {
	i := len(s)
	for i > 0 && isSpace(s[i-1]) {
		i--
	}
	if i == 0 || s[i-1] != '}' {
		return nil, false
	}
	for i--; i > 0 && isSpace(s[i-1]); i-- {
	}
	if i < len(deltaTail)-1 || string(s[i-len(deltaTail)+1:i]) != string(deltaTail[:len(deltaTail)-1]) {
		return nil, false
	}
	return s[:i-len(deltaTail)+1], true
}

// isSpace is JSON's whitespace (RFC 8259 §2; jsonlex.SkipSpace).
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// anyOrderDelta is fastDelta for a content_block_delta whose keys come in
// another order than the API's: exactly "type", "index" and "delta" at the
// top and "type" and the kind's field in the delta, each once, in any
// order, keys without escapes. An upstream that decodes and re-encodes the
// API's JSON (a gateway, an SDK's mock server) writes keys in its own
// order, and without this every such delta took encoding/json's path, at
// 2.8 to 3.2 times the gateway's CPU (issue 26).
//
// It reads js, compact (whitespace only inside strings), in one pass, matching each member as compact JSON spells it up
// to its value, as apiOrderDelta matches the whole: reading the members
// with jsonlex.Members, which skipped the delta object whole and then read
// it again and called back for each member, cost a shuffled-keys delta
// three times what an API-order one costs. Any other input (whitespace
// but after the value included) is no match. It allocates nothing.
func anyOrderDelta(b, js []byte, scratch *[]byte) ([]byte, bool) {
	block, kind, quoted, ok := anyOrderShape(js)
	if !ok {
		return b, false
	}
	text, ok := jsonlex.AppendUnquoted((*scratch)[:0], quoted)
	*scratch = text
	if !ok {
		return b, false
	}
	if kind == 0 {
		return frame.AppendText(b, block, text), true
	}
	return frame.AppendDelta(b, block, kind, text), true
}

// anyOrderShape is apiOrderShape for a delta whose members come in any
// order (anyOrderDelta): its block, its kind and its text as written,
// quotes included, which the caller checks.
func anyOrderShape(js []byte) (block uint16, kind frame.DeltaKind, quoted []byte, ok bool) {
	if len(js) < 2 || js[0] != '{' {
		return 0, 0, nil, false
	}
	var index []byte
	typ, delta := false, false
	dkind, fkind := -1, -1 // the delta's type, and its text field's
	inDelta := false
	for i := 1; ; {
		rest := js[i:]
		switch {
		case inDelta:
			if k := deltaTypeMember(rest); k >= 0 && dkind < 0 {
				dkind, i = k, i+len(anyOrderTypes[k])
				break
			}
			k := deltaFieldKey(rest)
			if k < 0 || fkind >= 0 {
				return 0, 0, nil, false
			}
			// The kind's key says the value must be a string.
			j := i + len(anyOrderFields[k])
			if j >= len(js) || js[j] != '"' {
				return 0, 0, nil, false
			}
			end, ok := jsonlex.SkipString(js, j)
			if !ok {
				return 0, 0, nil, false
			}
			fkind, quoted, i = k, js[j:end], end
		case bytes.HasPrefix(rest, anyOrderTop[0]): // "type":"content_block_delta"
			if typ {
				return 0, 0, nil, false
			}
			typ, i = true, i+len(anyOrderTop[0])
		case bytes.HasPrefix(rest, anyOrderTop[1]): // "index":
			j := i + len(anyOrderTop[1])
			end := j
			for end < len(js) && end-j < 6 && js[end] >= '0' && js[end] <= '9' {
				end++
			}
			if index != nil || end == j {
				return 0, 0, nil, false
			}
			index, i = js[j:end], end
		case bytes.HasPrefix(rest, anyOrderTop[2]): // "delta":{
			if delta {
				return 0, 0, nil, false
			}
			inDelta, delta, i = true, true, i+len(anyOrderTop[2])
			continue
		default:
			return 0, 0, nil, false
		}
		if i >= len(js) {
			return 0, 0, nil, false
		}
		if js[i] == ',' {
			i++
			continue
		}
		if js[i] != '}' {
			return 0, 0, nil, false
		}
		i++
		if inDelta {
			// The delta object's end: the top level's members go on.
			inDelta = false
			if i < len(js) && js[i] == ',' {
				i++
				continue
			}
			if i >= len(js) || js[i] != '}' {
				return 0, 0, nil, false
			}
			i++
		}
		for i < len(js) && isSpace(js[i]) {
			i++ // JSON allows whitespace after the value
		}
		if i != len(js) {
			return 0, 0, nil, false
		}
		break
	}
	if !typ || index == nil || dkind < 0 || dkind != fkind {
		return 0, 0, nil, false
	}
	n := 0
	for _, c := range index {
		n = n*10 + int(c-'0')
	}
	if (len(index) > 1 && index[0] == '0') || n > 0xFFFF {
		return 0, 0, nil, false
	}
	return uint16(n), frame.DeltaKind(dkind), quoted, true
}

// The members anyOrderDelta reads, each as compact JSON spells it up to
// its value: the top level's (type with its one value, index, delta with
// its opening brace), and the delta's, by kind (citations, whose value
// is an object, take the general path).
var (
	anyOrderTop                   = [3][]byte{[]byte(`"type":"content_block_delta"`), []byte(`"index":`), []byte(`"delta":{`)}
	anyOrderTypes, anyOrderFields = func() (types, fields [frame.DeltaSignature + 1][]byte) {
		for k := range types {
			types[k] = []byte(`"type":"` + deltaTypes[k].typ + `"`)
			fields[k] = []byte(`"` + deltaTypes[k].field + `":`)
		}
		return types, fields
	}()
)

// deltaTypeMember returns the kind whose "type" member b starts with, or -1.
func deltaTypeMember(b []byte) int {
	for k, t := range anyOrderTypes {
		if bytes.HasPrefix(b, t) {
			return k
		}
	}
	return -1
}

// deltaFieldKey returns the kind whose text field's key b starts with, or
// -1.
func deltaFieldKey(b []byte) int {
	for k, f := range anyOrderFields {
		if bytes.HasPrefix(b, f) {
			return k
		}
	}
	return -1
}
