package jsonlex

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/layer0/anth/internal/jsonlex/jsontest"
	"pgregory.net/rapid"
)

// TestJSONField: Field finds what encoding/json finds, in any object,
// compact or not, with any keys and escapes.
func TestJSONField(t *testing.T) {
	keys := rapid.SampledFrom([]string{"a", "b", "usage", "input_tokens", `q"uote`, "é", "\\"})
	var value *rapid.Generator[any]
	value = rapid.Deferred(func() *rapid.Generator[any] {
		return rapid.OneOf(
			rapid.Map(rapid.Uint64(), func(v uint64) any { return v }),
			rapid.Map(rapid.String(), func(s string) any { return s }),
			rapid.Just[any](nil),
			rapid.Map(rapid.SliceOfN(value, 0, 3), func(v []any) any { return v }),
			rapid.Map(rapid.MapOfN(keys, value, 0, 3), func(m map[string]any) any { return m }),
		)
	})
	rapid.Check(t, func(t *rapid.T) {
		obj := rapid.MapOfN(keys, value, 0, 4).Draw(t, "object")
		js, _ := json.Marshal(obj)
		if rapid.Bool().Draw(t, "indent") {
			var ind bytes.Buffer
			json.Indent(&ind, js, "", " \t")
			js = ind.Bytes()
		}
		path := rapid.SliceOfN(keys, 1, 3).Draw(t, "path")
		var want any = obj
		found := true
		for _, k := range path {
			m, ok := want.(map[string]any)
			if want, ok = m[k]; !ok {
				found = false
				break
			}
		}
		raw, ok := Field(js, path...)
		if ok != found {
			t.Fatalf("Field(%s, %q) found %v, want %v", js, path, ok, found)
		}
		if ok {
			want, _ := json.Marshal(want)
			if !Same(raw, want) {
				t.Fatalf("Field(%s, %q) = %s, want %s", js, path, raw, want)
			}
		}
	})
}

func TestSameJSON(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`{"a":1,"b":"x"}`, `{"b":"x","a":1}`, true},
		{`{"a":"\u00e9"}`, `{"a":"é"}`, true},
		{`{"a":1}`, `{"a":1.0}`, false},
		{`{"a":12345678901234567890}`, `{"a":12345678901234567891}`, false},
		{`{"a":1}`, `{"a":1}x`, false},
		{`[1,2]`, `[2,1]`, false},
		// A key of a that b spells with an escape, as many members each.
		{`{"a":[]}`, `{"\u0061":[]}`, true},
		{`{"a":1,"b":2}`, `{"\u0062":2,"a":1}`, true},
		{`{"a":1}`, `{"\u0062":1}`, false},
		{`{"a":1}`, `{"b":1}`, false},
		{`{"a":1,"b":1}`, `{"a":1,"b":1,"\u0061":1}`, true},
		{`{"a":1,"b":1}`, `{"a":1,"b":1,"\u0061":2}`, false},
		{`{"a":1}`, `{"a":1,"b":1}`, false},
		// A key repeated through an escape, whose last value decoding
		// keeps: the first values differing decide nothing (rapid found
		// the first at 15,577 checks).
		{`{"a":1,"\u0061":1}`, `{"a":1.0,"\u0061":1}`, true},
		{`{"a":1}`, `{"a":2,"\u0061":1}`, true},
		{`{"a":2,"\u0061":1}`, `{"a":1}`, true},
		{`{"a":1,"\u0061":2}`, `{"a":1}`, false},
	} {
		if got := Same([]byte(c.a), []byte(c.b)); got != c.same {
			t.Errorf("Same(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// TestCompactAgrees: AppendCompact accepts what encoding/json.Compact
// accepts and gives the same bytes, for JSON and for near-JSON.
func TestCompactAgrees(t *testing.T) {
	pieces := []string{"{", "}", "[", "]", ",", ":", " ", "\n", "\t", "\r", `"a"`, `"\u00e9"`, `"\x"`, `"\u12"`, "\"\x01\"", `"\"`,
		"0", "-0", "01", "1.5", "1.", "1e9", "1E+2", "-", "true", "tru", "false", "null", "nul", "é", "\"é\xff\""}
	rapid.Check(t, func(t *rapid.T) {
		var src []byte
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 30).Draw(t, "pieces") {
			src = append(src, p...)
		}
		var want bytes.Buffer
		werr := json.Compact(&want, src)
		got, ok := AppendCompact([]byte("keep"), src)
		if ok != (werr == nil) {
			t.Fatalf("%q: AppendCompact says %v, encoding/json %v", src, ok, werr)
		}
		if ok && string(got) != "keep"+want.String() {
			t.Fatalf("%q: AppendCompact gives %q, encoding/json %q", src, got[4:], want.String())
		}
	})
	deep := bytes.Repeat([]byte("["), 10_001)
	for _, n := range []int{10_000, 10_001} {
		src := append(append([]byte{}, deep[:n]...), bytes.Repeat([]byte("]"), n)...)
		_, ok := AppendCompact(nil, src)
		if ok != (json.Valid(src)) {
			t.Fatalf("%d nested arrays: AppendCompact says %v, encoding/json %v", n, ok, json.Valid(src))
		}
	}
}

// FuzzCompact: AppendCompact and encoding/json.Compact agree on any input.
func FuzzCompact(f *testing.F) {
	f.Add([]byte(`{"type": "ping"}`))
	f.Add([]byte(`[1, -0.5e+3, "\u00e9\n", true, null, {"a" : []}]`))
	f.Fuzz(func(t *testing.T, src []byte) {
		var want bytes.Buffer
		werr := json.Compact(&want, src)
		got, ok := AppendCompact(nil, src)
		if ok != (werr == nil) || ok && !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%q: AppendCompact %q, %v; encoding/json %q, %v", src, got, ok, want.Bytes(), werr)
		}
	})
}

// TestEqualJSONAgrees: whenever Equal is sure, it says what decoding
// both values says: for objects whose members come in any order, keys and
// strings spelled with escapes or not, repeated keys, numbers written
// differently.
func TestEqualJSONAgrees(t *testing.T) {
	keys := []string{`"a"`, `"\u0061"`, `"b"`, `"type"`}
	scalars := []string{`1`, `1.0`, `-3`, `"x"`, `"\u0078"`, `"é"`, `"\u00e9"`, `true`, `null`, `""`}
	var value func(t *rapid.T, depth int) []string // the value, spelled two ways
	value = func(t *rapid.T, depth int) []string {
		switch k := rapid.IntRange(0, 2).Draw(t, "kind"); {
		case k == 0 || depth > 2:
			return []string{rapid.SampledFrom(scalars).Draw(t, "a"), rapid.SampledFrom(scalars).Draw(t, "b")}
		case k == 1:
			var a, b []string
			for range rapid.IntRange(0, 3).Draw(t, "items") {
				v := value(t, depth+1)
				a, b = append(a, v[0]), append(b, v[1])
			}
			return []string{"[" + strings.Join(a, ",") + "]", "[" + strings.Join(b, ",") + "]"}
		}
		var a, b []string
		for range rapid.IntRange(0, 4).Draw(t, "members") {
			v := value(t, depth+1)
			a = append(a, rapid.SampledFrom(keys).Draw(t, "ka")+":"+v[0])
			b = append(b, rapid.SampledFrom(keys).Draw(t, "kb")+":"+v[1])
		}
		perm := rapid.Permutation(b).Draw(t, "order")
		return []string{"{" + strings.Join(a, ",") + "}", "{" + strings.Join(perm, ",") + "}"}
	}
	sure := 0
	rapid.Check(t, func(t *rapid.T) {
		v := value(t, 0)
		if rapid.Bool().Draw(t, "same") {
			v[1] = v[0]
		}
		eq, ok := Equal([]byte(v[0]), []byte(v[1]))
		if !ok {
			return
		}
		sure++
		va, _ := DecodeNumbers([]byte(v[0]))
		vb, _ := DecodeNumbers([]byte(v[1]))
		if want := cmp.Equal(va, vb); eq != want {
			t.Fatalf("Equal(%s, %s) = %v, decoded they are equal: %v", v[0], v[1], eq, want)
		}
	})
	if sure < 20 {
		t.Fatalf("Equal was sure of only %d of the pairs", sure)
	}
}

// TestCompactNearJSON: AppendCompact and encoding/json.Compact agree on
// JSON with every kind of token and on the near-JSON one edit makes of it.
func TestCompactNearJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		src := jsontest.Doc(t)
		var want bytes.Buffer
		werr := json.Compact(&want, src)
		got, ok := AppendCompact(nil, src)
		if ok != (werr == nil) || ok && !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%q: AppendCompact %q, %v; encoding/json %q, %v", src, got, ok, want.Bytes(), werr)
		}
	})
	// Every byte after \u, and the tokens cut at their ends.
	for c := range 256 {
		for _, src := range []string{`"\u00` + string(rune(c)) + `0"`, `"\u` + string(rune(c)) + `000"`} {
			if _, ok := AppendCompact(nil, jsontest.Exact(src)); ok != json.Valid([]byte(src)) {
				t.Errorf("%q: AppendCompact says %v", src, ok)
			}
		}
	}
	for _, src := range []string{"true", "[tru", "[true", "fals", "[nul", `"\`, `"\u123`, `"\u1234`, `["\u123`, "1e", "1e+", "[1.", "-", "[-", "0", "55", "[12]", "-x", `{"a"`, `{"a" `, `{"a":`, "\"\x01\"", "\"\x1f\"", "\" \"", "1.5e", "[0", "01"} {
		var want bytes.Buffer
		werr := json.Compact(&want, []byte(src))
		if got, ok := AppendCompact(nil, jsontest.Exact(src)); ok != (werr == nil) || ok && string(got) != want.String() {
			t.Errorf("%q: AppendCompact %q, %v; encoding/json %v", src, got, ok, werr)
		}
	}
}

// jsontest.Exact returns s as a slice with no room after it, so that reading past
// its end fails.

// TestJSONFieldEdges: Field at the edges of what it reads: empty and
// cut input, keys spelled with escapes, values of every kind, and paths
// through values that are not objects.
func TestJSONFieldEdges(t *testing.T) {
	for _, c := range []struct {
		js   string
		path []string
		want string // "" for not found
	}{
		{``, []string{"a"}, ""},
		{`  `, []string{"a"}, ""},
		{`{`, []string{"a"}, ""},
		{`{ `, []string{"a"}, ""},
		{`{"a"`, []string{"a"}, ""},
		{`{"a":`, []string{"a"}, ""},
		{`{"a":}`, []string{"a"}, ""},
		{`{"a":1`, []string{"b"}, ""},
		{`{"a":1,`, []string{"b"}, ""},
		{`{"a":1 ,}`, []string{"b"}, ""},
		{`{"a":[1,2`, []string{"a"}, ""},
		{`{"a":{"b":`, []string{"a", "b"}, ""},
		{`{"a":"x`, []string{"a"}, ""},
		{`{"a" 1}`, []string{"a"}, ""},
		{`[{"a":1}]`, []string{"a"}, ""},
		{`{"a":1}`, []string{"a", "b"}, ""},
		{`{"a":[{"b":1}]}`, []string{"a", "b"}, ""},
		{`{"a":1}`, []string{"a"}, "1"},
		{` { "x" : [1,{"a":2}] , "a" : { "b" : "v\"}" } } `, []string{"a", "b"}, `"v\"}"`},
		{`{"x":"\\","a":2}`, []string{"a"}, "2"},
		{`{"x":"\\\"","a":3}`, []string{"a"}, "3"},
		{`{"\u0061":4}`, []string{"a"}, "4"},
		{`{"\\":5}`, []string{`\`}, "5"},
		{`{"strea\u006d":true}`, []string{"stream"}, "true"},
		{`{"a\u":6}`, []string{"a"}, ""},
		{`{"a":-1.5e3}`, []string{"a"}, "-1.5e3"},
		{`{"a":null}`, []string{"a"}, "null"},
		{`{"a":{}}`, []string{"a"}, "{}"},
		{`{"a":"]"}`, []string{"a"}, `"]"`},
		{`{"a":[[],{"b":"]}"}]}`, []string{"a"}, `[[],{"b":"]}"}]`},
	} {
		got, ok := Field(jsontest.Exact(c.js), c.path...)
		if ok != (c.want != "") || string(got) != c.want {
			t.Errorf("Field(%s, %q) = %s, %v; want %s", c.js, c.path, got, ok, c.want)
		}
	}
	for js, want := range map[string]uint64{`{"n":7}`: 7, `{"n":18446744073709551615}`: 1<<64 - 1} {
		if n, ok := Uint(jsontest.Exact(js), "n"); !ok || n != want {
			t.Errorf("Uint(%s) = %d, %v", js, n, ok)
		}
	}
	for _, js := range []string{`{"n":-1}`, `{"n":1.5}`, `{"n":"7"}`, `{"n":18446744073709551616}`, `{}`} {
		if n, ok := Uint(jsontest.Exact(js), "n"); ok {
			t.Errorf("Uint(%s) = %d, want none", js, n)
		}
	}
}

// TestEqualJSONSure: Equal is sure of its answer, and right, whenever
// no string or key has an escape and no object repeats a key, as its
// comment promises, whatever the whitespace; and it reads nothing past
// the values.
func TestEqualJSONSure(t *testing.T) {
	keys := []string{`"a"`, `"b"`, `"type"`, `"x y"`}
	scalars := []string{`1`, `1.0`, `-3`, `"x"`, `"é"`, `true`, `false`, `null`, `""`, `"]"`, `"}"`, `{}`, `[]`}
	ws := []string{"", " ", "\n\t"}
	var value func(t *rapid.T, depth int) string
	value = func(t *rapid.T, depth int) string {
		w := func() string { return rapid.SampledFrom(ws).Draw(t, "ws") }
		switch k := rapid.IntRange(0, 2).Draw(t, "kind"); {
		case k == 0 || depth > 2:
			return rapid.SampledFrom(scalars).Draw(t, "scalar")
		case k == 1:
			var items []string
			for range rapid.IntRange(0, 3).Draw(t, "items") {
				items = append(items, w()+value(t, depth+1)+w())
			}
			return "[" + strings.Join(items, ",") + w() + "]"
		}
		var members []string
		for _, k := range rapid.SliceOfNDistinct(rapid.SampledFrom(keys), 0, 4, rapid.ID).Draw(t, "keys") {
			members = append(members, w()+k+w()+":"+w()+value(t, depth+1)+w())
		}
		members = rapid.Permutation(members).Draw(t, "order")
		return "{" + strings.Join(members, ",") + w() + "}"
	}
	rapid.Check(t, func(t *rapid.T) {
		a := value(t, 0)
		b := a
		if !rapid.Bool().Draw(t, "same") {
			b = value(t, 0)
		}
		b = rapid.SampledFrom(ws).Draw(t, "before") + b + rapid.SampledFrom(ws).Draw(t, "after")
		eq, sure := Equal(jsontest.Exact(a), jsontest.Exact(b))
		va, _ := DecodeNumbers([]byte(a))
		vb, _ := DecodeNumbers([]byte(b))
		if want := cmp.Equal(va, vb); !sure || eq != want {
			t.Fatalf("Equal(%s, %s) = %v, sure %v; decoded they are equal: %v", a, b, eq, sure, want)
		}
	})
}

// TestEqualJSONManyMembers: Equal leaves objects of more than 32
// members to Same's decoding rather than scanning for each key (n²:
// 4,000 keys took 0.56 s), and Same still answers.
func TestEqualJSONManyMembers(t *testing.T) {
	a, b := []byte("{"), []byte("{")
	const n = 4000
	for i := range n {
		a = append(a, `"k`+strconv.Itoa(i)+`":0,`...)
		b = append(b, `"k`+strconv.Itoa(n-1-i)+`":0,`...)
	}
	a[len(a)-1], b[len(b)-1] = '}', '}'
	if _, sure := Equal(a, b); sure {
		t.Errorf("Equal is sure of a %d-member object", n)
	}
	if !Same(a, b) {
		t.Errorf("Same: a reordered object differs")
	}
	c := append([]byte(nil), b...)
	c[len(c)-2] = '1'
	if Same(a, c) {
		t.Errorf("Same: objects that differ are the same")
	}
}

// TestValidAgrees: Valid decides as encoding/json.Valid does (which is
// what AppendCompact is held to), on JSON and on near-JSON.
func TestValidAgrees(t *testing.T) {
	// Whitespace after the value, which a relay's event data may end in
	// (rapid found the first).
	for _, src := range []string{"{} ", "1\n", " \"a\"\t", "[]\r\n ", "{ } x"} {
		if got, want := Valid([]byte(src)), json.Valid([]byte(src)); got != want {
			t.Errorf("%q: Valid %v, encoding/json %v", src, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		src := jsontest.Doc(t)
		if got, want := Valid(src), json.Valid(src); got != want {
			t.Fatalf("%q: Valid %v, encoding/json %v", src, got, want)
		}
		if _, ok := AppendCompact(nil, src); ok != Valid(src) {
			t.Fatalf("%q: AppendCompact %v, Valid %v", src, ok, Valid(src))
		}
	})
}

// TestElements: Elements gives an array's elements as encoding/json reads
// them, each a subslice at its place, stops when f does, and refuses what
// is not an array.
func TestElements(t *testing.T) {
	for _, arr := range []string{`[]`, `[ ]`, `[1]`, `[1,"a,]",{"b":[2,3]},null, [] ,true]`, `[[],[[]]]`, "[ 1 ,\n2\t]", `[{"a":1 } ]`} {
		var want []json.RawMessage
		if err := json.Unmarshal([]byte(arr), &want); err != nil {
			t.Fatal(err)
		}
		var got []string
		b := []byte(arr)
		ok := Elements(b, func(v []byte) bool {
			if off := cap(b) - cap(v); string(b[off:off+len(v)]) != string(v) {
				t.Errorf("%s: element %s is not at its place", arr, v)
			}
			got = append(got, string(v))
			return true
		})
		if !ok || len(got) != len(want) {
			t.Fatalf("%s: %v, %q; want %d elements", arr, ok, got, len(want))
		}
		for i := range got {
			if got[i] != strings.TrimSpace(string(want[i])) {
				t.Errorf("%s: element %d is %q, want %q", arr, i, got[i], want[i])
			}
		}
	}
	n := 0
	if Elements([]byte(`[1,2,3]`), func([]byte) bool { n++; return n < 2 }) || n != 2 {
		t.Errorf("Elements did not stop when f did (%d calls)", n)
	}
	for _, bad := range []string{`{}`, `1`, `[`, `"[]"`} {
		if Elements([]byte(bad), func([]byte) bool { return true }) {
			t.Errorf("Elements accepted %s", bad)
		}
	}
}

// TestEqualObjectsAgrees: equalObjects, which splits each object into its
// members once, answers as the scan it replaced did (kept here as the
// reference), sure or not, on objects with repeated keys, escaped keys,
// nested values, whitespace and near-JSON.
func TestEqualObjectsAgrees(t *testing.T) {
	keys := []string{`"a"`, `"\u0061"`, `"b"`, `"type"`, `"x y"`}
	scalars := []string{`1`, `1.0`, `"x"`, `"\u0078"`, `true`, `null`, `{}`, `[]`, `{"a":1}`, `[1,{"b":2}]`}
	ws := []string{"", " ", "\n"}
	object := func(t *rapid.T, label string) string {
		var members []string
		for range rapid.IntRange(0, 6).Draw(t, label+"-n") {
			w := rapid.SampledFrom(ws).Draw(t, "ws")
			members = append(members, w+rapid.SampledFrom(keys).Draw(t, "key")+w+":"+rapid.SampledFrom(scalars).Draw(t, "value")+w)
		}
		s := "{" + strings.Join(members, ",") + "}"
		if rapid.IntRange(0, 9).Draw(t, label+"-break") == 0 && len(s) > 2 {
			i := rapid.IntRange(1, len(s)-2).Draw(t, label+"-at")
			s = s[:i] + rapid.SampledFrom([]string{",", ":", `"`, ""}).Draw(t, label+"-with") + s[i+1:]
		}
		return s
	}
	rapid.Check(t, func(t *rapid.T) {
		a := object(t, "a")
		b := a
		if !rapid.Bool().Draw(t, "same") {
			b = object(t, "b")
		}
		if !closed([]byte(a)) || !closed([]byte(b)) {
			return
		}
		eq, sure := equalObjects([]byte(a), []byte(b))
		weq, wsure := equalObjectsScan([]byte(a), []byte(b))
		if eq != weq || sure != wsure {
			t.Fatalf("equalObjects(%s, %s) = %v, %v; the scan said %v, %v", a, b, eq, sure, weq, wsure)
		}
		// And a sure answer is decoding's.
		va, oka := DecodeNumbers([]byte(a))
		vb, okb := DecodeNumbers([]byte(b))
		if sure && oka && okb && eq != cmp.Equal(va, vb) {
			t.Fatalf("equalObjects(%s, %s) = %v, sure; decoded they are equal: %v", a, b, eq, !eq)
		}
	})
}

func equalObjectsScan(a, b []byte) (equal, sure bool) {
	na, nb := scanCount(a), scanCount(b)
	if na < 0 || nb < 0 || na > maxCompareMembers || nb > maxCompareMembers {
		return false, false
	}
	for rest := a[1 : len(a)-1]; ; {
		key, va, r, ok := nextMember(rest)
		if !ok {
			// Each key of a is once in b: b has no other member unless
			// it has more, which may be a's keys spelled with escapes.
			return na == nb, na == nb || bytes.IndexByte(b, '\\') < 0
		}
		if bytes.IndexByte(key, '\\') >= 0 {
			return false, false
		}
		vb, nb2 := scanMember(b, key)
		if _, n := scanMember(a, key); n != 1 || nb2 > 1 {
			return false, false // a repeated key
		}
		if nb2 == 0 {
			return false, bytes.IndexByte(b, '\\') < 0 // b may spell key with escapes
		}
		if eq, sure := Equal(va, vb); !eq || !sure {
			// As equalObjects since rapid found {"a":1,"\u0061":1}
			// against {"a":1.0,"\u0061":1}: an escaped key may repeat
			// this one, and decoding keeps the last value.
			return eq, sure && !scanEscapedKey(a) && !scanEscapedKey(b)
		}
		rest = r
	}
}
func scanEscapedKey(obj []byte) bool {
	for rest := obj[1 : len(obj)-1]; ; {
		k, _, r, ok := nextMember(rest)
		if !ok {
			return false
		}
		if bytes.IndexByte(k, '\\') >= 0 {
			return true
		}
		rest = r
	}
}
func scanMember(obj, key []byte) (value []byte, n int) {
	for rest := obj[1 : len(obj)-1]; ; {
		k, v, r, ok := nextMember(rest)
		if !ok {
			return value, n
		}
		if string(k) == string(key) {
			value = v
			n++
		}
		rest = r
	}
}
func scanCount(obj []byte) int {
	n := 0
	for rest := obj[1 : len(obj)-1]; ; n++ {
		if SkipSpace(rest, 0) == len(rest) {
			return n
		}
		_, _, r, ok := nextMember(rest)
		if !ok {
			return -1
		}
		rest = r
	}
}

// TestMembers: an object's members as encoding/json reads them, compact
// or not (whitespace before the closing brace too); not an object is
// refused.
func TestMembers(t *testing.T) {
	for _, obj := range []string{`{}`, `{ }`, `{"a":1}`, `{ "a" : 1 , "b":[2, 3] }`, "{\"a\":{\"b\":1 }\n}"} {
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(obj), &want); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		if !Members([]byte(obj), func(k, v []byte) bool {
			got[string(k[1:len(k)-1])] = string(v)
			return true
		}) || len(got) != len(want) {
			t.Fatalf("%s: %q; want %d members", obj, got, len(want))
		}
		for k, v := range want {
			if got[k] != strings.TrimSpace(string(v)) {
				t.Errorf("%s: %s is %q, want %q", obj, k, got[k], v)
			}
		}
	}
	for _, bad := range []string{`[]`, `1`, `{`, `{"a"}`} {
		if Members([]byte(bad), func(_, _ []byte) bool { return true }) {
			t.Errorf("Members accepted %s", bad)
		}
	}
}

// TestCompactLongStrings: long strings with a quote, backslash, escape or
// control character anywhere in them compact and validate as encoding/json
// says.
func TestCompactLongStrings(t *testing.T) {
	pieces := []string{"a", "é", "\xff", `\"`, `\\`, `\n`, `\u00e9`, `\u12`, `\x`, "\x01", "\x1f", " ", `"`, `\`}
	rapid.Check(t, func(t *rapid.T) {
		src := []byte(`{"k": "` + strings.Repeat("p", rapid.IntRange(0, 9).Draw(t, "pad")))
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 40).Draw(t, "pieces") {
			src = append(src, p...)
		}
		src = append(src, `" , "x" : [ "`+strings.Repeat("q", rapid.IntRange(0, 17).Draw(t, "tail"))+`" ] }`...)
		var want bytes.Buffer
		werr := json.Compact(&want, src)
		got, ok := AppendCompact(nil, src)
		if ok != (werr == nil) || ok && !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%q: AppendCompact %q, %v; encoding/json %q, %v", src, got, ok, want.Bytes(), werr)
		}
		if Valid(src) != ok {
			t.Fatalf("%q: Valid %v, AppendCompact %v", src, !ok, ok)
		}
	})
}
