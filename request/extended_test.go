package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/internal/jsonlex/jsontest"
	"github.com/layer0/anth/internal/testdata"
)

// roundTrip converts a request body to ANTH and back.
func roundTrip(t tb, body string) ([]byte, []byte) {
	t.Helper()
	anth, err := AppendANTH(nil, []byte(body))
	if err != nil {
		t.Fatalf("%s: to ANTH: %v", body, err)
	}
	back, err := AppendJSON(nil, anth)
	if err != nil {
		t.Fatalf("%s: back to JSON: %v", body, err)
	}
	return anth, back
}

// sameValue compares JSON values with numbers as written.
func sameValue(a, b []byte) bool { return jsonlex.Same(a, b) }

func TestExtendedSeedForm(t *testing.T) {
	body := `{"model":"claude","max_tokens":1024,"messages":[{"role":"user","content":"Hi"}]}`
	anth, back := roundTrip(t, body)
	want, _ := Append(nil, Seed{Model: "claude", Messages: []Message{{Content: "Hi"}}, MaxTokens: 1024})
	if !bytes.Equal(anth, want) || !sameValue(back, []byte(body)) {
		t.Fatalf("seed request: % X, back %s", anth, back)
	}
	// Anything more goes in the extended form.
	for _, body := range []string{
		`{"model":"m","max_tokens":1,"messages":[],"stream":true}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]}`,
		`{"model":"m","max_tokens":-1,"messages":[]}`,
		`{"model":"m","max_tokens":1.5,"messages":[]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"system","content":"x"}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x","x":1}]}`,
		`{"model":"` + strings.Repeat("m", 256) + `","max_tokens":1,"messages":[]}`,
	} {
		anth, back := roundTrip(t, body)
		if string(anth[:4]) != "ANTX" || !sameValue(back, []byte(body)) {
			t.Errorf("%s: % X, back %s", body, anth[:4], back)
		}
	}
	// A system prompt is a leading system message in the seed form.
	body = `{"system":"Be brief.","model":"m","messages":[{"role":"user","content":"你好"},{"role":"assistant","content":""}],"max_tokens":128000}`
	if anth, back := roundTrip(t, body); string(anth[:4]) != "ANTH" || !sameValue(back, []byte(body)) {
		t.Fatalf("with a system prompt: %q, back %s", anth[:4], back)
	}
}

// TestExtendedExact: numbers keep their decimal spelling, base64 data
// travels as bytes, unknown fields are carried.
func TestExtendedExact(t *testing.T) {
	png := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk", 4) + "+M8AAAIHAQAA"
	body := `{"model":"claude-sonnet-4-5","max_tokens":12345678901234567890,"temperature":0.70,"top_k":-0,"future_field":{"x":[1e400,null,true,false,"\u00e9\n"]},` +
		`"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"}},{"type":"text","text":"What is this?","cache_control":{"type":"ephemeral"}}]}],"stream":true}`
	anth, back := roundTrip(t, body)
	if !sameValue(back, []byte(body)) {
		t.Fatalf("back:\n%s\nwant\n%s", back, body)
	}
	for _, exact := range []string{"12345678901234567890", "0.70", "-0", "1e400"} {
		if !bytes.Contains(back, []byte(exact)) {
			t.Errorf("the number %s did not keep its spelling: %s", exact, back)
		}
	}
	if !bytes.Contains(back, []byte(png)) || len(anth) > len(body)*85/100 {
		t.Errorf("%d bytes of ANTH for %d of JSON", len(anth), len(body))
	}
}

// TestExtendedRoundTrip: any JSON object round-trips to the same value, and
// its ANTH is canonical: the JSON of the same value gives the same bytes.
func TestExtendedRoundTrip(t *testing.T) {
	keys := rapid.SampledFrom([]string{"model", "data", "type", "text", "x", "é", "", "max_tokens", "messages"})
	var value *rapid.Generator[any]
	value = rapid.Deferred(func() *rapid.Generator[any] {
		return rapid.OneOf(
			rapid.Map(rapid.Int64(), func(v int64) any { return v }),
			rapid.Map(rapid.Float64(), func(v float64) any { return v }),
			rapid.Map(rapid.String(), func(s string) any { return s }),
			rapid.Map(rapid.SampledFrom([]string{"text", "base64", "iVBORw0K", "QUJD", "QUI=", "QQ==", "QR==", "user"}), func(s string) any { return s }),
			rapid.Just[any](nil), rapid.Just[any](true), rapid.Just[any](false),
			rapid.Map(rapid.SliceOfN(value, 0, 3), func(v []any) any { return v }),
			rapid.Map(rapid.MapOfN(keys, value, 0, 4), func(m map[string]any) any { return m }),
		)
	})
	rapid.Check(t, func(t *rapid.T) {
		obj := rapid.MapOfN(keys, value, 0, 5).Draw(t, "request")
		body, _ := json.Marshal(obj)
		anth, back := roundTrip(t, string(body))
		if !sameValue(back, body) {
			t.Fatalf("%s came back as %s", body, back)
		}
		again, err := AppendANTH(nil, back)
		if err != nil || !bytes.Equal(again, anth) {
			t.Fatalf("%s: the JSON it gives back encodes differently (%v)", body, err)
		}
	})
}

// TestExtendedErrors: bad JSON and non-canonical ANTH are errors with
// offsets; a seed-only receiver refuses the extended form by its magic.
func TestExtendedErrors(t *testing.T) {
	for body, off := range map[string]int64{
		`[1]`:              0,
		`{"a":1,"a":2}`:    7,
		`{"a":1} x`:        8,
		`{"a":"\ud800"}`:   6,
		`{"a":01}`:         6,
		"{\"a\":\"\xff\"}": 5,
		`{"a":[` + strings.Repeat("[", 200) + `]}`: 132,
	} {
		_, err := AppendANTH(nil, []byte(body))
		var e *Error
		if !errors.As(err, &e) || e.Offset != off {
			t.Errorf("%s: %v, want an error at %d", body, err, off)
		}
	}
	ext := func(v ...byte) []byte { return append([]byte("ANTX\x01"), v...) }
	for name, c := range map[string]struct {
		anth []byte
		kind error
	}{
		"version 2":          {[]byte("ANTX\x02\x09\x0A"), ErrMalformed},
		"not an object":      {ext(tagArray, tagEnd), ErrMalformed},
		"cut":                {ext(tagObject, tagString, 5, 'a'), ErrTruncated},
		"dict word literal":  {ext(tagObject, tagString, 4, 't', 'e', 'x', 't', tagNull, tagEnd), ErrMalformed},
		"int as text":        {ext(tagObject, tagString, 1, 'a', tagNumber, 2, '1', '2', tagEnd), ErrMalformed},
		"bad number":         {ext(tagObject, tagString, 1, 'a', tagNumber, 2, '1', 'x', tagEnd), ErrMalformed},
		"base64 not data":    {ext(tagObject, tagString, 1, 'a', tagBase64, 1, 0, tagEnd), ErrMalformed},
		"data literal b64":   {ext(tagObject, tagDict, 31, tagString, 4, 'Q', 'U', 'J', 'D', tagEnd), ErrMalformed},
		"duplicate key":      {ext(tagObject, tagString, 1, 'a', tagNull, tagString, 1, 'a', tagNull, tagEnd), ErrMalformed},
		"trailing":           {ext(tagObject, tagEnd, 0), ErrMalformed},
		"unknown tag":        {ext(tagObject, tagString, 1, 'a', 0x0B, tagEnd), ErrMalformed},
		"non-minimal length": {ext(tagObject, tagString, 0x81, 0x00, 'a', tagNull, tagEnd), ErrMalformed},
	} {
		_, err := AppendJSON(nil, c.anth)
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", name, err, c.kind)
		}
	}
	anth, _ := AppendANTH(nil, []byte(`{"model":"m","stream":true}`))
	if _, err := Parse(anth); !errors.Is(err, frame.ErrBadMagic) {
		t.Fatalf("a seed receiver reads an extended request: %v, want ErrBadMagic", err)
	}
	if d := cmp.Diff(anth[:5], []byte("ANTX\x01")); d != "" {
		t.Fatal(d)
	}
}

var (
	extValidRow   = regexp.MustCompile("^\\| `(ext-[a-z0-9-]+)` \\| `(\\{.*\\})` \\| `([0-9A-F ]+)` \\|$")
	extInvalidRow = regexp.MustCompile("^\\| `(ext-[a-z0-9-]+)` \\| `([0-9A-F ]+)` \\| (Err[A-Za-z]+) \\| ([0-9]+) \\|$")
	extKinds      = map[string]error{"ErrMalformed": ErrMalformed, "ErrTruncated": ErrTruncated, "ErrTooLarge": ErrTooLarge}
)

// TestExtendedSpecVectors checks SPEC.md §5.4's vectors byte for byte.
func TestExtendedSpecVectors(t *testing.T) {
	valid := testdata.SpecRows(t, "5.4", extValidRow)
	invalid := testdata.SpecRows(t, "5.4", extInvalidRow)
	if len(valid) < 3 || len(invalid) < 7 {
		t.Fatalf("found %d valid and %d invalid vectors in SPEC.md §5.4", len(valid), len(invalid))
	}
	for _, v := range valid {
		want := testdata.Hex(t, v[3])
		got, err := AppendANTH(nil, []byte(v[2]))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: encodes to % X (%v), SPEC.md says % X", v[1], got, err, want)
		}
		back, err := AppendJSON(nil, want)
		if err != nil || string(back) != v[2] {
			t.Errorf("%s: decodes to %s (%v)", v[1], back, err)
		}
	}
	for _, v := range invalid {
		_, err := AppendJSON(nil, testdata.Hex(t, v[2]))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, extKinds[v[3]]) || strconv.FormatInt(e.Offset, 10) != v[4] {
			t.Errorf("%s: %v, want %s at %s", v[1], err, v[3], v[4])
		}
	}
}

// TestExtendedCorpus: every request body of testdata/requests round-trips
// to the same JSON value, and ANTH is smaller: at most 0.80x for requests
// with images or documents, 0.95x for the others.
func TestExtendedCorpus(t *testing.T) {
	var in, out int
	for name, body := range testdata.Requests(t) {
		anth, back := roundTrip(t, string(body))
		if !sameValue(back, body) {
			t.Errorf("%s comes back as another value", name)
		}
		if again, _ := AppendANTH(nil, back); !bytes.Equal(again, anth) {
			t.Errorf("%s: the JSON it gives back encodes differently", name)
		}
		ratio := float64(len(anth)) / float64(len(body))
		goal := 0.95
		if bytes.Contains(body, []byte(`"base64"`)) {
			goal = 0.80
		}
		t.Logf("%-40s JSON %6d  ANTH %6d  %.3fx (%s form)", name, len(body), len(anth), ratio, anth[:4])
		if ratio > goal {
			t.Errorf("%s: ANTH is %.3fx of the JSON, want at most %.2fx", name, ratio, goal)
		}
		in, out = in+len(body), out+len(anth)
	}
	t.Logf("all: JSON %d bytes, ANTH %d bytes, %.3fx", in, out, float64(out)/float64(in))
}

// TestExtendedDictionary: the dictionary's entries are unique, at most 256,
// and maxDictString is the longest.
func TestExtendedDictionary(t *testing.T) {
	longest := 0
	seen := map[string]bool{}
	for _, s := range requestDictionary {
		if seen[s] {
			t.Errorf("%q is in the dictionary twice", s)
		}
		seen[s] = true
		longest = max(longest, len(s))
	}
	if len(requestDictionary) > 256 || longest != maxDictString {
		t.Fatalf("%d entries, the longest %d bytes; maxDictString is %d", len(requestDictionary), longest, maxDictString)
	}
}

// TestExtendedNearJSON: AppendANTH takes exactly the JSON objects the
// extended request carries, refusing near-JSON with an *Error inside it;
// what it takes comes back the same value; and every proper prefix of its
// extended form is ErrTruncated, never a shorter request.
func TestExtendedNearJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := jsontest.Doc(t)
		anth, err := AppendANTH([]byte("keep"), doc)
		if ok := err == nil; ok != jsontest.ValidRequest(doc) {
			t.Fatalf("%q: AppendANTH: %v, want it to take it: %v", doc, err, jsontest.ValidRequest(doc))
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrMalformed) || e.Offset < 0 || e.Offset > int64(len(doc)) || string(anth) != "keep" {
				t.Fatalf("%q: %v (%q), want ErrMalformed inside it, dst unchanged", doc, err, anth)
			}
			return
		}
		anth = anth[4:]
		back, err := AppendJSON(nil, anth)
		if err != nil || !sameValue(back, doc) {
			t.Fatalf("%q comes back as %s (%v)", doc, back, err)
		}
		if string(anth[:4]) != "ANTX" {
			return
		}
		for n := range len(anth) {
			_, err := AppendJSON(nil, anth[:n])
			var e *Error
			if !errors.Is(err, ErrTruncated) || n >= 4 && (!errors.As(err, &e) || e.Offset > int64(n) || e.Offset < 4) {
				t.Fatalf("%q cut at %d of %d: %v, want ErrTruncated", doc, n, len(anth), err)
			}
		}
	})
}

// TestExtendedLimits: a request of exactly MaxRequestSize bytes, and nesting
// of exactly MaxDepth, pass both ways; a byte or a level more is
// ErrTooLarge, at the limit or at the value that goes too deep.
func TestExtendedLimits(t *testing.T) {
	body := []byte(`{"model":"m","stream":true,"x":[[{"y":[1]}]]}`) // 5 levels
	anth, err := AppendANTH(nil, body)
	if err != nil {
		t.Fatal(err)
	}
	at := func(err error, kind error, off int64) bool {
		var e *Error
		return errors.Is(err, kind) && errors.As(err, &e) && e.Offset == off
	}
	for _, l := range []Limits{{MaxSize: len(body)}, {MaxSize: len(anth)}, {MaxDepth: 5}} {
		if l.MaxSize == len(anth) {
			if _, err := l.AppendJSON(nil, anth); err != nil {
				t.Errorf("%+v: the ANTH back: %v", l, err)
			}
			continue
		}
		if got, err := l.AppendANTH(nil, body); err != nil || !bytes.Equal(got, anth) {
			t.Errorf("%+v: %v", l, err)
		}
		if l.MaxDepth > 0 {
			if _, err := l.AppendJSON(nil, anth); err != nil {
				t.Errorf("%+v: the ANTH back: %v", l, err)
			}
		}
	}
	if _, err := (Limits{MaxSize: len(body) - 1}).AppendANTH(nil, body); !at(err, ErrTooLarge, int64(len(body)-1)) {
		t.Errorf("JSON a byte over the limit: %v", err)
	}
	if _, err := (Limits{MaxSize: len(anth) - 1}).AppendJSON(nil, anth); !at(err, ErrTooLarge, int64(len(anth)-1)) {
		t.Errorf("ANTH a byte over the limit: %v", err)
	}
	// The fifth level is [1], in JSON and in ANTH (the last array tag).
	if _, err := (Limits{MaxDepth: 4}).AppendANTH(nil, body); !at(err, ErrTooLarge, int64(bytes.Index(body, []byte(`[1]`)))) {
		t.Errorf("JSON nested a level too deep: %v", err)
	}
	if _, err := (Limits{MaxDepth: 4}).AppendJSON(nil, anth); !at(err, ErrTooLarge, int64(bytes.LastIndexByte(anth, tagArray))) {
		t.Errorf("ANTH nested a level too deep: %v", err)
	}
	// Arrays and objects both count.
	for _, open := range []string{"[", `{"a":`} {
		deep := `{"a":` + strings.Repeat(open, 200) + "1" + strings.Repeat(string(map[string]byte{"[": ']', `{"a":`: '}'}[open]), 200) + "}"
		ext, err := (Limits{MaxDepth: 1000}).AppendANTH(nil, []byte(deep))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := AppendJSON(nil, ext); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s nested 200 deep, read with the default limit: %v", open, err)
		}
	}
}

// TestExtendedSeedBounds: the seed form carries max_tokens from 0 to
// 2^32-1 and any messages, even none; anything else goes extended, and
// both come back as the same JSON.
func TestExtendedSeedBounds(t *testing.T) {
	for body, form := range map[string]string{
		`{"model":"m","max_tokens":0,"messages":[{"role":"user","content":"x"}]}`:          "ANTH",
		`{"model":"m","max_tokens":4294967295,"messages":[{"role":"user","content":"x"}]}`: "ANTH",
		`{"model":"m","max_tokens":4294967296,"messages":[{"role":"user","content":"x"}]}`: "ANTX",
		`{"model":"m","max_tokens":-1,"messages":[{"role":"user","content":"x"}]}`:         "ANTX",
		`{"model":"m","max_tokens":8,"messages":[]}`:                                       "ANTH",
		`{"model":"m","max_tokens":8,"messages":[],"system":"s"}`:                          "ANTH",
		`{"model":"m","max_tokens":8,"messages":{}}`:                                       "ANTX",
		`{"model":"m","max_tokens":8,"messages":[{"role":"user"}]}`:                        "ANTX",
		`{"model":"m","max_tokens":8,"messages":[1]}`:                                      "ANTX",
		`{"model":"m","max_tokens":8}`:                                                     "ANTX",
		`{"model":7,"max_tokens":8,"messages":[]}`:                                         "ANTX",
		`{"model":"m","max_tokens":"8","messages":[]}`:                                     "ANTX",
		`{"model":"m","max_tokens":8,"messages":[],"system":null}`:                         "ANTX",
	} {
		anth, back := roundTrip(t, body)
		if string(anth[:4]) != form || !sameValue(back, []byte(body)) {
			t.Errorf("%s: %s form, back %s; want %s form", body, anth[:4], back, form)
		}
	}
}

// TestExtendedErrorsAt: each way ANTH can be wrong is its kind at the
// offset of the byte that makes it so.
func TestExtendedErrorsAt(t *testing.T) {
	ext := func(v ...byte) []byte { return append([]byte("ANTX\x01"), v...) }
	lit := func(s string) []byte { return append([]byte{tagString, byte(len(s))}, s...) }
	for name, c := range map[string]struct {
		anth []byte
		kind error
		at   int64
		says string
	}{
		"magic alone":         {[]byte("ANTX"), ErrTruncated, 4, ""},
		"no value":            {ext(), ErrTruncated, 5, ""},
		"key at the end":      {ext(append([]byte{tagObject}, lit("a")...)...), ErrTruncated, 9, ""},
		"cut integer":         {ext(append(append([]byte{tagObject}, lit("a")...), tagInteger)...), ErrTruncated, 10, ""},
		"cut length":          {ext(tagObject, tagString), ErrTruncated, 7, ""},
		"integer over 64 bit": {ext(append(append([]byte{tagObject}, lit("a")...), tagInteger, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, tagEnd)...), ErrMalformed, 10, ""},
		"integer not minimal": {ext(append(append([]byte{tagObject}, lit("a")...), tagInteger, 0x81, 0x00, tagEnd)...), ErrMalformed, 10, ""},
		"dictionary index":    {ext(tagObject, tagDict, byte(len(requestDictionary)), tagNull, tagEnd), ErrMalformed, 7, "dictionary index " + strconv.Itoa(len(requestDictionary))},
		"last dictionary":     {ext(tagObject, tagDict, byte(len(requestDictionary)-1), tagNull, tagEnd), nil, 0, ""},
		"longest dict word":   {ext(append(append([]byte{tagObject}, lit("disable_parallel_tool_use")...), tagNull, tagEnd)...), ErrMalformed, 6, ""},
		"trailing bytes":      {ext(tagObject, tagEnd, 0, 0), ErrMalformed, 7, "2 bytes after the request"},
		"base64 empty":        {ext(tagObject, tagDict, 31, tagBase64, 0, tagEnd), ErrMalformed, 8, ""},
		"string not UTF-8":    {ext(append(append([]byte{tagObject}, lit("a")...), tagString, 1, 0xFF, tagEnd)...), ErrMalformed, 9, ""},
		"key not a string":    {ext(tagObject, tagNull, tagNull, tagEnd), ErrMalformed, 6, "want a string"},
		"value tag":           {ext(tagObject, tagDict, 0, tagEnd, tagEnd), ErrMalformed, 8, "value tag 10"},
	} {
		_, err := AppendJSON(nil, c.anth)
		var e *Error
		switch {
		case c.kind == nil && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.kind != nil && (!errors.Is(err, c.kind) || !errors.As(err, &e) || e.Offset != c.at || !strings.Contains(err.Error(), c.says)):
			t.Errorf("%s: %v, want %v at %d saying %q", name, err, c.kind, c.at, c.says)
		}
	}
	// JSON, too, at the byte that is wrong.
	for body, at := range map[string]int64{
		``:                     0,
		` `:                    1,
		`{"a":tru}`:            5,
		`{"a":0,"b":-}`:        12,
		`{"a":"x" "b":1}`:      9,
		`{"a" 1}`:              5,
		`{"a":1,}`:             7,
		`{"a":[1 2]}`:          8,
		`{1:2}`:                1,
		`{"a":"\x"}`:           6,
		"{\"a\":\"\x01\"}":     6,
		`{"a":"cut`:            9,
		`{"a":1`:               6,
		`{"a":`:                5,
		`{"a":1.}`:             7,
		`{"a":1e}`:             7,
		`{"a":0,"b":00}`:       12,
		`{"a":null,"b":nul`:    14,
		`{"a":"\ud800"}`:       6,
		`{"a":"\udfff"}`:       6,
		`{"a":"x\uDC00"}`:      7,
		`{"a":"\ud83d\u0041"}`: 6,
		`{"a":"\ud83d\ud83d"}`: 6,
		`{"a":"\ud83d"}`:       6,
		`{"a":"\ud83d\n"}`:     6,
		`{"a":"\ude80\ud83d"}`: 6,
		`{"a":null`:            9,
		`{"a":true`:            9,
		`{"a"`:                 4,
		`{"a":-`:               6,
		`{"a":1e`:              7,
		`{"a":1e+`:             8,
	} {
		_, err := AppendANTH(nil, jsontest.Exact(body))
		var e *Error
		if !errors.Is(err, ErrMalformed) || !errors.As(err, &e) || e.Offset != at {
			t.Errorf("%q: %v, want ErrMalformed at %d", body, err, at)
		}
	}
}

// manyKeys is the worst object for a duplicate-key check: n distinct keys,
// then, if repeat, the first key again.
func manyKeys(n int, repeat bool) []byte {
	b := []byte(`{"model":"m","x":{`)
	for i := range n {
		// In a scrambled order: sorted keys would let a sort finish in
		// one pass.
		b = append(b, `"k`...)
		b = strconv.AppendInt(b, int64(i*40503%n), 10)
		b = append(b, `":0,`...)
	}
	if repeat {
		b = append(b, `"k0":0,`...)
	}
	return append(b[:len(b)-1], "}}"...)
}

// TestExtendedDuplicateKeyCost: the duplicate-key check of both directions
// makes O(n log n) key comparisons for an object of n keys. It made n²/2
// (an object of 64,000 keys, 565 KB, took 13.25 s of CPU).
func TestExtendedDuplicateKeyCost(t *testing.T) {
	const n = 64_000
	limit := 2 * n * 16 // 2 n log2(n)
	body := manyKeys(n, false)
	e := jsonToANTH{src: body, maxDepth: defaultMaxDepth, dict: messagesDict}
	if !e.value(0, placeValue) {
		t.Fatal(e.err)
	}
	anth := append([]byte("ANTX\x01"), e.dst...)
	d := antxToJSON{src: anth, i: 5, maxDepth: defaultMaxDepth, maxOut: defaultMaxSize, dict: messagesDict}
	if !d.value(0, placeValue, 0) {
		t.Fatal(d.err)
	}
	t.Logf("%d keys (%d bytes of JSON): %d comparisons to ANTH, %d back", n, len(body), e.compares, d.compares)
	if e.compares > limit || d.compares > limit {
		t.Errorf("%d keys: %d and %d key comparisons, want at most %d", n, e.compares, d.compares, limit)
	}
	// And a repeat is still found, at the repeated key.
	body = manyKeys(n, true)
	_, err := AppendANTH(nil, body)
	var ee *Error
	if !errors.Is(err, ErrMalformed) || !errors.As(err, &ee) || ee.Offset != int64(bytes.LastIndex(body, []byte(`"k0"`))) {
		t.Errorf("repeated key: %v", err)
	}
}

// TestExtendedDuplicateKeys: the first key that repeats one before it in its
// object is the error, at its offset, in both directions, even when the
// object goes wrong after it; a failure before any repeat is itself the
// error. The oracle reads the keys one by one.
func TestExtendedDuplicateKeys(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Keys from a small set, so they repeat; "\u0061" is "a" escaped.
		spellings := []string{`"a"`, `"b"`, `"\u0061"`, `"text"`, `"te\u0078t"`, `"c"`, `"dd"`}
		values := []string{"a", "b", "a", "text", "text", "c", "dd"}
		inner := rapid.SliceOfN(rapid.IntRange(0, len(spellings)-1), 0, 6).Draw(t, "inner")
		outer := rapid.SliceOfN(rapid.IntRange(0, len(spellings)-1), 0, 8).Draw(t, "outer")
		nestAt := rapid.IntRange(0, len(outer)).Draw(t, "nestAt")
		bad := rapid.IntRange(-1, len(outer)).Draw(t, "bad") // a bad value at this member, or none

		body := []byte(`{"model":"m"`)
		want := int64(-1)
		seen := map[string]bool{"model": true}
		member := func(seen map[string]bool, k int) {
			body = append(body, ',')
			if want < 0 && seen[values[k]] {
				want = int64(len(body))
			}
			seen[values[k]] = true
			body = append(body, spellings[k]...)
			body = append(body, ':')
		}
		for i := 0; i <= len(outer); i++ {
			if i == nestAt {
				body = append(body, `,"nest":{"z":0`...)
				inSeen := map[string]bool{"z": true}
				for _, k := range inner {
					member(inSeen, k)
					body = append(body, '0')
				}
				body = append(body, '}')
				seen["nest"] = true
			}
			if i == len(outer) {
				break
			}
			member(seen, outer[i])
			if i == bad {
				if want < 0 {
					want = int64(len(body))
				}
				body = append(body, "nul}"...)
				break
			}
			body = append(body, '1')
		}
		if bad < 0 || bad >= len(outer) {
			body = append(body, '}')
		}
		_, err := (Limits{}).AppendANTH(nil, body)
		var e *Error
		switch {
		case want < 0 && err != nil:
			t.Fatalf("%s: %v", body, err)
		case want >= 0 && (!errors.Is(err, ErrMalformed) || !errors.As(err, &e) || e.Offset != want):
			t.Fatalf("%s: %v, want ErrMalformed at %d", body, err, want)
		}
	})
}

// BenchmarkRequestManyKeys converts the worst object for the duplicate-key
// check, 64,000 keys, each way; encoding/json's Valid and Unmarshal (which
// keeps the last of repeated keys, checking nothing) are the baselines.
func BenchmarkRequestManyKeys(b *testing.B) {
	body := manyKeys(64_000, false)
	anth, err := AppendANTH(nil, body)
	if err != nil {
		b.Fatal(err)
	}
	var dst []byte
	b.Run("AppendANTH", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			dst, _ = AppendANTH(dst[:0], body)
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		b.SetBytes(int64(len(anth)))
		for b.Loop() {
			dst, _ = AppendJSON(dst[:0], anth)
		}
	})
	b.Run("encoding/json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			json.Valid(body)
		}
	})
	b.Run("encoding/json.Unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var v any
			_ = json.Unmarshal(body, &v)
		}
	})
}

// TestExtendedSurrogates: an escaped surrogate pair, as Python's json.dumps
// and PHP's json_encode write each emoji, is the one character it stands
// for, and comes back as its UTF-8 (escapes are written minimally);
// encoding/json is the oracle. A lone surrogate, which encoding/json turns
// into U+FFFD, is refused: the string would not come back.
func TestExtendedSurrogates(t *testing.T) {
	body := `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"\ud83d\ude80 \uD83D\uDE80"}]}`
	anth, back := roundTrip(t, body)
	if string(anth[:4]) != "ANTH" || !strings.Contains(string(back), "🚀 🚀") || !sameValue(back, []byte(body)) {
		t.Errorf("%s: %s form, back %s", body, anth[:4], back)
	}
	pieces := []string{`a`, `\n`, `\"`, `\u0041`, `\u00e9`, `é`, `🚀`, `\ud83d`, `\ude80`, `\uD800`, `\uDFFF`, `\udbff`, `\udc00`, `\u20ac`, `\u`, `\x`, `\uZZZZ`}
	rapid.Check(t, func(t *rapid.T) {
		ps := rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 8).Draw(t, "pieces")
		body := `{"a":"` + strings.Join(ps, "") + `"}`
		var want struct{ A string }
		jerr := json.Unmarshal([]byte(body), &want)
		anth, err := AppendANTH(nil, []byte(body))
		switch {
		case jerr != nil || strings.ContainsRune(want.A, utf8.RuneError):
			// Bad JSON, or a lone surrogate (no piece is U+FFFD itself).
			if err == nil || !errors.Is(err, ErrMalformed) {
				t.Fatalf("%s: %v, want ErrMalformed (encoding/json: %v, %q)", body, err, jerr, want.A)
			}
		case err != nil:
			t.Fatalf("%s: %v; encoding/json reads %q", body, err, want.A)
		default:
			back, err := AppendJSON(nil, anth)
			var got struct{ A string }
			if err != nil || json.Unmarshal(back, &got) != nil || got.A != want.A {
				t.Fatalf("%s: back %s (%v), want %q", body, back, err, want.A)
			}
			if bytes.Contains(back, []byte(`\u`)) && !strings.ContainsFunc(want.A, func(r rune) bool { return r < 0x20 }) {
				t.Fatalf("%s: back %s has a \\u escape it needs not", body, back)
			}
		}
	})
}

// TestExtendedOutputBound: the worst ANTX for expansion, an array of the
// longest dictionary string, becomes at most 14 bytes of JSON a byte, and
// the JSON stops at MaxOutputSize with ErrTooLarge, its offset, and no more
// than the limit allocated. Before, a 32 MiB request became 470 MB of JSON.
func TestExtendedOutputBound(t *testing.T) {
	longest := byte(slices.Index(requestDictionary[:], "disable_parallel_tool_use"))
	build := func(n int) []byte {
		b := append([]byte("ANTX\x01"), tagObject, tagDict, 0, tagString, 1, 'm', tagString, 1, 'x', tagArray)
		for range n {
			b = append(b, tagDict, longest)
		}
		return append(b, tagEnd, tagEnd)
	}
	small := build(10_000)
	js, err := AppendJSON(nil, small)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes of ANTX: %d bytes of JSON, %.2f a byte", len(small), len(js), float64(len(js))/float64(len(small)))
	if len(js) > 14*len(small) {
		t.Errorf("%d bytes of JSON from %d of ANTX, want at most 14 a byte", len(js), len(small))
	}
	const limit = 1 << 20
	big := build(limit) // 2 MiB of ANTX, 28 MiB of JSON unbounded
	var e *Error
	var out []byte
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	out, err = (Limits{MaxOutputSize: limit}).AppendJSON(nil, big)
	runtime.ReadMemStats(&ms1)
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || e.Offset <= 0 || e.Offset >= int64(len(big)) || out != nil {
		t.Fatalf("%d bytes of ANTX under a %d-byte output limit: %v", len(big), limit, err)
	}
	// append grows dst by 1.25x past 256 bytes: at most 2x the limit held,
	// about 5x allocated over the growth.
	if got := ms1.TotalAlloc - ms0.TotalAlloc; got > 6*limit {
		t.Errorf("%d bytes allocated under a %d-byte output limit, want at most 6x (append's growth)", got, limit)
	}
	// The seed form, too: 9,000 empty parts, 27 KB, are 306 KB of JSON.
	seed, err := Append(nil, Seed{Model: "m", Messages: make([]Message, 9_000)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (Limits{MaxOutputSize: 100_000}).AppendJSON(nil, seed); !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || e.Offset <= 0 || e.Offset >= int64(len(seed)) {
		t.Errorf("seed form over the output limit: %v", err)
	}
}

// TestExtendedMagicSaid: a request that starts with neither magic is a bad
// magic error that names both; Parse names ANTH as a
// request's. Before, both said "stream must start with ANTH".
func TestExtendedMagicSaid(t *testing.T) {
	_, err := AppendJSON(nil, []byte("ANTZ\x01\x09\x0A"))
	if !errors.Is(err, frame.ErrBadMagic) || !strings.Contains(err.Error(), `request must start with "ANTH"`) || !strings.Contains(err.Error(), `"ANTX"`) {
		t.Errorf("AppendJSON: %v", err)
	}
	_, err = Parse([]byte("ANTX\x01\x09\x0A"))
	if !errors.Is(err, frame.ErrBadMagic) || !strings.Contains(err.Error(), `request must start with "ANTH"`) {
		t.Errorf("Parse: %v", err)
	}
}

// TestExtendedSeedAgrees: what AppendANTH writes, the default
// readers accept, and what the readers accept is canonical. Before,
// 10,001–65,535 messages were written in the seed form and refused by the
// default 10,000-part limit; a seed request with a system message after
// the first, and an extended request the seed form carries, were accepted
// though no JSON encodes to them.
func TestExtendedSeedAgrees(t *testing.T) {
	body := func(n int) string {
		return `{"model":"m","max_tokens":8,"messages":[` + strings.TrimSuffix(strings.Repeat(`{"role":"user","content":""},`, n), ",") + `]}`
	}
	for n, form := range map[int]string{10_000: "ANTH", 10_001: "ANTX", 65_536: "ANTX"} {
		anth, back := roundTrip(t, body(n))
		if string(anth[:4]) != form || !sameValue(back, []byte(body(n))) {
			t.Errorf("%d messages: %s form, want %s", n, anth[:4], form)
		}
	}
	seed, _ := Append(nil, Seed{Model: "m", Messages: []Message{{Content: "a"}, {Role: RoleSystem, Content: "s"}}, MaxTokens: 8})
	var fe *frame.Error
	if _, err := AppendJSON(nil, seed); !errors.Is(err, frame.ErrMalformed) || !errors.As(err, &fe) || fe.Offset != 11 {
		t.Errorf("a system message second: %v, want ErrMalformed at 11", err)
	}
	e := jsonToANTH{src: []byte(body(3)), maxDepth: defaultMaxDepth, dict: messagesDict}
	if !e.value(0, placeValue) {
		t.Fatal(e.err)
	}
	var se *Error
	if _, err := AppendJSON(nil, append([]byte("ANTX\x01"), e.dst...)); !errors.Is(err, ErrMalformed) || !errors.As(err, &se) || se.Offset != 4 {
		t.Errorf("a seed request sent extended: %v, want ErrMalformed at 4", err)
	}
}

// FuzzRequestCanonical: any bytes AppendJSON accepts re-encode, by
// AppendANTH of its JSON, to exactly those bytes (each request has
// one encoding, SPEC.md §5.3 and §5.4), and anything it refuses is an
// *Error or *frame.Error; JSON that AppendANTH accepts comes back
// from its ANTH as the same value, within 14 bytes of JSON a byte.
func FuzzRequestCanonical(f *testing.F) {
	for _, body := range []string{
		`{"model":"m","max_tokens":1,"stream":true,"messages":[]}`,
		`{"model":"m","max_tokens":8,"system":"s","messages":[{"role":"user","content":"\ud83d\ude80"}]}`,
		`{"model":"m","temperature":0.5,"top_k":-3,"x":null,"data":"iVBORw=="}`,
	} {
		f.Add([]byte(body))
		anth, _ := AppendANTH(nil, []byte(body))
		f.Add(anth)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if js, err := AppendJSON(nil, in); err == nil {
			if len(js) > 14*len(in)+64 {
				t.Fatalf("%d bytes of JSON from %d", len(js), len(in))
			}
			again, err := AppendANTH(nil, js)
			if err != nil || !bytes.Equal(again, in) {
				t.Fatalf("accepted\n% X\nas %s, which encodes to\n% X (%v)", in, js, again, err)
			}
		} else {
			var e *Error
			var fe *frame.Error
			if !errors.As(err, &e) && !errors.As(err, &fe) {
				t.Fatalf("error %v (%T)", err, err)
			}
		}
		if anth, err := AppendANTH(nil, in); err == nil {
			back, err := AppendJSON(nil, anth)
			if err != nil || !sameValue(back, in) {
				t.Fatalf("%s: to % X, back %s (%v)", in, anth, back, err)
			}
		}
	})
}

// tb is what the test helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}
