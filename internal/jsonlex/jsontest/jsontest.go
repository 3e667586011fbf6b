// Package jsontest draws JSON for the module's tests: documents as clients
// write them, and near-JSON one edit away, at which parsers go wrong. Only
// tests import it.
package jsontest

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// Doc draws a JSON object as a client would write it — every kind of
// value, escapes of every kind and hex case, numbers with fractions and
// exponents, whitespace anywhere — and, half the time, one edit to it (a
// byte deleted, changed or added, or the text cut short): the near-JSON at
// which parsers go wrong.
func Doc(t *rapid.T) []byte {
	ws := rapid.SampledFrom([]string{"", "", "", " ", "\n", "\t", "\r\n "})
	strs := rapid.SampledFrom([]string{`""`, `"a"`, `"data"`, `"text"`, `"model"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u00E9\u0009"`,
		`"\uABCD\uabcd\u0000\u001F"`, `"\u00ff\u0fAf\u9a9F"`, `"é中😀"`, `"QUJD"`, `"QUI="`, `" x "`, `"\u2028"`, `"disable_parallel_tool_use"`})
	nums := rapid.SampledFrom([]string{"0", "-0", "7", "-12", "10", "0.5", "-0.25", "1e9", "1E+2", "2e-3", "9223372036854775807",
		"-9223372036854775808", "9223372036854775808", "12345678901234567890", "1.0", "100"})
	var value func(depth int) string
	value = func(depth int) string {
		w := func() string { return ws.Draw(t, "ws") }
		switch k := rapid.IntRange(0, 6).Draw(t, "kind"); {
		case k == 0:
			return strs.Draw(t, "string")
		case k == 1:
			return nums.Draw(t, "number")
		case k == 2:
			return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "literal")
		case k == 3 && depth < 3:
			var items []string
			for range rapid.IntRange(0, 3).Draw(t, "items") {
				items = append(items, w()+value(depth+1)+w())
			}
			return "[" + strings.Join(items, ",") + w() + "]"
		case k >= 4 && depth < 3:
			return object(t, depth, w, value)
		}
		return strs.Draw(t, "string")
	}
	doc := []byte(object(t, 0, func() string { return ws.Draw(t, "ws") }, value))
	switch rapid.IntRange(0, 7).Draw(t, "edit") {
	case 0:
		doc = doc[:rapid.IntRange(0, len(doc)-1).Draw(t, "cut")]
	case 1:
		i := rapid.IntRange(0, len(doc)-1).Draw(t, "at")
		doc = append(doc[:i:i], doc[i+1:]...)
	case 2:
		i := rapid.IntRange(0, len(doc)-1).Draw(t, "at")
		doc[i] = rapid.SampledFrom([]byte("{}[],:\"\\ 019.eE+-tfnaAuxF/\x01\x7f")).Draw(t, "byte")
	case 3:
		i := rapid.IntRange(0, len(doc)).Draw(t, "at")
		b := rapid.SampledFrom([]byte("{}[],:\"\\ 019.eE+-tfnaAuxF/\x01\x7f")).Draw(t, "byte")
		doc = append(doc[:i:i], append([]byte{b}, doc[i:]...)...)
	}
	return doc
}

// object draws an object with distinct keys.
func object(t *rapid.T, depth int, w func() string, value func(int) string) string {
	keys := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b", "data", "type", "model", "é", "", "x\ty"}), 0, 4, rapid.ID).Draw(t, "keys")
	var members []string
	for _, k := range keys {
		kj, _ := json.Marshal(k)
		members = append(members, w()+string(kj)+w()+":"+w()+value(depth+1)+w())
	}
	return "{" + strings.Join(members, ",") + w() + "}"
}

// ValidRequest reports whether doc is what the extended request carries:
// one JSON object, valid UTF-8, no key twice in an object, no lone
// surrogate escape.
func ValidRequest(doc []byte) bool {
	doc = bytes.TrimLeft(doc, " \t\r\n")
	if !json.Valid(doc) || !utf8.Valid(doc) || len(doc) == 0 || doc[0] != '{' || bytes.Contains(doc, []byte(`\uD`)) || bytes.Contains(doc, []byte(`\ud`)) {
		return false
	}
	d := json.NewDecoder(bytes.NewReader(doc))
	var keys []map[string]bool // the keys of each object open; nil for an array
	inObject := func() bool { return len(keys) > 0 && keys[len(keys)-1] != nil }
	expectKey := []bool{}
	for {
		tok, err := d.Token()
		if err != nil {
			return true
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				keys, expectKey = append(keys, map[string]bool{}), append(expectKey, true)
				continue
			case '[':
				keys, expectKey = append(keys, nil), append(expectKey, false)
				continue
			default:
				keys, expectKey = keys[:len(keys)-1], expectKey[:len(expectKey)-1]
			}
		case string:
			if inObject() && expectKey[len(expectKey)-1] {
				if keys[len(keys)-1][v] {
					return false
				}
				keys[len(keys)-1][v] = true
				expectKey[len(expectKey)-1] = false
				continue
			}
		}
		if inObject() {
			expectKey[len(expectKey)-1] = true
		}
	}
}

// Exact returns s as a slice with no room after it, so that reading past
// its end fails.
func Exact(s string) []byte { b := []byte(s); return b[:len(b):len(b)] }
