package request

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/layer0/anth/internal/jsonlex/jsontest"
	"github.com/layer0/anth/internal/testdata"
)

// chatRoundTrip converts a Chat Completions request body to ANTH and back.
func chatRoundTrip(t tb, body []byte) ([]byte, []byte) {
	t.Helper()
	anth, err := AppendChatANTH(nil, body)
	if err != nil {
		t.Fatalf("%s: to ANTH: %v", body, err)
	}
	back, err := AppendChatJSON(nil, anth)
	if err != nil {
		t.Fatalf("%s: back to JSON: %v", body, err)
	}
	return anth, back
}

// errorAt reports whether err is an *Error of kind at offset off.
func errorAt(err, kind error, off int64) bool {
	var e *Error
	return errors.Is(err, kind) && errors.As(err, &e) && e.Offset == off
}

// TestChatGolden pins the Chat Completions codec's output for every
// request body in testdata/requests/chat: golden/NAME.anth is what
// AppendChatANTH makes of NAME.json, golden/NAME.json what AppendChatJSON
// makes of that ANTH. A golden that differs from the output, is missing,
// or has no request body fails. go test ./request -run TestChatGolden
// -update rewrites them.
func TestChatGolden(t *testing.T) {
	dir := testdata.Path("requests", "chat", "golden")
	bodies := testdata.ChatRequests(t)
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range bodies {
		base := strings.TrimSuffix(name, ".json")
		anth, back := chatRoundTrip(t, body)
		for ext, got := range map[string][]byte{".anth": anth, ".json": back} {
			testdata.Golden(t, filepath.Join(dir, base+ext), got, *update, "go test ./request -run TestChatGolden -update")
		}
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		base := strings.TrimSuffix(strings.TrimSuffix(f.Name(), ".anth"), ".json")
		if _, ok := bodies[base+".json"]; !ok {
			t.Errorf("%s: no request body testdata/requests/chat/%s.json", filepath.Join(dir, f.Name()), base)
		}
	}
}

// extendedSize returns the size of body's extended form with dict, for
// comparing dictionaries.
func extendedSize(t testing.TB, body []byte, dict *dictionary) int {
	t.Helper()
	b, err := Limits{}.appendExtended(nil, body, dict)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

func gzipSize(t testing.TB, b []byte) int {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return buf.Len()
}

// TestChatCorpus: every body of testdata/requests/chat comes back the same
// JSON value, its ANTH is canonical (the JSON it gives back encodes to the
// same bytes), data URLs and input_audio data travel as their bytes, and
// the Chat Completions dictionary pays: ANTX v2 is smaller than the same
// codec with no dictionary or with the Messages dictionary, over the
// corpus and on every body without media. It logs the sizes SPEC.md §5.5
// reports (JSON, ANTX v2, gzip -9 of the JSON).
func TestChatCorpus(t *testing.T) {
	noDict := &dictionary{version: 2, dataURL: true, index: func() map[string]byte { return nil }}
	withMessages := &dictionary{version: 2, dataURL: true, words: messagesDict.words, longest: messagesDict.longest, index: messagesDict.index}
	bodies := testdata.ChatRequests(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range bodies {
			if !yield(n) {
				return
			}
		}
	})
	var sum [5]int
	t.Logf("%-38s %6s %6s %6s %6s %6s", "body", "JSON", "ANTX2", "gzip9", "nodict", "v1dict")
	for _, name := range names {
		body := bodies[name]
		anth, back := chatRoundTrip(t, body)
		if !sameValue(back, body) {
			t.Errorf("%s comes back as another value:\n%s", name, back)
		}
		if again, err := AppendChatANTH(nil, back); err != nil || !bytes.Equal(again, anth) {
			t.Errorf("%s: the JSON it gives back encodes differently (%v)", name, err)
		}
		// Every data URL and "data" string of base64 is on the wire as bytes.
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		media := 0
		walkStrings(v, "", func(key, s string) {
			_, data, isURL := dataURLSplit([]byte(s))
			if !isURL && key == "data" {
				data, isURL = []byte(s), true
			}
			if !isURL {
				return
			}
			raw, err := base64.StdEncoding.DecodeString(string(data))
			if err != nil {
				return
			}
			media++
			if !bytes.Contains(anth, raw) || bytes.Contains(anth, data) {
				t.Errorf("%s: a data string of %d bytes does not travel as its bytes", name, len(data))
			}
		})
		n := [5]int{len(body), len(anth), gzipSize(t, body), extendedSize(t, body, noDict), extendedSize(t, body, withMessages)}
		t.Logf("%-38s %6d %6d %6d %6d %6d", name, n[0], n[1], n[2], n[3], n[4])
		for i := range n {
			sum[i] += n[i]
		}
		if media == 0 && (n[1] >= n[3] || n[1] >= n[4]) {
			t.Errorf("%s: ANTX v2 %d bytes, with no dictionary %d, with the Messages dictionary %d", name, n[1], n[3], n[4])
		}
		if n[1] > n[0]*80/100 {
			t.Errorf("%s: ANTX v2 is %d bytes for %d of JSON, want at most 0.80x", name, n[1], n[0])
		}
	}
	t.Logf("%-38s %6d %6d %6d %6d %6d", "all", sum[0], sum[1], sum[2], sum[3], sum[4])
	t.Logf("ANTX v2 %.3fx JSON, gzip -9 %.3fx; no dictionary %.3fx, Messages dictionary %.3fx",
		float64(sum[1])/float64(sum[0]), float64(sum[2])/float64(sum[0]), float64(sum[3])/float64(sum[0]), float64(sum[4])/float64(sum[0]))
	if sum[1] >= sum[3]*75/100 || sum[1] >= sum[4]*90/100 {
		t.Errorf("the Chat Completions dictionary does not pay: %d bytes, %d with none, %d with the Messages dictionary", sum[1], sum[3], sum[4])
	}
}

// walkStrings calls f with every string value of v and the key it is the
// value of ("" in an array).
func walkStrings(v any, key string, f func(key, s string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			walkStrings(x, k, f)
		}
	case []any:
		for _, x := range v {
			walkStrings(x, "", f)
		}
	case string:
		f(key, v)
	}
}

// chatValue draws JSON values rich in what the Chat Completions form
// treats specially: dictionary words, data URLs (canonical or not, with
// prefixes in the dictionary or not), base64 under "data" keys.
func chatValue() *rapid.Generator[any] {
	var value *rapid.Generator[any]
	strs := rapid.OneOf(
		rapid.String(),
		rapid.SampledFrom(chatDictionary[:]),
		rapid.SampledFrom(requestDictionary[:]),
		rapid.SampledFrom([]string{
			"QUJD", "QUI=", "QQ==", "QR==", "", "data:", "data:image/png;base64,", "data:image/png;base64,QUJD",
			"data:image/png;base64,QR==", "data:image/png;base64,QUJ", "data:text/plain;charset=utf-8;base64,aGk=",
			"data:;base64,AA==", "data:image/png;base64,,AA==", "data:image/png,QUJD", "DATA:image/png;base64,QUJD",
			"data:image/svg+xml;BASE64,QUJD", "data:a\"b\n;base64,QUJD", "data:é;base64,QUJD", "data:image/jpeg;base64,/9j/4AAQ",
		}),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 1, 40), func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 1, 40), func(b []byte) string {
			return "data:image/webp;base64," + base64.StdEncoding.EncodeToString(b)
		}),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 1, 40), func(b []byte) string {
			return "data:audio/x-" + strconv.Itoa(len(b)) + ";base64," + base64.StdEncoding.EncodeToString(b)
		}),
	)
	keys := rapid.OneOf(rapid.SampledFrom([]string{"data", "url", "image_url", "x", "", "data:image/png;base64,QUJD", "QUJD"}), rapid.SampledFrom(chatDictionary[:]), rapid.String())
	value = rapid.Deferred(func() *rapid.Generator[any] {
		return rapid.OneOf(
			rapid.Map(rapid.Int64(), func(v int64) any { return v }),
			rapid.Map(rapid.Float64(), func(v float64) any { return v }),
			rapid.Map(strs, func(s string) any { return s }),
			rapid.Just[any](nil), rapid.Just[any](true), rapid.Just[any](false),
			rapid.Map(rapid.SliceOfN(value, 0, 3), func(v []any) any { return v }),
			rapid.Map(rapid.MapOfN(keys, value, 0, 4), func(m map[string]any) any { return m }),
		)
	})
	return rapid.Map(rapid.MapOfN(keys, value, 0, 5), func(m map[string]any) any { return m })
}

// TestChatRoundTrip: any JSON object comes back the same value, and its
// ANTH is canonical: the JSON it gives back encodes to the same bytes.
func TestChatRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		body, _ := json.Marshal(chatValue().Draw(t, "request"))
		anth, back := chatRoundTrip(t, body)
		if !sameValue(back, body) {
			t.Fatalf("%s came back as %s", body, back)
		}
		again, err := AppendChatANTH(nil, back)
		if err != nil || !bytes.Equal(again, anth) {
			t.Fatalf("%s: the JSON it gives back encodes differently (%v)", body, err)
		}
	})
}

// TestChatCanonical: ANTH that AppendChatJSON accepts is canonical: its
// JSON encodes back to exactly it. The inputs are valid requests with a
// byte changed, inserted or dropped, so most are near misses of the rules.
func TestChatCanonical(t *testing.T) {
	accepted := 0
	rapid.Check(t, func(t *rapid.T) {
		body, _ := json.Marshal(chatValue().Draw(t, "request"))
		anth, err := AppendChatANTH(nil, body)
		if err != nil {
			t.Fatal(err)
		}
		at := rapid.IntRange(5, len(anth)).Draw(t, "at")
		b := rapid.Byte().Draw(t, "byte")
		switch rapid.IntRange(0, 2).Draw(t, "edit") {
		case 0:
			if at < len(anth) {
				anth[at] = b
			}
		case 1:
			anth = slices.Insert(anth, at, b)
		case 2:
			if at < len(anth) {
				anth = slices.Delete(anth, at, at+1)
			}
		}
		js, err := AppendChatJSON(nil, anth)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > int64(len(anth)) {
				t.Fatalf("% X: %v (%T), want an *Error inside it", anth, err, err)
			}
			return
		}
		accepted++
		again, err := AppendChatANTH(nil, js)
		if err != nil || !bytes.Equal(again, anth) {
			t.Fatalf("accepted\n% X\nas %s, which encodes to\n% X (%v)", anth, js, again, err)
		}
	})
	t.Logf("%d edited requests accepted, each canonical", accepted)
}

// TestChatNearJSON: AppendChatANTH takes exactly the JSON objects, refusing
// near-JSON with ErrMalformed inside it and dst unchanged; every proper
// prefix of what it writes is ErrTruncated.
func TestChatNearJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := jsontest.Doc(t)
		anth, err := AppendChatANTH([]byte("keep"), doc)
		if ok := err == nil; ok != jsontest.ValidRequest(doc) {
			t.Fatalf("%q: AppendChatANTH: %v, want it to take it: %v", doc, err, jsontest.ValidRequest(doc))
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrMalformed) || e.Offset < 0 || e.Offset > int64(len(doc)) || string(anth) != "keep" {
				t.Fatalf("%q: %v (%q), want ErrMalformed inside it, dst unchanged", doc, err, anth)
			}
			return
		}
		anth = anth[4:]
		if back, err := AppendChatJSON(nil, anth); err != nil || !sameValue(back, doc) {
			t.Fatalf("%q comes back as %s (%v)", doc, back, err)
		}
		for n := range len(anth) {
			_, err := AppendChatJSON(nil, anth[:n])
			var e *Error
			if !errors.Is(err, ErrTruncated) || !errors.As(err, &e) || e.Offset > int64(n) {
				t.Fatalf("%q cut at %d of %d: %v, want ErrTruncated", doc, n, len(anth), err)
			}
		}
	})
}

// TestChatDataURL: which strings take tag 0B (SPEC.md §5.5): a value that
// is a data URL of canonical base64, with its prefix from the dictionary
// or literal; nothing else.
func TestChatDataURL(t *testing.T) {
	for s, want := range map[string]bool{
		"data:image/png;base64,QUJD":                true,
		"data:image/jpeg;base64,/9j/4A==":           true,
		"data:application/pdf;base64,JVBERi0xLjQK":  true,
		"data:text/plain;charset=utf-8;base64,aGk=": true,
		"data:;base64,AA==":                         true,
		"data:a\"b\n;base64,QUJD":                   true,
		"data:image/png;base64,":                    false, // no bytes
		"data:image/png;base64,QR==":                false, // not canonical: QQ== has the same bytes
		"data:image/png;base64,QUJ":                 false, // unpadded
		"data:image/png;base64,QUJD\n":              false,
		"data:image/png;base64,,AA==":               false, // the data has a comma
		"data:image/png,QUJD":                       false, // not base64
		"data:image/png;BASE64,QUJD":                false,
		"DATA:image/png;base64,QUJD":                false,
		" data:image/png;base64,QUJD":               false,
		"image/png;base64,QUJD":                     false,
		"data:image/png;base64,QUJD;base64,QUJD":    false,
	} {
		for _, body := range []string{`{"url":` + strconv.Quote(s) + `}`, `{"x":[1,` + strconv.Quote(s) + `]}`} {
			anth, back := chatRoundTrip(t, []byte(body))
			if got := bytes.IndexByte(anth, tagDataURL) > 0 && !bytes.Contains(anth, []byte(s)); got != want {
				t.Errorf("%s: tag 0B %v, want %v (% X)", body, got, want, anth)
			}
			if !sameValue(back, []byte(body)) {
				t.Errorf("%s: back %s", body, back)
			}
		}
	}
	// A key is never 0B; a "data" value that is a data URL is 0B, not 07.
	anth, _ := chatRoundTrip(t, []byte(`{"data:image/png;base64,QUJD":1,"data":"data:image/png;base64,QUJD"}`))
	want := append([]byte("ANTX\x02\x09\x05\x1Adata:image/png;base64,QUJD\x03\x02\x06"), byte(slices.Index(chatDictionary[:], "data")), tagDataURL, tagDict, byte(slices.Index(chatDictionary[:], "data:image/png;base64,")), 3, 'A', 'B', 'C', tagEnd)
	if !bytes.Equal(anth, want) {
		t.Errorf("key and data value:\n% X\nwant\n% X", anth, want)
	}
	// Version 1 has no tag 0B: a data URL is a string, and reads back.
	v1 := []byte(`{"url":"data:image/png;base64,QUJD"}`)
	anth, back := roundTrip(t, string(v1))
	if bytes.IndexByte(anth, tagDataURL) >= 0 || !bytes.Equal(back, v1) {
		t.Errorf("a Messages request with a data URL: % X, back %s", anth, back)
	}
}

// TestChatVersions: a reader never reads another API's request with its
// own dictionary: the Messages reader refuses version 2, and the Chat
// Completions reader version 1 and the seed form, each with a typed error
// that names the reader to use.
func TestChatVersions(t *testing.T) {
	body := []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}],"stream":true}`)
	chat, err := AppendChatANTH(nil, body)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := AppendANTH(nil, body)
	if err != nil {
		t.Fatal(err)
	}
	seed, err := AppendANTH(nil, []byte(`{"model":"m","max_tokens":8,"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(chat[:5]) != "ANTX\x02" || string(msgs[:5]) != "ANTX\x01" || string(seed[:4]) != "ANTH" {
		t.Fatalf("% X / % X / % X", chat[:5], msgs[:5], seed[:4])
	}
	for name, c := range map[string]struct {
		read func([]byte, []byte) ([]byte, error)
		anth []byte
		kind error
		at   int64
		says string
	}{
		"Messages reader, version 2": {AppendJSON, chat, ErrMalformed, 4, "version 2 is a Chat Completions request, which AppendChatJSON reads"},
		"Chat reader, version 1":     {AppendChatJSON, msgs, ErrMalformed, 4, "version 1 is a Messages request, which AppendJSON reads"},
		"Chat reader, seed form":     {AppendChatJSON, seed, ErrBadMagic, 3, `"ANTH" is a Messages request in the seed form`},
		"Chat reader, version 3":     {AppendChatJSON, []byte("ANTX\x03\x09\x0A"), ErrMalformed, 4, "version 3, want 2"},
		"Chat reader, other magic":   {AppendChatJSON, []byte("ANTZ\x02\x09\x0A"), ErrBadMagic, 3, `must start with "ANTX"`},
		"Chat reader, wrong first":   {AppendChatJSON, []byte("{}"), ErrBadMagic, 0, `must start with "ANTX"`},
		"Chat reader, cut magic":     {AppendChatJSON, []byte("AN"), ErrTruncated, 2, ""},
		"Chat reader, nothing":       {AppendChatJSON, nil, ErrTruncated, 0, ""},
		"Chat reader, no version":    {AppendChatJSON, []byte("ANTX"), ErrTruncated, 4, ""},
	} {
		out, err := c.read([]byte("keep"), c.anth)
		if !errorAt(err, c.kind, c.at) || !strings.Contains(err.Error(), c.says) || string(out) != "keep" {
			t.Errorf("%s: %v (%q), want %v at %d saying %q", name, err, out, c.kind, c.at, c.says)
		}
	}
}

// TestChatErrorsAt: each way a Chat Completions request's ANTH can be
// wrong is its kind at the offset of the byte that makes it so.
func TestChatErrorsAt(t *testing.T) {
	ext := func(v ...byte) []byte { return append([]byte("ANTX\x02\x09"), v...) }
	lit := func(s string) []byte { return append([]byte{tagString, byte(len(s))}, s...) }
	word := func(s string) []byte {
		i := slices.Index(chatDictionary[:], s)
		if i < 0 {
			t.Fatalf("%q is not in the dictionary", s)
		}
		return []byte{tagDict, byte(i)}
	}
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	url, png := word("url"), word("data:image/png;base64,")
	for name, c := range map[string]struct {
		anth []byte
		kind error
		at   int64
		says string
	}{
		"ok: data URL":                     {ext(cat(url, []byte{tagDataURL}, png, []byte{3, 'A', 'B', 'C', tagEnd})...), nil, 0, ""},
		"ok: literal prefix":               {ext(cat(url, []byte{tagDataURL}, lit("data:x;base64,"), []byte{1, 0, tagEnd})...), nil, 0, ""},
		"ok: last dictionary word":         {ext(cat([]byte{tagDict, byte(len(chatDictionary) - 1)}, []byte{tagNull, tagEnd})...), nil, 0, ""},
		"dictionary index":                 {ext(tagDict, byte(len(chatDictionary)), tagNull, tagEnd), ErrMalformed, 7, ""},
		"Messages word sent as index":      {ext(cat(lit("x"), []byte{tagDict, byte(len(chatDictionary))}, []byte{tagEnd})...), ErrMalformed, 10, ""},
		"dictionary word literal":          {ext(cat(lit("tool_choice"), []byte{tagNull, tagEnd})...), ErrMalformed, 6, ""},
		"v1-only word is literal":          {ext(cat(lit("input_schema"), []byte{tagNull, tagEnd})...), nil, 0, ""},
		"data URL literal":                 {ext(cat(url, lit("data:image/png;base64,QUJD"), []byte{tagEnd})...), ErrMalformed, 8, ""},
		"data URL literal in array":        {ext(cat(url, []byte{tagArray}, lit("data:x;base64,AA=="), []byte{tagEnd, tagEnd})...), ErrMalformed, 9, ""},
		"data URL key literal is fine":     {ext(cat(lit("data:x;base64,AA=="), []byte{tagNull, tagEnd})...), nil, 0, ""},
		"data URL as a key":                {ext(cat([]byte{tagDataURL}, png, []byte{1, 0, tagNull, tagEnd})...), ErrMalformed, 6, ""},
		"data URL prefix in dictionary":    {ext(cat(url, []byte{tagDataURL}, lit("data:image/png;base64,"), []byte{1, 0, tagEnd})...), ErrMalformed, 9, "in the dictionary"},
		"data URL prefix not data:":        {ext(cat(url, []byte{tagDataURL}, lit("date:x;base64,"), []byte{1, 0, tagEnd})...), ErrMalformed, 9, ""},
		"data URL prefix not ;base64,":     {ext(cat(url, []byte{tagDataURL}, lit("data:x;base32,"), []byte{1, 0, tagEnd})...), ErrMalformed, 9, ""},
		"data URL prefix two commas":       {ext(cat(url, []byte{tagDataURL}, lit("data:x,;base64,"), []byte{1, 0, tagEnd})...), ErrMalformed, 9, ""},
		"data URL prefix word not prefix":  {ext(cat(url, []byte{tagDataURL}, word("image_url"), []byte{1, 0, tagEnd})...), ErrMalformed, 9, ""},
		"data URL prefix not UTF-8":        {ext(cat(url, []byte{tagDataURL}, lit("data:\xff;base64,"), []byte{1, 0, tagEnd})...), ErrMalformed, 9, "prefix that is not UTF-8"},
		"data URL prefix tag 07":           {ext(cat(url, []byte{tagDataURL, tagBase64, 1, 0, 1, 0, tagEnd})...), ErrMalformed, 9, ""},
		"data URL prefix null":             {ext(cat(url, []byte{tagDataURL, tagNull, 1, 0, tagEnd})...), ErrMalformed, 9, "want a data URL's prefix"},
		"data URL prefix bad index":        {ext(cat(url, []byte{tagDataURL, tagDict, 0xFF, 1, 0, tagEnd})...), ErrMalformed, 10, ""},
		"data URL of no bytes":             {ext(cat(url, []byte{tagDataURL}, png, []byte{0, tagEnd})...), ErrMalformed, 8, "no bytes"},
		"data URL length not minimal":      {ext(cat(url, []byte{tagDataURL}, png, []byte{0x81, 0x00, 0, tagEnd})...), ErrMalformed, 11, ""},
		"data URL cut in the prefix tag":   {ext(cat(url, []byte{tagDataURL})...), ErrTruncated, 9, ""},
		"data URL cut in the prefix":       {ext(cat(url, []byte{tagDataURL}, []byte{tagString, 20, 'd'})...), ErrTruncated, 10, ""},
		"data URL cut in the length":       {ext(cat(url, []byte{tagDataURL}, png)...), ErrTruncated, 11, ""},
		"data URL cut in the bytes":        {ext(cat(url, []byte{tagDataURL}, png, []byte{3, 'A'})...), ErrTruncated, 11, ""},
		"base64 outside data":              {ext(cat(url, []byte{tagBase64, 1, 0, tagEnd})...), ErrMalformed, 8, ""},
		"base64 under data":                {ext(cat(word("data"), []byte{tagBase64, 1, 0, tagEnd})...), nil, 0, ""},
		"data base64 literal":              {ext(cat(word("data"), lit("QUJD"), []byte{tagEnd})...), ErrMalformed, 8, ""},
		"unknown tag 0C":                   {ext(cat(url, []byte{0x0C, tagEnd})...), ErrMalformed, 8, ""},
		"duplicate key":                    {ext(cat(url, []byte{tagNull}, url, []byte{tagNull, tagEnd})...), ErrMalformed, 9, ""},
		"integer as text":                  {ext(cat(url, []byte{tagNumber, 1, '7', tagEnd})...), ErrMalformed, 8, ""},
		"trailing byte":                    {ext(tagEnd, 0), ErrMalformed, 7, ""},
		"not an object":                    {[]byte("ANTX\x02\x08\x0A"), ErrMalformed, 5, ""},
		"no end":                           {ext(), ErrTruncated, 6, ""},
		"Messages data key seen as a word": {ext(cat([]byte{tagDict, 31}, []byte{tagBase64, 1, 0, tagEnd})...), ErrMalformed, 8, "outside"},
	} {
		_, err := AppendChatJSON(nil, c.anth)
		switch {
		case c.kind == nil && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.kind != nil && (!errorAt(err, c.kind, c.at) || !strings.Contains(err.Error(), c.says)):
			t.Errorf("%s (% X): %v, want %v at %d saying %q", name, c.anth, err, c.kind, c.at, c.says)
		}
	}
	// The JSON side shares the Messages form's reader: bad JSON at its byte.
	for body, at := range map[string]int64{
		``:                                   0,
		`[]`:                                 0,
		`{"messages":[{"role":"user"}]`:      29,
		`{"a":1,"a":2}`:                      7,
		`{"url":"data:image/png;base64,\x"}`: 30,
		`{"a":"\ud800"}`:                     6,
		`{"a":1} {}`:                         8,
	} {
		out, err := AppendChatANTH([]byte("keep"), jsontest.Exact(body))
		if !errorAt(err, ErrMalformed, at) || string(out) != "keep" {
			t.Errorf("%q: %v, want ErrMalformed at %d", body, err, at)
		}
	}
}

// TestChatLimits: a request of exactly MaxSize bytes, nesting of exactly
// MaxDepth and JSON of exactly MaxOutputSize pass; a byte or a level more
// is ErrTooLarge, at the limit, at the value that goes too deep, or at the
// tag whose JSON would pass the limit.
func TestChatLimits(t *testing.T) {
	body := []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}`) // 6 levels
	anth, err := AppendChatANTH(nil, body)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []Limits{{MaxSize: len(body)}, {MaxDepth: 6}, {MaxOutputSize: len(body)}} {
		if got, err := l.AppendChatANTH(nil, body); err != nil || !bytes.Equal(got, anth) {
			t.Errorf("%+v: %v", l, err)
		}
	}
	for _, l := range []Limits{{MaxSize: len(anth)}, {MaxDepth: 6}, {MaxOutputSize: len(body)}} {
		if _, err := l.AppendChatJSON(nil, anth); err != nil {
			t.Errorf("%+v: the ANTH back: %v", l, err)
		}
	}
	if _, err := (Limits{MaxSize: len(body) - 1}).AppendChatANTH(nil, body); !errorAt(err, ErrTooLarge, int64(len(body)-1)) {
		t.Errorf("JSON a byte over the limit: %v", err)
	}
	if _, err := (Limits{MaxSize: len(anth) - 1}).AppendChatJSON(nil, anth); !errorAt(err, ErrTooLarge, int64(len(anth)-1)) {
		t.Errorf("ANTH a byte over the limit: %v", err)
	}
	if _, err := (Limits{MaxDepth: 5}).AppendChatANTH(nil, body); !errorAt(err, ErrTooLarge, int64(bytes.Index(body, []byte(`{"url"`)))) {
		t.Errorf("JSON nested a level too deep: %v", err)
	}
	if _, err := (Limits{MaxDepth: 5}).AppendChatJSON(nil, anth); !errorAt(err, ErrTooLarge, int64(bytes.LastIndexByte(anth, tagObject))) {
		t.Errorf("ANTH nested a level too deep: %v", err)
	}
	// The output limit, at every size: the error is at the tag whose JSON
	// (with the comma or colon before it) would pass it, read off the
	// output of a limit one larger.
	for limit := 1; limit < len(body); limit++ {
		out, err := (Limits{MaxOutputSize: limit}).AppendChatJSON(nil, anth)
		var e *Error
		if !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || out != nil || e.Offset < 5 || e.Offset >= int64(len(anth)) {
			t.Fatalf("output limit %d: %v", limit, err)
		}
		// The data URL is one string, counted whole at its tag with the
		// colon before it: the limits from the JSON before that colon to a
		// byte short of the string's end quote fail there, and no others.
		i := bytes.Index(body, []byte(`"data:`))
		wantURL := limit >= i-1 && limit < i+len(`"data:image/png;base64,iVBORw0KGgo="`)
		if atURL := anth[e.Offset] == tagDataURL; atURL != wantURL {
			t.Errorf("output limit %d: error at %d (tag %02X), want it at the data URL: %v", limit, e.Offset, anth[e.Offset], wantURL)
		}
	}
}

// TestChatOutputBound: the worst Chat Completions ANTH for expansion, an
// array of the dictionary's longest string, two bytes each, becomes
// (23+3)/2 = 13 bytes of JSON a byte, within the 14 stated for both
// versions (Limits.MaxOutputSize); no other value does worse (a data URL:
// 5 bytes for 30 of JSON). MaxOutputSize stops it with ErrTooLarge, no more
// than the limit held.
func TestChatOutputBound(t *testing.T) {
	longest := slices.IndexFunc(chatDictionary[:], func(s string) bool { return len(s) == maxChatDictString })
	build := func(n int, item []byte) []byte {
		b := append([]byte("ANTX\x02"), tagObject, tagString, 1, 'x', tagArray)
		for range n {
			b = append(b, item...)
		}
		return append(b, tagEnd, tagEnd)
	}
	worst := 0.0
	for name, item := range map[string][]byte{
		"longest word": {tagDict, byte(longest)},
		"data URL":     {tagDataURL, tagDict, byte(longest), 1, 0},
		"integer -1":   {tagInteger, 1},
		"null":         {tagNull},
		"empty array":  {tagArray, tagEnd},
		"empty object": {tagObject, tagEnd},
	} {
		in := build(10_000, item)
		js, err := AppendChatJSON(nil, in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r := float64(len(js)) / float64(len(in))
		t.Logf("%-13s %6d bytes of ANTX: %7d bytes of JSON, %.2f a byte", name, len(in), len(js), r)
		worst = max(worst, r)
		if r > 14 {
			t.Errorf("%s: %.2f bytes of JSON a byte, want at most 14", name, r)
		}
	}
	if bound := float64(maxChatDictString+3) / 2; worst < bound-0.01 || worst > bound {
		t.Errorf("the worst input makes %.2f bytes a byte; the longest word makes %.1f", worst, bound)
	}
	const limit = 1 << 20
	big := build(limit, []byte{tagDict, byte(longest)})
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	out, err := (Limits{MaxOutputSize: limit}).AppendChatJSON(nil, big)
	runtime.ReadMemStats(&ms1)
	var e *Error
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || e.Offset <= 0 || e.Offset >= int64(len(big)) || out != nil {
		t.Fatalf("%d bytes of ANTX under a %d-byte output limit: %v", len(big), limit, err)
	}
	if got := ms1.TotalAlloc - ms0.TotalAlloc; got > 6*limit {
		t.Errorf("%d bytes allocated under a %d-byte output limit, want at most 6x (append's growth)", got, limit)
	}
}

// TestChatDictionary: the entries are unique, at most 256, none longer
// than maxChatDictString, which is the longest; the data URL prefixes it
// holds are prefixes tag 0B takes.
func TestChatDictionary(t *testing.T) {
	longest := 0
	seen := map[string]bool{}
	for _, s := range chatDictionary {
		if seen[s] {
			t.Errorf("%q is in the dictionary twice", s)
		}
		seen[s] = true
		longest = max(longest, len(s))
		if strings.HasPrefix(s, "data:") && !dataURLPrefix([]byte(s)) {
			t.Errorf("%q is not a data URL prefix", s)
		}
		if i, ok := chatDict.lookup([]byte(s)); !ok || chatDictionary[i] != s {
			t.Errorf("%q: index %d, %v", s, i, ok)
		}
	}
	if len(chatDictionary) > 256 || longest != maxChatDictString || longest > maxDictString {
		t.Fatalf("%d entries, the longest %d bytes; maxChatDictString is %d", len(chatDictionary), longest, maxChatDictString)
	}
}

var (
	chatValidRow   = regexp.MustCompile("^\\| `(chat-[a-z0-9-]+)` \\| `(\\{.*\\})` \\| `([0-9A-F ]+)` \\|$")
	chatInvalidRow = regexp.MustCompile("^\\| `(chat-[a-z0-9-]+)` \\| `([0-9A-F ]*)` \\| (Err[A-Za-z]+) \\| ([0-9]+) \\|$")
	chatKinds      = map[string]error{"ErrMalformed": ErrMalformed, "ErrTruncated": ErrTruncated, "ErrTooLarge": ErrTooLarge, "ErrBadMagic": ErrBadMagic}
)

// TestChatSpecVectors checks SPEC.md §5.5's vectors byte for byte.
func TestChatSpecVectors(t *testing.T) {
	valid := testdata.SpecRows(t, "5.5", chatValidRow)
	invalid := testdata.SpecRows(t, "5.5", chatInvalidRow)
	if len(valid) < 3 || len(invalid) < 6 {
		t.Fatalf("found %d valid and %d invalid vectors in SPEC.md §5.5", len(valid), len(invalid))
	}
	for _, v := range valid {
		want := testdata.Hex(t, v[3])
		got, err := AppendChatANTH(nil, []byte(v[2]))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: encodes to % X (%v), SPEC.md says % X", v[1], got, err, want)
		}
		back, err := AppendChatJSON(nil, want)
		if err != nil || string(back) != v[2] {
			t.Errorf("%s: decodes to %s (%v)", v[1], back, err)
		}
	}
	for _, v := range invalid {
		off, _ := strconv.ParseInt(v[4], 10, 64)
		read := AppendChatJSON
		if strings.HasPrefix(v[1], "chat-read-as-messages") {
			read = AppendJSON
		}
		if _, err := read(nil, testdata.Hex(t, v[2])); !errorAt(err, chatKinds[v[3]], off) {
			t.Errorf("%s: %v, want %s at %s", v[1], err, v[3], v[4])
		}
	}
}

// FuzzChatCanonical: any bytes AppendChatJSON accepts re-encode, by
// AppendChatANTH of its JSON, to exactly those bytes (each request has one
// encoding, SPEC.md §5.5), within 14 bytes of JSON a byte; anything it
// refuses is an *Error inside the input. JSON that AppendChatANTH accepts
// comes back from its ANTH as the same value. The seed corpus is the
// bodies of testdata/requests/chat and their ANTH, and
// testdata/fuzz/FuzzChatCanonical.
func FuzzChatCanonical(f *testing.F) {
	for _, body := range testdata.ChatRequests(f) {
		f.Add(body)
		anth, err := AppendChatANTH(nil, body)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(anth)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if js, err := AppendChatJSON(nil, in); err == nil {
			if len(js) > 14*len(in) {
				t.Fatalf("%d bytes of JSON from %d", len(js), len(in))
			}
			again, err := AppendChatANTH(nil, js)
			if err != nil || !bytes.Equal(again, in) {
				t.Fatalf("accepted\n% X\nas %s, which encodes to\n% X (%v)", in, js, again, err)
			}
		} else {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > int64(len(in)) {
				t.Fatalf("error %v (%T)", err, err)
			}
		}
		if anth, err := AppendChatANTH(nil, in); err == nil {
			back, err := AppendChatJSON(nil, anth)
			if err != nil || !sameValue(back, in) {
				t.Fatalf("%s: to % X, back %s (%v)", in, anth, back, err)
			}
		}
	})
}
