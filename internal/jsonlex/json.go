package jsonlex

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	anthutf8 "github.com/layer0/anth/utf8"
)

// Field returns the raw value at path in js: path[0]'s value in the
// object js, then path[1]'s within that, and so on. It reports false when
// a step is missing or not an object, or js is not well formed where it
// looks.
func Field(js []byte, path ...string) ([]byte, bool) {
	i := SkipSpace(js, 0)
	for depth, key := range path {
		if i >= len(js) || js[i] != '{' {
			return nil, false
		}
		i = SkipSpace(js, i+1)
		for {
			if i >= len(js) || js[i] != '"' {
				return nil, false
			}
			end, ok := SkipString(js, i)
			if !ok {
				return nil, false
			}
			k := js[i+1 : end-1]
			if i = SkipSpace(js, end); i >= len(js) || js[i] != ':' {
				return nil, false
			}
			start := SkipSpace(js, i+1)
			if end, ok = skipValue(js, start); !ok {
				return nil, false
			}
			if sameKey(k, key) {
				if depth == len(path)-1 {
					return js[start:end], true
				}
				i = start
				break
			}
			if i = SkipSpace(js, end); i < len(js) && js[i] == ',' {
				i = SkipSpace(js, i+1)
				continue
			}
			return nil, false
		}
	}
	return nil, false
}

// Uint returns the unsigned integer at path in js.
func Uint(js []byte, path ...string) (uint64, bool) {
	v, ok := Field(js, path...)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	return n, err == nil
}

// sameKey compares a raw key, escapes included, with a plain one.
func sameKey(raw []byte, key string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == key
	}
	s, ok := AppendUnescaped(nil, raw)
	return ok && string(s) == key
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace (RFC 8259 §2): the module's one whitespace rule.
func SkipSpace(js []byte, i int) int {
	for i < len(js) && (js[i] == ' ' || js[i] == '\t' || js[i] == '\n' || js[i] == '\r') {
		i++
	}
	return i
}

// SkipString returns the index after the string that starts at js[i] (its
// opening quote): the first quote after it that an even number of
// backslashes precede. It checks nothing inside the string: a caller that
// needs its value unquotes it (AppendUnquoted), which does.
func SkipString(js []byte, i int) (int, bool) {
	start := i
	for i++; ; {
		k := bytes.IndexByte(js[i:], '"')
		if k < 0 {
			return 0, false
		}
		j := i + k
		n := 0
		for p := j - 1; p > start && js[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, true
		}
		i = j + 1
	}
}

// AppendUnquoted returns the value of the JSON string raw (quotes included),
// appended to dst.
func AppendUnquoted(dst, raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return dst, false
	}
	return AppendUnescaped(dst, raw[1:len(raw)-1])
}

// skipValue returns the index after the value that starts at js[i].
func skipValue(js []byte, i int) (int, bool) {
	if i >= len(js) {
		return 0, false
	}
	switch js[i] {
	case '"':
		return SkipString(js, i)
	case '{', '[':
		depth := 0
		for ; i < len(js); i++ {
			switch js[i] {
			case '"':
				end, ok := SkipString(js, i)
				if !ok {
					return 0, false
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
		}
		return 0, false
	}
	start := i
	for i < len(js) && js[i] != ',' && js[i] != '}' && js[i] != ']' && js[i] != ' ' && js[i] != '\n' && js[i] != '\r' && js[i] != '\t' {
		i++
	}
	return i, i > start
}

// Same reports whether a and b are the same JSON value. Numbers are
// compared as written, so no two different numbers ever pass as one.
func Same(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if equal, sure := Equal(a, b); sure {
		return equal
	}
	va, oka := DecodeNumbers(a)
	vb, okb := DecodeNumbers(b)
	return oka && okb && reflect.DeepEqual(va, vb)
}

// Equal compares two JSON values without decoding them: objects as
// sets of members, arrays in order, numbers and literals as written,
// strings byte for byte. It is sure of its answer unless a string or key
// differs only where one has an escape, or an object repeats a key (which
// decoding resolves, keeping the last): then Same decodes. It
// allocates nothing, which matters to the events (a message_delta, a
// content_block_start) whose keys come in another order than the bridge
// writes them.
func Equal(a, b []byte) (equal, sure bool) {
	a, b = trimSpace(a), trimSpace(b)
	if !closed(a) || !closed(b) {
		return false, false
	}
	switch a[0] {
	case '{':
		if b[0] != '{' {
			return false, true
		}
		return equalObjects(a, b)
	case '[':
		if b[0] != '[' {
			return false, true
		}
		ea, eb := a[1:len(a)-1], b[1:len(b)-1]
		for {
			va, ra, oka := nextItem(ea)
			vb, rb, okb := nextItem(eb)
			if !oka || !okb {
				return oka == okb, true
			}
			if eq, sure := Equal(va, vb); !eq || !sure {
				return eq, sure
			}
			ea, eb = ra, rb
		}
	case '"':
		if string(a) == string(b) {
			return true, true
		}
		return false, bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0
	}
	return string(a) == string(b), true
}

// equalObjects compares two objects member by member: each key of a must
// appear once in each, with equal values, and they must have as many
// members.
func equalObjects(a, b []byte) (equal, sure bool) {
	// Each object split into its members once, on the stack: a key of a
	// is then looked for among b's keys, not by scanning b (and a, for a
	// repeat) again and skipping every value on the way, which cost n²
	// value skips for n members, nested objects included.
	var bufA, bufB [maxCompareMembers]member
	ma, oka := splitMembers(a, bufA[:0])
	mb, okb := splitMembers(b, bufB[:0])
	if !oka || !okb {
		return false, false
	}
	for _, m := range ma {
		if bytes.IndexByte(m.key, '\\') >= 0 {
			return false, false
		}
		vb, nb := lookup(mb, m.key)
		if _, n := lookup(ma, m.key); n != 1 || nb > 1 {
			return false, false // a repeated key
		}
		if nb == 0 {
			return false, bytes.IndexByte(b, '\\') < 0 // b may spell key with escapes
		}
		if eq, sure := Equal(m.value, vb); !eq || !sure {
			// Values that differ decide only if neither object has a
			// key spelled with an escape: it may repeat this one, and
			// decoding keeps the last value.
			return eq, sure && !escapedKey(ma) && !escapedKey(mb)
		}
	}
	// Each key of a is once in b: b has no other member unless it has
	// more, which may be a's keys spelled with escapes.
	return len(ma) == len(mb), len(ma) == len(mb) || bytes.IndexByte(b, '\\') < 0
}

// escapedKey reports whether a key of ms has an escape.
func escapedKey(ms []member) bool {
	for _, m := range ms {
		if bytes.IndexByte(m.key, '\\') >= 0 {
			return true
		}
	}
	return false
}

// member is an object's member as written: its raw key (quotes included)
// and its value.
type member struct{ key, value []byte }

// splitMembers appends to ms the members of the object obj, which closed
// has checked, and reports whether it is well formed with at most
// maxCompareMembers of them.
func splitMembers(obj []byte, ms []member) ([]member, bool) {
	for rest := obj[1 : len(obj)-1]; SkipSpace(rest, 0) < len(rest); {
		if len(ms) == maxCompareMembers {
			return ms, false
		}
		k, v, r, ok := nextMember(rest)
		if !ok {
			return ms, false
		}
		ms = append(ms, member{k, v})
		rest = r
	}
	return ms, true
}

// lookup returns the value of the last member of ms with key, and how many
// have it.
func lookup(ms []member, key []byte) (value []byte, n int) {
	for _, m := range ms {
		if string(m.key) == string(key) {
			value = m.value
			n++
		}
	}
	return value, n
}

// maxCompareMembers bounds the objects equalObjects compares: it holds
// their members on the stack and compares each key of a with b's, n² for
// n members (when it scanned instead, 4,000 keys, 39 KB, took 0.56 s).
// Larger objects, which no event the bridge writes has, are left to
// Same's decoding, O(n log n).
const maxCompareMembers = 32

// nextMember splits the first member off the members of an object (the
// text between its braces): its raw key (quotes included), its value, and
// the rest.
func nextMember(ms []byte) (key, value, rest []byte, ok bool) {
	i := SkipSpace(ms, 0)
	if i >= len(ms) || ms[i] != '"' {
		return nil, nil, nil, false
	}
	end, ok := SkipString(ms, i)
	if !ok {
		return nil, nil, nil, false
	}
	key = ms[i:end]
	if i = SkipSpace(ms, end); i >= len(ms) || ms[i] != ':' {
		return nil, nil, nil, false
	}
	value, rest, ok = nextItem(ms[i+1:])
	return key, value, rest, ok
}

// Members calls f with the raw key (quotes and escapes as written) and the
// raw value of each member of the JSON object obj, in order, until f
// returns false; it reports whether obj is an object whose members it read
// to the end and f accepted every one. It checks only the object's outline:
// obj must be JSON, compact or not.
func Members(obj []byte, f func(key, value []byte) bool) bool {
	obj = trimSpace(obj)
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return false
	}
	// Whitespace may stand before the closing brace as anywhere else.
	for rest := obj[1 : len(obj)-1]; SkipSpace(rest, 0) < len(rest); {
		k, v, r, ok := nextMember(rest)
		if !ok || !f(k, v) {
			return false
		}
		rest = r
	}
	return true
}

// Elements calls f with the raw value of each element of the JSON array
// arr, in order, until f returns false; it reports whether arr is an array
// whose elements it read to the end and f accepted every one. Like Members
// it checks only the outline, and the values are subslices of arr (so their
// place in it is cap(arr)-cap(value) from its start).
func Elements(arr []byte, f func(value []byte) bool) bool {
	arr = trimSpace(arr)
	if len(arr) < 2 || arr[0] != '[' || arr[len(arr)-1] != ']' {
		return false
	}
	for rest := arr[1 : len(arr)-1]; SkipSpace(rest, 0) < len(rest); {
		v, r, ok := nextItem(rest)
		if !ok || !f(v) {
			return false
		}
		rest = r
	}
	return true
}

// nextItem splits the first value off a comma-separated list.
func nextItem(list []byte) (value, rest []byte, ok bool) {
	start := SkipSpace(list, 0)
	end, ok := skipValue(list, start)
	if !ok {
		return nil, nil, false
	}
	rest = list[end:]
	if i := SkipSpace(rest, 0); i < len(rest) && rest[i] == ',' {
		rest = rest[i+1:]
	}
	return list[start:end], rest, true
}

// closed reports whether a value is not empty and, if it opens an object
// or array, ends by closing it.
func closed(v []byte) bool {
	switch {
	case len(v) == 0:
		return false
	case v[0] == '{':
		return len(v) >= 2 && v[len(v)-1] == '}'
	case v[0] == '[':
		return len(v) >= 2 && v[len(v)-1] == ']'
	}
	return true
}

func trimSpace(js []byte) []byte {
	js = js[SkipSpace(js, 0):]
	for len(js) > 0 && (js[len(js)-1] == ' ' || js[len(js)-1] == '\t' || js[len(js)-1] == '\n' || js[len(js)-1] == '\r') {
		js = js[:len(js)-1]
	}
	return js
}

func DecodeNumbers(js []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return nil, false
	}
	return v, true
}

// AppendString appends s as a JSON string. Ill-formed UTF-8 becomes
// U+FFFD, one per maximal subpart (SPEC.md §7), so the string is valid JSON
// whatever s holds.
func AppendString[T string | []byte](b []byte, s T) []byte {
	if !ValidUTF8(s) {
		var d anthutf8.Decoder
		s = T(d.Flush(d.Append(nil, []byte(s))))
	}
	b = append(b, '"')
	b = AppendEscaped(b, s)
	return append(b, '"')
}

func ValidUTF8[T string | []byte](s T) bool {
	switch v := any(s).(type) {
	case string:
		return utf8.ValidString(v)
	case []byte:
		return utf8.Valid(v)
	}
	return false
}

// AppendEscaped appends valid UTF-8 text escaped for a JSON string: quote,
// backslash and control characters are escaped and the rest passes through,
// so an SSE data line that holds it stays one line.
func AppendEscaped[T string | []byte](b []byte, s T) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := range len(s) {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	return append(b, s[start:]...)
}

// AppendUnescaped appends the value of the inside of a JSON string (no quotes) to
// dst. It reports false for anything it does not handle exactly as
// encoding/json would: an unescaped quote or control character, bad \u
// escapes, lone surrogate escapes and invalid UTF-8 (both of which
// encoding/json replaces with U+FFFD). A surrogate pair is one character.
func AppendUnescaped(dst, s []byte) ([]byte, bool) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c < 0x20:
			return dst, false
		case c == '\\':
			n, ok := Unescape(&dst, s[i:])
			if !ok {
				return dst, false
			}
			i += n
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

// Unescape appends the character of the escape at the start of s and
// returns the escape's length.
func Unescape(dst *[]byte, s []byte) (int, bool) {
	if len(s) < 2 {
		return 0, false
	}
	switch e := s[1]; e {
	case '"', '\\', '/':
		*dst = append(*dst, e)
	case 'b':
		*dst = append(*dst, '\b')
	case 'f':
		*dst = append(*dst, '\f')
	case 'n':
		*dst = append(*dst, '\n')
	case 'r':
		*dst = append(*dst, '\r')
	case 't':
		*dst = append(*dst, '\t')
	case 'u':
		r, ok := hex4(s)
		if !ok {
			return 0, false
		}
		if r >= 0xDC00 && r <= 0xDFFF {
			return 0, false // a low surrogate alone
		}
		if r >= 0xD800 && r <= 0xDBFF {
			// A high surrogate must be followed by an escaped low one:
			// the pair is one character (RFC 8259 §7), as Python's
			// json.dumps and PHP's json_encode write every emoji. A lone
			// surrogate has no UTF-8; encoding/json replaces it with
			// U+FFFD, which would not give the same string back, so it is
			// refused.
			lo, ok := hex4(s[6:])
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return 0, false
			}
			*dst = utf8.AppendRune(*dst, utf16.DecodeRune(r, lo))
			return 12, true
		}
		*dst = utf8.AppendRune(*dst, r)
		return 6, true
	default:
		return 0, false
	}
	return 2, true
}

// hex4 reads the escape \u followed by four hex digits at the start of s.
func hex4(s []byte) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	r := rune(0)
	for _, h := range s[2:6] {
		switch {
		case h >= '0' && h <= '9':
			r = r<<4 | rune(h-'0')
		case h >= 'a' && h <= 'f':
			r = r<<4 | rune(h-'a'+10)
		case h >= 'A' && h <= 'F':
			r = r<<4 | rune(h-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
