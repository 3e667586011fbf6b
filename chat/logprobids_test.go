package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/sse"
	"pgregory.net/rapid"
)

// testTokens is a vocabulary's bytes → ID for the rewrite's tests: ASCII,
// a character split between two tokens, and an ID that needs TOKEN32.
var testTokens = map[string]uint32{"Hi": 13225, " there": 1354, "\xe4\xbd": 3, "\xa0": 4, "x": 199998, "\x00": 4194303}

func testLookup(b []byte) (uint32, bool) {
	id, ok := testTokens[string(b)]
	return id, ok
}

// decodeJSON decodes js with numbers as written.
func decodeJSON(t tb, js []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, js)
	}
	return v
}

// stripIDs takes "token_ids" out of the choices of the chunk v (in place)
// that strip says, all if strip is nil, and returns them, by choice, nil
// for a choice without.
func stripIDs(v any, strip [][]uint32) [][]any {
	m, _ := v.(map[string]any)
	cs, _ := m["choices"].([]any)
	out := make([][]any, len(cs))
	for i, c := range cs {
		if strip != nil && (i >= len(strip) || strip[i] == nil) {
			continue
		}
		if cm, ok := c.(map[string]any); ok {
			if ids, ok := cm["token_ids"].([]any); ok {
				out[i] = ids
				delete(cm, "token_ids")
			}
		}
	}
	return out
}

// checkRewrite holds appendChunk's output to the input: the same JSON
// value with "token_ids" added, last, to the choices in want (by choice,
// nil for one left alone), within the bound.
func checkRewrite(t tb, in []byte, want [][]uint32) {
	t.Helper()
	x := logprobIDs{lookup: testLookup}
	out, ok := x.appendChunk(nil, in)
	changed := false
	for _, w := range want {
		changed = changed || w != nil
	}
	if ok != changed {
		t.Fatalf("appendChunk(%s) ok = %v, want %v", in, ok, changed)
	}
	if !ok {
		if len(out) != 0 {
			t.Fatalf("unchanged chunk appended %d bytes", len(out))
		}
		return
	}
	if len(out) >= 2*len(in) {
		t.Fatalf("%d bytes became %d: over the bound", len(in), len(out))
	}
	got := decodeJSON(t, out)
	ids := stripIDs(got, want)
	wantIDs := make([][]any, len(want))
	for i, w := range want {
		for _, id := range w {
			wantIDs[i] = append(wantIDs[i], json.Number(fmt.Sprint(id)))
		}
	}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Fatalf("token_ids of %s (-want +got):\n%s", in, diff)
	}
	if diff := cmp.Diff(decodeJSON(t, in), got); diff != "" {
		t.Fatalf("%s changed beyond token_ids (-in +out):\n%s\nout: %s", in, diff, out)
	}
	// Last in each changed choice, as vLLM puts it.
	cs, _ := jsonlex.Field(out, "choices")
	i := 0
	jsonlex.Elements(cs, func(c []byte) bool {
		if want[i] != nil {
			k := bytes.LastIndex(c, []byte(`"token_ids":[`))
			if k < 0 || bytes.IndexByte(c[k:], ']') != len(c[k:])-2 {
				t.Fatalf("choice %d: token_ids not last: %s", i, c)
			}
		}
		i++
		return true
	})
}

// TestLogprobIDs: which choices gain token_ids, and that nothing else
// changes.
func TestLogprobIDs(t *testing.T) {
	entry := func(tok string) string {
		var nums []string
		for _, c := range []byte(tok) {
			nums = append(nums, fmt.Sprint(c))
		}
		return `{"token":` + jsonString(tok) + `,"logprob":-0.5,"bytes":[` + strings.Join(nums, ",") + `],"top_logprobs":[]}`
	}
	chunk := func(choices ...string) string {
		return `{"id":"c","object":"chat.completion.chunk","choices":[` + strings.Join(choices, ",") + `],"usage":null}`
	}
	choice := func(content, refusal string) string {
		return `{"index":0,"delta":{"content":"Hi"},"logprobs":{"content":` + content + `,"refusal":` + refusal + `},"finish_reason":null}`
	}
	for _, tc := range []struct {
		name string
		in   string
		want [][]uint32
	}{
		{"one token", chunk(choice("["+entry("Hi")+"]", "null")), [][]uint32{{13225}}},
		{"two tokens, a split character", chunk(choice("["+entry("\xe4\xbd")+","+entry("\xa0")+"]", "null")), [][]uint32{{3, 4}}},
		{"refusal", chunk(choice("null", "["+entry(" there")+"]")), [][]uint32{{1354}}},
		{"content then refusal", chunk(choice("["+entry("Hi")+"]", "["+entry("x")+"]")), [][]uint32{{13225, 199998}}},
		{"largest ID", chunk(choice("["+entry("\x00")+"]", "null")), [][]uint32{{4194303}}},
		{"two choices, one maps", chunk(choice("["+entry("Hi")+"]", "null"), choice("["+entry("nope")+"]", "null")), [][]uint32{{13225}, nil}},
		{"whitespace kept", "{ \"choices\" : [ { \"logprobs\" : { \"content\" : [ { \"bytes\" : [ 72 , 105 ] } ] } } ] }", [][]uint32{{13225}}},
		{"empty object around", `{"choices":[{"logprobs":{"content":[{"bytes":[72,105]}]}}]}`, [][]uint32{{13225}}},
		// Left alone.
		{"role chunk, no entries", chunk(choice("[]", "null")), [][]uint32{nil}},
		{"logprobs null", chunk(`{"index":0,"delta":{"content":"Hi"},"logprobs":null}`), [][]uint32{nil}},
		{"no logprobs", chunk(`{"index":0,"delta":{"content":"Hi"}}`), [][]uint32{nil}},
		{"vLLM's own IDs", chunk(`{"index":0,"delta":{"content":"Hi"},"logprobs":{"content":[` + entry("Hi") + `]},"token_ids":[7]}`), [][]uint32{nil}},
		{"bytes unknown", chunk(choice("["+entry("Hi")+","+entry("nope")+"]", "null")), [][]uint32{nil}},
		{"bytes null", chunk(choice(`[{"token":"Hi","logprob":-1,"bytes":null,"top_logprobs":[]}]`, "null")), [][]uint32{nil}},
		{"bytes missing", chunk(choice(`[{"token":"Hi","logprob":-1,"top_logprobs":[]}]`, "null")), [][]uint32{nil}},
		{"bytes over 255", chunk(choice(`[{"bytes":[328,105]}]`, "null")), [][]uint32{nil}},
		{"bytes not minimal", chunk(choice(`[{"bytes":[072,105]}]`, "null")), [][]uint32{nil}},
		{"bytes a fraction", chunk(choice(`[{"bytes":[72.0,105]}]`, "null")), [][]uint32{nil}},
		{"bytes a string", chunk(choice(`[{"bytes":"Hi"}]`, "null")), [][]uint32{nil}},
		{"content an object", chunk(choice(`{"bytes":[72,105]}`, "null")), [][]uint32{nil}},
		{"choice not an object", `{"choices":[[{"logprobs":{"content":[{"bytes":[72,105]}]}}]]}`, [][]uint32{nil}},
		{"no choices", `{"choices":[],"usage":{"prompt_tokens":1}}`, nil},
		{"error chunk", `{"error":{"message":"x"}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) { checkRewrite(t, []byte(tc.in), tc.want) })
	}
}

// TestLogprobIDsProperty: on random chunks — choices with and without
// logprobs, entries whose bytes map, do not, are null or missing, choices
// with token_ids of their own, compact or indented — the output is the
// input's JSON value with token_ids added to exactly the choices whose
// every entry maps, and nothing else.
func TestLogprobIDsProperty(t *testing.T) {
	known := make([]string, 0, len(testTokens))
	for k := range testTokens {
		known = append(known, k)
	}
	rapid.Check(t, func(t *rapid.T) {
		nChoices := rapid.IntRange(0, 3).Draw(t, "choices")
		var choices []any
		var want [][]uint32
		for c := range nChoices {
			choice := map[string]any{"index": c, "delta": map[string]any{"content": "x"}, "finish_reason": nil}
			var ids []uint32
			maps := true
			switch rapid.IntRange(0, 3).Draw(t, "logprobs") {
			case 0: // none
				maps = false
			case 1:
				choice["logprobs"] = nil
				maps = false
			default:
				lp := map[string]any{}
				for _, field := range []string{"content", "refusal"} {
					if !rapid.Bool().Draw(t, field) {
						lp[field] = nil
						continue
					}
					entries := []any{}
					for range rapid.IntRange(0, 3).Draw(t, "entries") {
						e := map[string]any{"token": "t", "logprob": -1.25, "top_logprobs": []any{}}
						switch rapid.IntRange(0, 4).Draw(t, "bytes") {
						case 0:
							e["bytes"] = nil
							maps = false
						case 1:
							maps = false // missing
						case 2:
							b := rapid.SliceOfN(rapid.Byte(), 0, 3).Draw(t, "random bytes")
							id, ok := testTokens[string(b)]
							maps = maps && ok
							ids = append(ids, id)
							e["bytes"] = byteInts(b)
						default:
							tok := rapid.SampledFrom(known).Draw(t, "token")
							ids = append(ids, testTokens[tok])
							e["bytes"] = byteInts([]byte(tok))
						}
						entries = append(entries, e)
					}
					lp[field] = entries
				}
				choice["logprobs"] = lp
			}
			if rapid.IntRange(0, 5).Draw(t, "own IDs") == 0 {
				choice["token_ids"] = []any{7, 8}
				maps = false
			}
			if !maps || len(ids) == 0 {
				ids = nil
			}
			choices = append(choices, choice)
			want = append(want, ids)
		}
		in, err := json.Marshal(map[string]any{"id": "c", "choices": choices, "usage": nil})
		if err != nil {
			t.Fatal(err)
		}
		if rapid.Bool().Draw(t, "indented") {
			var buf bytes.Buffer
			json.Indent(&buf, in, "", " ")
			in = buf.Bytes()
		}
		checkRewrite(t, in, want)
	})
}

func byteInts(b []byte) []any {
	out := make([]any, len(b))
	for i, c := range b {
		out[i] = int(c)
	}
	return out
}

// TestLogprobIDsBound: the chunk that grows most for its size — choices
// of one one-byte entry each, every ID of 7 digits — grows under twice.
func TestLogprobIDsBound(t *testing.T) {
	one := `{"logprobs":{"content":[{"bytes":[0]}]}}`
	many := `{"logprobs":{"content":[` + strings.Repeat(`{"bytes":[0]},`, 999) + `{"bytes":[0]}]}}`
	for name, c := range map[string]string{"one entry a choice": one, "many entries": many} {
		in := []byte(`{"choices":[` + strings.Repeat(c+",", 99) + c + `]}`)
		x := logprobIDs{lookup: testLookup}
		out, ok := x.appendChunk(nil, in)
		if !ok {
			t.Fatalf("%s: not rewritten", name)
		}
		t.Logf("%s: %d bytes → %d (%.3f)", name, len(in), len(out), float64(len(out))/float64(len(in)))
		if len(out) >= 2*len(in) {
			t.Errorf("%s: %d bytes became %d", name, len(in), len(out))
		}
	}
}

// TestLogprobIDsAllocs: once its buffers have grown, a chunk costs no
// allocation.
func TestLogprobIDsAllocs(t *testing.T) {
	in := []byte(`{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[]}],"refusal":null},"finish_reason":null}]}`)
	x := logprobIDs{lookup: testLookup}
	x.out, _ = x.appendChunk(x.out[:0], in)
	if n := testing.AllocsPerRun(100, func() { x.out, _ = x.appendChunk(x.out[:0], in) }); n != 0 {
		t.Errorf("%v allocations a chunk", n)
	}
}

// FuzzLogprobIDs: no panic; a rewritten chunk is JSON when the input is,
// is the input's value with token_ids added and nothing else, and stays
// within the bound.
func FuzzLogprobIDs(f *testing.F) {
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[]}],"refusal":null}}]}`))
	f.Add([]byte(`{"choices":[{"logprobs":{"content":[{"bytes":[0]},{"bytes":[228,189]}],"refusal":[{"bytes":[120]}]}},{"logprobs":null}]}`))
	f.Add([]byte(`{"choices":[{"logprobs":{"content":[{"bytes":[72,105]}]},"token_ids":[1]}]}`))
	f.Add([]byte(`{"choices":[{"logprobs":{"content":[{"bytes":[72,105]}]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		x := logprobIDs{lookup: testLookup}
		out, ok := x.appendChunk(nil, in)
		if !ok {
			return
		}
		if len(out) >= 2*len(in) {
			t.Fatalf("%d bytes became %d", len(in), len(out))
		}
		if !json.Valid(in) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%s became %s, not JSON", in, out)
		}
		got := decodeJSON(t, out)
		stripIDs(got, nil)
		want := decodeJSON(t, in)
		stripIDs(want, nil) // a choice's own token_ids stay: strip both
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s changed beyond token_ids (-in +out):\n%s", in, diff)
		}
	})
}

// tokenIDs reads the IDs of an ANTH stream's TOKEN and TOKEN32 frames, in
// order.
func tokenIDs(t tb, anth []byte) []uint32 {
	t.Helper()
	var ids []uint32
	for f, err := range frame.NewReader(bytes.NewReader(anth), frame.ReaderOptions{}).All() {
		if err != nil {
			t.Fatalf("frames: %v", err)
		}
		if f.Type.IsToken() {
			if ids, err = f.Tokens(ids); err != nil {
				t.Fatal(err)
			}
		}
	}
	return ids
}

// TestDecoderSetLookup: each recording with logprobs, decoded with a
// lookup that knows every token's bytes (IDs numbered as first seen, some
// above 65,535 so TOKEN32 is met too), carries every entry's ID in TOKEN
// frames, and writes back as the recording with token_ids added to each
// choice with entries — nothing else; the same Decoder, Reset, no longer
// adds them.
func TestDecoderSetLookup(t *testing.T) {
	recs := recordings(t)
	n := 0
	for _, name := range sortedNames(recs) {
		src := recs[name]
		if !bytes.Contains(src, []byte(`"bytes"`)) {
			continue
		}
		n++
		ids := map[string]uint32{}
		var wantIDs []uint32
		want := events(t, src)
		for _, ev := range want {
			m, _ := ev.Data.(map[string]any)
			cs, _ := m["choices"].([]any)
			for _, c := range cs {
				cm := c.(map[string]any)
				lp, _ := cm["logprobs"].(map[string]any)
				var add []any
				for _, field := range []string{"content", "refusal"} {
					es, _ := lp[field].([]any)
					for _, e := range es {
						var b []byte
						for _, x := range e.(map[string]any)["bytes"].([]any) {
							v, _ := x.(json.Number).Int64()
							b = append(b, byte(v))
						}
						id, ok := ids[string(b)]
						if !ok {
							id = uint32(len(ids)) * 7919 // past 65,535 from the 9th
							ids[string(b)] = id
						}
						wantIDs = append(wantIDs, id)
						add = append(add, json.Number(fmt.Sprint(id)))
					}
				}
				if add != nil {
					cm["token_ids"] = add
				}
			}
		}
		lookup := func(b []byte) (uint32, bool) { id, ok := ids[string(b)]; return id, ok }
		for _, opts := range []DecoderOptions{{}, {RawEvents: true}} {
			d := NewDecoder(bytes.NewReader(src), opts)
			d.SetLookup(lookup)
			anth, err := io.ReadAll(d)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if diff := cmp.Diff(wantIDs, tokenIDs(t, anth)); diff != "" {
				t.Errorf("%s: TOKEN frames' IDs (-want +got):\n%s", name, diff)
			}
			back := toSSEBytes(t, anth, EncoderOptions{})
			if diff := cmp.Diff(want, events(t, back)); diff != "" {
				t.Errorf("%s: written back (-want +got):\n%s", name, diff)
			}
			t.Logf("%s: %d IDs; ANTH %d bytes, %d without them", name, len(wantIDs), len(anth), len(toANTH(t, src, opts)))
			d.Reset(bytes.NewReader(src))
			if again, _ := io.ReadAll(d); !bytes.Equal(again, toANTH(t, src, opts)) {
				t.Errorf("%s: a Reset Decoder still adds IDs", name)
			}
		}
	}
	if n < 3 {
		t.Fatalf("%d recordings with logprobs", n)
	}
}

// TestDecoderSetLookupBound: with IDs added, a Decoder still writes at
// most 2 bytes of ANTH per byte of SSE (SPEC.md §7b.6), for the streams
// that grow most: a chunk of many choices of one one-byte entry each,
// every ID of 7 digits, which travels whole (its IDs in the EVENT's
// JSON); and templated one-token
// chunks of no text, each then a TOKEN32 frame.
func TestDecoderSetLookupBound(t *testing.T) {
	one := `{"logprobs":{"content":[{"bytes":[0]}]}}`
	streams := map[string]string{
		"whole":     `data: {"choices":[` + strings.Repeat(one+",", 999) + one + "]}\n\ndata: [DONE]\n\n",
		"templated": strings.Repeat(`data: {"choices":[{"index":0,"delta":{"content":""},"logprobs":{"content":[{"bytes":[0]}]}}]}`+"\n\n", 1000) + "data: [DONE]\n\n",
	}
	for name, s := range streams {
		for _, opts := range []DecoderOptions{{}, {RawEvents: true}} {
			d := NewDecoder(strings.NewReader(s), opts)
			d.SetLookup(testLookup)
			anth, err := io.ReadAll(d)
			if err != nil {
				t.Fatal(err)
			}
			// A chunk of several choices travels whole (§7b.3), its IDs
			// in its JSON; a templated one's in TOKEN frames.
			if n := len(tokenIDs(t, anth)); name == "templated" && n != 1000 || len(anth) <= len(toANTH(t, []byte(s), opts)) {
				t.Fatalf("%s: %d IDs in TOKEN frames; %d bytes of ANTH", name, n, len(anth))
			}
			r := float64(len(anth)) / float64(len(s))
			t.Logf("%s %+v: %d bytes of SSE → %d of ANTH (%.3f)", name, opts, len(s), len(anth), r)
			if r > 2 {
				t.Errorf("%s %+v: %.3f bytes of ANTH per byte of SSE", name, opts, r)
			}
		}
	}
}

// BenchmarkLogprobIDs adds IDs to each chunk of openai-go's recording (184
// with logprobs, 198 in all): appendChunk, against what a user would
// write with encoding/json (decode the chunk, add token_ids to each
// choice, encode), and against compacting the chunk, which the Decoder
// does to every chunk anyway.
func BenchmarkLogprobIDs(b *testing.B) {
	var chunks [][]byte
	total := 0
	sc := sse.NewScanner(bytes.NewReader(recordings(b)["openai-go_streamaccumulator.sse"]), 0)
	for {
		_, data, err := sc.Next()
		if err != nil {
			break
		}
		if string(data) != doneData {
			chunks = append(chunks, bytes.Clone(data))
			total += len(data)
		}
	}
	lookup := func(b []byte) (uint32, bool) { return uint32(len(b)), true }
	b.Run("appendChunk", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		x := logprobIDs{lookup: lookup}
		for b.Loop() {
			for _, c := range chunks {
				x.out, _ = x.appendChunk(x.out[:0], c)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(chunks)), "ns/chunk")
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range chunks {
				var m map[string]any
				json.Unmarshal(c, &m)
				cs, _ := m["choices"].([]any)
				for _, ch := range cs {
					cm := ch.(map[string]any)
					lp, _ := cm["logprobs"].(map[string]any)
					es, _ := lp["content"].([]any)
					var ids []uint32
					for _, e := range es {
						bs, _ := e.(map[string]any)["bytes"].([]any)
						tok := make([]byte, len(bs))
						for i, x := range bs {
							tok[i] = byte(x.(float64))
						}
						id, _ := lookup(tok)
						ids = append(ids, id)
					}
					if ids != nil {
						cm["token_ids"] = ids
					}
				}
				json.Marshal(m)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(chunks)), "ns/chunk")
	})
	b.Run("compact", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			for _, c := range chunks {
				out, _ = jsonlex.AppendCompact(out[:0], c)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(chunks)), "ns/chunk")
	})
}
