package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/layer0/anth/internal/chatsse"
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
func workloads(recordings, chatRecordings map[string][]byte) []workload {
	recs, compact := sortedStreams(recordings)
	ws := []workload{newWorkload("recordings", messagesAPI, compact)}
	for _, kind := range textgen.Kinds {
		ws = append(ws, newWorkload(string(kind), messagesAPI, [][]byte{generated(kind)}))
	}
	_, chatCompact := sortedStreams(chatRecordings)
	ws = append(ws, newWorkload(chatPrefix+"recordings", chatAPI, chatCompact))
	for _, kind := range textgen.Kinds {
		ws = append(ws, newWorkload(chatPrefix+string(kind), chatAPI, [][]byte{generatedChat(kind, false)}))
	}
	ws = append(ws, newWorkload("recordings"+paddedSuffix, messagesAPI, recs))
	for _, kind := range textgen.Kinds {
		ws = append(ws, newWorkload(string(kind)+paddedSuffix, messagesAPI, [][]byte{padSSE(generated(kind), rand.New(rand.NewPCG(7, 7)))}))
	}
	for _, kind := range textgen.Kinds {
		ws = append(ws, newWorkload(chatPrefix+string(kind)+obfuscatedSuffix, chatAPI, [][]byte{generatedChat(kind, true)}))
	}
	return ws
}

// sortedStreams returns the recordings in the order of their names, as
// they are and compacted.
func sortedStreams(recordings map[string][]byte) (recs, compact [][]byte) {
	names := make([]string, 0, len(recordings))
	for name := range recordings {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		recs = append(recs, recordings[name])
		compact = append(compact, compactSSE(recordings[name]))
	}
	return recs, compact
}

// chatPrefix names the workloads of the OpenAI Chat Completions API.
const chatPrefix = "openai "

// obfuscatedSuffix names a Chat Completions workload as the OpenAI API
// sends it, with an `obfuscation` string of random length in every chunk
// against length side channels (ANTH carries its length as PAD).
const obfuscatedSuffix = ", obfuscated as sent"

// generatedChat is a long text response of the given kind as the OpenAI
// API streams it (chatsse), with its obfuscation strings if obfuscated.
func generatedChat(kind textgen.Kind, obfuscated bool) []byte {
	deltas := textgen.Response(kind, longDeltas, 1)
	r := chatsse.Response{ID: chatsse.ID(1), Model: "gpt-4o-2024-08-06", SystemFingerprint: "fp_f5bdcc3276", ServiceTier: "default", Created: 1764633600,
		PromptTokens: 1200, CompletionTokens: 2 * longDeltas, Obfuscation: obfuscated, Usage: true}
	return chatsse.AppendResponse(nil, r, deltas, 7)
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
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok && !bytes.Equal(bytes.TrimSpace(d), []byte("[DONE]")) {
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
