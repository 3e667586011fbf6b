package sse

import (
	"bytes"
	"unicode/utf8"

	"github.com/layer0/anth/frame"
)

// The hot path of the Encoder: a content_block_delta in the API's compact
// form, matched byte by byte instead of through encoding/json, which costs
// microseconds an event. Anything that does not match exactly (other key
// order, extra fields, escapes this parser leaves to encoding/json) takes
// the general path, so the fast path changes speed, never output.

var (
	deltaPrefix = []byte(`{"type":"content_block_delta","index":`)
	deltaKinds  = []struct {
		head []byte
		kind frame.DeltaKind // 0 for text
	}{
		{[]byte(`,"delta":{"type":"text_delta","text":"`), 0},
		{[]byte(`,"delta":{"type":"input_json_delta","partial_json":"`), frame.DeltaInputJSON},
		{[]byte(`,"delta":{"type":"thinking_delta","thinking":"`), frame.DeltaThinking},
		{[]byte(`,"delta":{"type":"signature_delta","signature":"`), frame.DeltaSignature},
	}
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
	for _, k := range deltaKinds {
		if !bytes.HasPrefix(rest, k.head) {
			continue
		}
		s := rest[len(k.head):]
		if !bytes.HasSuffix(s, deltaTail) {
			return b, false
		}
		text, ok := unquote((*scratch)[:0], s[:len(s)-len(deltaTail)])
		*scratch = text
		if !ok {
			return b, false
		}
		if k.kind == 0 {
			return frame.AppendText(b, uint16(block), text), true
		}
		return frame.AppendDelta(b, uint16(block), k.kind, text), true
	}
	return b, false
}

// unquote appends the value of the inside of a JSON string (no quotes) to
// dst. It reports false for anything it does not handle exactly as
// encoding/json would: an unescaped quote, bad or surrogate \u escapes, and
// invalid UTF-8 (which encoding/json replaces).
func unquote(dst, s []byte) ([]byte, bool) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c < 0x20:
			return dst, false
		case c == '\\':
			if i+1 >= len(s) {
				return dst, false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				if i+6 > len(s) {
					return dst, false
				}
				r := rune(0)
				for _, h := range s[i+2 : i+6] {
					switch {
					case h >= '0' && h <= '9':
						r = r<<4 | rune(h-'0')
					case h >= 'a' && h <= 'f':
						r = r<<4 | rune(h-'a'+10)
					case h >= 'A' && h <= 'F':
						r = r<<4 | rune(h-'A'+10)
					default:
						return dst, false
					}
				}
				if r >= 0xD800 && r <= 0xDFFF {
					return dst, false // surrogates: the general path pairs them
				}
				dst = utf8.AppendRune(dst, r)
				i += 6
				continue
			default:
				return dst, false
			}
			i += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				return dst, false
			}
			dst = append(dst, s[i:i+n]...)
			i += n
		}
	}
	return dst, true
}
