package chat

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/messages"
)

// TestDictionaryPays measures EventDictionary against the Messages
// dictionary and none on the EVENT data of the recordings (SPEC.md §7b.6),
// and fails if it does not code them smaller than both.
//
// Until the Decoder exists it approximates the EVENT data by emptying the
// holes of §7b.2 with regular expressions.
func TestDictionaryPays(t *testing.T) {
	files, _ := filepath.Glob("../testdata/chat/*.sse")
	sort.Strings(files)
	holes := regexp.MustCompile(`"(content|refusal|arguments|reasoning_content|reasoning|obfuscation)":"(\\.|[^"\\])*"`)
	toks := regexp.MustCompile(`"token_ids":\[[0-9,]*\]`)
	lps := regexp.MustCompile(`"(content|refusal)":\[\{"token":"(\\.|[^"\\])*","logprob":[-0-9.e+E]*,"bytes":\[[0-9,]*\],"top_logprobs":\[\]\}\]`)
	dicts := map[string]*deflate.Dictionary{"chat": eventDict(), "messages": deflate.NewDictionary([]byte(messages.EventDictionary)), "none": deflate.NewDictionary(nil)}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		var evs [][]byte
		var last []byte
		for _, line := range bytes.Split(b, []byte("\n")) {
			d, ok := bytes.CutPrefix(line, []byte("data: "))
			if !ok || string(d) == "[DONE]" {
				continue
			}
			js, _ := jsonlex.AppendCompact(nil, d)
			tpl := toks.ReplaceAll(holes.ReplaceAll(lps.ReplaceAll(js, []byte(`"$1":[]`)), []byte(`"$1":""`)), []byte(`"token_ids":[]`))
			if !bytes.Equal(tpl, last) {
				evs = append(evs, tpl)
			}
			last = tpl
		}
		raw := 0
		sizes := map[string]int{}
		for _, e := range evs {
			raw += len(e)
			for n, d := range dicts {
				sizes[n] += len(deflate.AppendBlock(nil, e, d))
			}
		}
		if sizes["chat"] >= sizes["messages"] || sizes["chat"] >= sizes["none"] {
			t.Errorf("%s: the chat dictionary does not pay: %v", filepath.Base(f), sizes)
		}
		t.Logf("%-70s events %3d raw %6d chat %5d messages %5d none %5d", filepath.Base(f), len(evs), raw, sizes["chat"], sizes["messages"], sizes["none"])
	}
}
