package sse

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
)

// roundTrip converts a request body to ANTH and back.
func roundTrip(t tb, body string) ([]byte, []byte) {
	t.Helper()
	anth, err := AppendRequestANTH(nil, []byte(body))
	if err != nil {
		t.Fatalf("%s: to ANTH: %v", body, err)
	}
	back, err := AppendRequestJSON(nil, anth)
	if err != nil {
		t.Fatalf("%s: back to JSON: %v", body, err)
	}
	return anth, back
}

// sameValue compares JSON values with numbers as written.
func sameValue(a, b []byte) bool { return sameJSON(a, b) }

func TestRequestSeedForm(t *testing.T) {
	body := `{"model":"claude","max_tokens":1024,"messages":[{"role":"user","content":"Hi"}]}`
	anth, back := roundTrip(t, body)
	want, _ := frame.AppendRequest(nil, frame.Request{Model: "claude", Messages: []frame.Message{{Content: "Hi"}}, MaxTokens: 1024})
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

// TestRequestExact: numbers keep their decimal spelling, base64 data
// travels as bytes, unknown fields are carried.
func TestRequestExact(t *testing.T) {
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

// TestRequestRoundTrip: any JSON object round-trips to the same value, and
// its ANTH is canonical: the JSON of the same value gives the same bytes.
func TestRequestRoundTrip(t *testing.T) {
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
		again, err := AppendRequestANTH(nil, back)
		if err != nil || !bytes.Equal(again, anth) {
			t.Fatalf("%s: the JSON it gives back encodes differently (%v)", body, err)
		}
	})
}

// TestRequestErrors: bad JSON and non-canonical ANTH are errors with
// offsets; a seed-only receiver refuses the extended form by its magic.
func TestRequestErrors(t *testing.T) {
	for body, off := range map[string]int64{
		`[1]`:              0,
		`{"a":1,"a":2}`:    7,
		`{"a":1} x`:        8,
		`{"a":"\ud800"}`:   6,
		`{"a":01}`:         6,
		"{\"a\":\"\xff\"}": 5,
		`{"a":[` + strings.Repeat("[", 200) + `]}`: 132,
	} {
		_, err := AppendRequestANTH(nil, []byte(body))
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
		_, err := AppendRequestJSON(nil, c.anth)
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", name, err, c.kind)
		}
	}
	anth, _ := AppendRequestANTH(nil, []byte(`{"model":"m","stream":true}`))
	if _, err := frame.ParseRequest(anth); !errors.Is(err, frame.ErrBadMagic) {
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

// TestRequestSpecVectors checks SPEC.md §5.4's vectors byte for byte.
func TestRequestSpecVectors(t *testing.T) {
	valid := testdata.SpecRows(t, "5.4", extValidRow)
	invalid := testdata.SpecRows(t, "5.4", extInvalidRow)
	if len(valid) < 3 || len(invalid) < 7 {
		t.Fatalf("found %d valid and %d invalid vectors in SPEC.md §5.4", len(valid), len(invalid))
	}
	for _, v := range valid {
		want := testdata.Hex(t, v[3])
		got, err := AppendRequestANTH(nil, []byte(v[2]))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: encodes to % X (%v), SPEC.md says % X", v[1], got, err, want)
		}
		back, err := AppendRequestJSON(nil, want)
		if err != nil || string(back) != v[2] {
			t.Errorf("%s: decodes to %s (%v)", v[1], back, err)
		}
	}
	for _, v := range invalid {
		_, err := AppendRequestJSON(nil, testdata.Hex(t, v[2]))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, extKinds[v[3]]) || strconv.FormatInt(e.Offset, 10) != v[4] {
			t.Errorf("%s: %v, want %s at %s", v[1], err, v[3], v[4])
		}
	}
}

// TestRequestCorpus: every request body of testdata/requests round-trips
// to the same JSON value, and ANTH is smaller: at most 0.80x for requests
// with images or documents, 0.95x for the others.
func TestRequestCorpus(t *testing.T) {
	var in, out int
	for name, body := range testdata.Requests(t) {
		anth, back := roundTrip(t, string(body))
		if !sameValue(back, body) {
			t.Errorf("%s comes back as another value", name)
		}
		if again, _ := AppendRequestANTH(nil, back); !bytes.Equal(again, anth) {
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

// TestRequestDictionary: the dictionary's entries are unique, at most 256,
// and maxDictString is the longest.
func TestRequestDictionary(t *testing.T) {
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
