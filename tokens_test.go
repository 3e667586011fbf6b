package anth_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/internal/textgen"
	"github.com/layer0/anth/vocab"
)

var updateTokens = flag.Bool("update-tokens", false, "write testdata/tokens' derived texts (recordings.txt, long.*.txt) from their sources")

// longDeltas is how many deltas compare's generated long responses have
// (compare/workload.go): the long.*.txt texts are those responses' text.
const longDeltas = 3000

// derivedTexts are the texts of testdata/tokens that this repository's
// own data makes (testdata/tokens/README.md): the text of every recording
// (testdata/sse's text deltas, then testdata/chat's content deltas, each
// folder in the order of the file names), and compare's long generated
// responses in English, Chinese and code.
func derivedTexts(t testing.TB) map[string][]byte {
	t.Helper()
	var rec []byte
	for _, set := range []map[string][]byte{testdata.SSE(t), testdata.Chat(t)} {
		for _, name := range slices.Sorted(maps.Keys(set)) {
			rec = append(rec, recordingText(t, name, set[name])...)
		}
	}
	texts := map[string][]byte{"recordings": rec}
	for _, kind := range textgen.Kinds {
		texts["long."+string(kind)] = []byte(strings.Join(textgen.Response(kind, longDeltas, 1), ""))
	}
	return texts
}

// recordingText returns the text a recording streams: the Messages API's
// text_delta texts, or Chat Completions' delta.content of every choice, in
// the order they come.
func recordingText(t testing.TB, name string, sse []byte) []byte {
	var text []byte
	for line := range bytes.Lines(sse) {
		data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:"))
		if !ok {
			continue
		}
		data = bytes.TrimPrefix(data, []byte(" "))
		if !json.Valid(data) {
			continue // [DONE], and the recordings of broken streams
		}
		var ev struct {
			Delta *struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"delta"`
			Choices []struct {
				Delta struct {
					Content *string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			continue // a JSON value of another shape: not a text event
		}
		if ev.Delta != nil && ev.Delta.Type == "text_delta" {
			text = append(text, ev.Delta.Text...)
		}
		for _, c := range ev.Choices {
			if c.Delta.Content != nil {
				text = append(text, *c.Delta.Content...)
			}
		}
	}
	return text
}

// TestTokenTexts checks that the derived texts of testdata/tokens are what
// their sources give today, so that the IDs tiktoken made of them
// (tokenize.js) stand for this repository's recordings and compare's long
// responses. Run with -update-tokens after a source changes, then
// tokenize.js again.
func TestTokenTexts(t *testing.T) {
	for name, want := range derivedTexts(t) {
		path := "testdata/tokens/" + name + ".txt"
		if *updateTokens {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, its source gives %d: run go test -run TestTokenTexts -update-tokens, then testdata/tokens/tokenize.js", path, len(got), len(want))
		}
	}
}

// TestTokenIDs checks that every .ids file of testdata/tokens is its text
// tokenized: our decoder gives the text back byte for byte (the exactness
// the benchmarks' byte counts rest on).
func TestTokenIDs(t *testing.T) {
	vs := map[string]*vocab.Vocabulary{
		"cl100k_base": loadTiktoken(t, "cl100k_base", vocab.CL100KBaseSpecials()),
		"o200k_base":  loadTiktoken(t, "o200k_base", vocab.O200KBaseSpecials()),
	}
	for _, text := range tokenTextNames {
		want, err := os.ReadFile("testdata/tokens/" + text + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range vs {
			ids := readIDs(t, "testdata/tokens/"+text+"."+name+".ids")
			var got []byte
			for i, id := range ids {
				b, ok := v.Bytes(id)
				if !ok {
					t.Fatalf("%s/%s: ID %d at %d is not an ordinary token", text, name, id, i)
				}
				got = append(got, b...)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s: %d IDs give %d bytes of text, the file has %d", text, name, len(ids), len(got), len(want))
			}
		}
	}
}
