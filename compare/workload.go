package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/layer0/anth/internal/ssejson"
	"github.com/layer0/anth/internal/textgen"
)

// A workload is one or more Messages API streams as an upstream sends
// them.
type workload struct {
	id      string // its name in benchmarks
	name    string
	api     *api
	streams [][]byte
	deltas  int    // content_block_delta events, over all streams
	text    string // the text of every text_delta, in order, over all streams
}

// longDeltas is how many deltas a generated response has.
const longDeltas = 3000

// workloads returns the recordings and long generated responses in English,
// Chinese and code, each first like for like — the SSE compacted, without
// the API's random padding, which ANTH does not carry either — and then as
// the API sends it, padded (the name ending in paddedSuffix): against that,
// ANTH looks better than it is by the padding's bytes.
func workloads(recordings map[string][]byte) []workload {
	names := make([]string, 0, len(recordings))
	for name := range recordings {
		names = append(names, name)
	}
	sort.Strings(names)
	var recs, compact [][]byte
	for _, name := range names {
		recs = append(recs, recordings[name])
		compact = append(compact, compactSSE(recordings[name]))
	}
	ws := []workload{newWorkload("recordings", messagesAPI, compact)}
	for _, kind := range textgen.Kinds {
		ws = append(ws, newWorkload(string(kind), messagesAPI, [][]byte{generated(kind)}))
	}
	ws = append(ws, newWorkload("recordings"+paddedSuffix, messagesAPI, recs))
	for _, kind := range textgen.Kinds {
		ws = append(ws, newWorkload(string(kind)+paddedSuffix, messagesAPI, [][]byte{padSSE(generated(kind), rand.New(rand.NewPCG(7, 7)))}))
	}
	return ws
}

// paddedSuffix names a workload of SSE as the API sends it, with random
// spaces against length side channels that ANTH leaves out (it has PAD
// frames for that).
const paddedSuffix = ", SSE padded as sent"

// generated is a long text response of the given kind as the API streams
// it, without its padding.
func generated(kind textgen.Kind) []byte {
	deltas := textgen.Response(kind, longDeltas, 1)
	r := ssejson.Response{ID: "msg_01CompareLongResponse000", Model: "claude-sonnet-4-5-20250929", InputTokens: 1200, OutputTokens: 2 * longDeltas, StopReason: "end_turn"}
	return ssejson.AppendResponse(nil, r, [][]string{deltas})
}

func newWorkload(name string, a *api, streams [][]byte) workload {
	w := workload{id: strings.ReplaceAll(name, ", ", "-"), name: name, api: a, streams: streams}
	var text strings.Builder
	for _, s := range streams {
		n, t := a.count(s)
		w.deltas += n
		text.WriteString(t)
	}
	w.text = text.String()
	return w
}

// events splits an SSE stream into its events, each with the blank line
// that ends it.
func events(s []byte) [][]byte {
	var out [][]byte
	for len(s) > 0 {
		i := bytes.Index(s, []byte("\n\n"))
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+2])
		s = s[i+2:]
	}
	return out
}

// eventData returns the data of an event of one data line.
func eventData(ev []byte) []byte {
	for line := range bytes.Lines(ev) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			return bytes.TrimSpace(d)
		}
	}
	return nil
}

// padSSE pads every event's JSON as the API does against token-length side
// channels: 0 to 15 random spaces before its last closing brace.
func padSSE(s []byte, rng *rand.Rand) []byte {
	var out []byte
	for line := range bytes.Lines(s) {
		if bytes.HasPrefix(line, []byte("data: {")) {
			end := bytes.LastIndexByte(line, '}')
			out = append(out, line[:end]...)
			out = append(out, bytes.Repeat([]byte(" "), rng.IntN(16))...)
			out = append(out, line[end:]...)
			continue
		}
		out = append(out, line...)
	}
	return out
}

// compactSSE removes the whitespace from every event's JSON: the stream
// without the API's padding.
func compactSSE(s []byte) []byte {
	var out []byte
	for line := range bytes.Lines(s) {
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			var c bytes.Buffer
			if err := json.Compact(&c, bytes.TrimSpace(d)); err != nil {
				panic(fmt.Sprintf("a recording's data is not JSON: %v", err))
			}
			out = append(out, "data: "...)
			out = append(out, c.Bytes()...)
			out = append(out, '\n')
			continue
		}
		out = append(out, line...)
	}
	return out
}
