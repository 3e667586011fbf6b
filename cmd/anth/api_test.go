package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
)

// recording is a stream of testdata/sse, testdata/chat or testdata/chat-more and its API.
type recording struct {
	name string
	api  *streamAPI
	sse  []byte
}

// recordings returns every recording of both APIs, by API and name.
func recordings(t *testing.T) []recording {
	t.Helper()
	var recs []recording
	for _, set := range []struct {
		api   *streamAPI
		files map[string][]byte
	}{{apiMessages, testdata.SSEAll(t)}, {apiChat, testdata.ChatAll(t)}} {
		var names []string
		for n := range set.files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			recs = append(recs, recording{n, set.api, set.files[n]})
		}
	}
	return recs
}

// bridged returns the ANTH of an SSE recording, through its API's bridge.
func bridged(t *testing.T, rec recording) []byte {
	t.Helper()
	anth, err := io.ReadAll(rec.api.NewDecoder(bytes.NewReader(rec.sse), false))
	if err != nil {
		t.Fatalf("%s: %v", rec.name, err)
	}
	return anth
}

// proxied returns the body anthhttp.Proxy sends a client that asks for ANTH
// in anth-deflate, the upstream sending the recording an event a Read (so a
// record per event, as stats counts them).
func proxied(t *testing.T, rec recording) []byte {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", rec.api.Path(), nil)
	r.Header.Set("Accept", anthclient.Accept)
	r.Header.Set("Accept-Encoding", anthhttp.AcceptEncoding)
	if err := anthhttp.Proxy(w, r, &testdata.EventReader{Rest: rec.sse}, rec.api.API, anthhttp.ProxyOptions{}); err != nil {
		t.Fatalf("%s: Proxy: %v", rec.name, err)
	}
	if ce := w.Header().Get("Content-Encoding"); ce != "anth-deflate" {
		t.Fatalf("%s: Proxy sent Content-Encoding %q", rec.name, ce)
	}
	return w.Body.Bytes()
}

// other is the API that is not a.
func other(a *streamAPI) *streamAPI {
	if a == apiChat {
		return apiMessages
	}
	return apiChat
}

// guessedANTH are the recordings whose ANTH has no EVENT before its first
// must-understand frame, so that nothing tells its API: read as Messages,
// guessed.
var guessedANTH = map[string]bool{
	"layer0-error-event.sse": true, // an error event alone: one ERROR frame
}

// TestDetectAPI: every recording of both APIs, as SSE, as the ANTH its
// bridge makes and as the anth-deflate anthhttp.Proxy sends, is read as its
// API's without --api; with its API's --api too; with the other's, it is
// an error naming both.
func TestDetectAPI(t *testing.T) {
	for _, rec := range recordings(t) {
		for _, form := range []struct {
			kind string
			in   []byte
		}{{kindSSE, rec.sse}, {kindANTH, bridged(t, rec)}, {kindDeflate, proxied(t, rec)}} {
			what := fmt.Sprintf("%s as %s", rec.name, form.kind)
			src, err := openANTH(bytes.NewReader(form.in), nil)
			wantGuess := form.kind == kindANTH && guessedANTH[rec.name]
			if err != nil || src.kind != form.kind || src.api != rec.api || src.guessed != wantGuess {
				t.Errorf("%s: read as %s of %v (guessed %v), %v; want %s of %s", what, src.kind, apiName(src.api), src.guessed, err, form.kind, rec.api.name)
				continue
			}
			if src, err := openANTH(bytes.NewReader(form.in), rec.api); err != nil || src.api != rec.api || src.guessed {
				t.Errorf("%s with --api %s: %v", what, rec.api.name, err)
			}
			_, err = openANTH(bytes.NewReader(form.in), other(rec.api))
			var m *apiMismatch
			if wantGuess {
				if err != nil {
					t.Errorf("%s with --api %s, which nothing contradicts: %v", what, other(rec.api).name, err)
				}
			} else if !errors.As(err, &m) || !strings.Contains(err.Error(), "--api "+rec.api.name) || !strings.Contains(err.Error(), "--api "+other(rec.api).name) {
				t.Errorf("%s with --api %s: %v; want an error naming both", what, other(rec.api).name, err)
			}
		}
	}
}

func apiName(a *streamAPI) string {
	if a == nil {
		return "none"
	}
	return a.name
}

// TestAPIMismatchCommand: a given --api that the input contradicts exits
// 1 with one line naming the file and both APIs, for every command that
// takes --api; a bad --api value is a usage error naming the flag.
func TestAPIMismatchCommand(t *testing.T) {
	recs := recordings(t)
	var msgSSE, chatSSE []byte
	for _, r := range recs {
		switch r.name {
		case "layer0-basic.sse":
			msgSSE = r.sse
		case "openai-node_stream-works-1.sse":
			chatSSE = r.sse
		}
	}
	chatCoded := proxied(t, recording{"works", apiChat, chatSSE})
	chatANTH := bridged(t, recording{"works", apiChat, chatSSE})
	for _, c := range []struct {
		args  []string
		stdin []byte
		want  string
	}{
		{[]string{"encode", "--api", "chat"}, msgSSE, "--api chat, but the input is SSE of the Anthropic Messages API (--api messages)"},
		{[]string{"encode", "--api", "messages"}, chatSSE, "--api messages, but the input is SSE of the Chat Completions API (--api chat)"},
		{[]string{"decode", "--api", "messages"}, chatCoded, "--api messages, but the input is anth-deflate of the Chat Completions API (--api chat)"},
		{[]string{"dump", "--api", "messages", "-"}, chatSSE, "--api messages, but the input is SSE"},
		{[]string{"dump", "--api", "messages"}, chatANTH, "--api messages, but the input is ANTH of the Chat Completions API (--api chat)"},
		{[]string{"encode", "--from", "raw", "--api", "messages"}, chatANTH, "--api messages, but the input is ANTH of the Chat Completions API (--api chat)"},
		{[]string{"stats", "--api", "chat", "-"}, msgSSE, "--api chat, but the input is SSE"},
	} {
		out, errOut, code := runAnth(t, c.stdin, c.args...)
		if code != 1 || len(out) != 0 || string(errOut) != "anth: stdin: "+c.want+"\n" && !strings.HasPrefix(string(errOut), "anth: stdin: "+c.want) {
			t.Errorf("anth %s: exit %d, stdout %q, stderr %q; want exit 1 with %q", strings.Join(c.args, " "), code, out, errOut, c.want)
		}
	}
	for _, cmd := range []string{"encode", "decode", "dump", "stats"} {
		if _, errOut, code := runAnth(t, nil, cmd, "--api", "openai", "-"); code != 2 || !bytes.Contains(errOut, []byte("-api")) {
			t.Errorf("anth %s --api openai: exit %d, stderr %q", cmd, code, errOut)
		}
	}
}

// TestAPIUsage: the usage of every command that takes --api documents it.
func TestAPIUsage(t *testing.T) {
	for _, cmd := range []string{"encode", "decode", "dump", "stats"} {
		out, _, code := runAnth(t, nil, cmd, "--help")
		if code != 0 || !bytes.Contains(out, []byte("[--api messages|chat]")) || !bytes.Contains(out, []byte(apiFlagUsage)) {
			t.Errorf("anth %s --help does not document --api:\n%s", cmd, out)
		}
	}
}

// chunks reads a Chat Completions stream as the SDKs do: each event's name
// and its data as a JSON value (numbers as written), obfuscation replaced
// by its length (SPEC.md §7b.4: a fresh string of the same length).
func chunks(t *testing.T, stream []byte) [][2]any {
	t.Helper()
	var out [][2]any
	for _, ev := range testdata.Events(t, stream) {
		d := json.NewDecoder(strings.NewReader(ev[1]))
		d.UseNumber()
		var v any = ev[1]
		var js any
		if d.Decode(&js) == nil {
			if m, ok := js.(map[string]any); ok {
				if o, ok := m["obfuscation"].(string); ok {
					m["obfuscation"] = len(o)
				}
			}
			v = js
		}
		out = append(out, [2]any{ev[0], v})
	}
	return out
}

// TestDecodeChatSSE: anth decode of every Chat Completions recording's ANTH,
// and of the anth-deflate Proxy sends, writes the recording's chunks (as
// JSON values, obfuscation aside), told by the input or given --api chat.
func TestDecodeChatSSE(t *testing.T) {
	for _, rec := range recordings(t) {
		if rec.api != apiChat {
			continue
		}
		want := chunks(t, rec.sse)
		for _, c := range []struct {
			form string
			in   []byte
			args []string
		}{
			{"ANTH", bridged(t, rec), []string{"decode"}},
			{"ANTH", bridged(t, rec), []string{"decode", "--api", "chat", "--to", "sse"}},
			{"anth-deflate", proxied(t, rec), []string{"decode"}},
		} {
			var out bytes.Buffer
			if err := run(c.args, bytes.NewReader(c.in), &out); err != nil {
				t.Errorf("%s as %s: anth %s: %v", rec.name, c.form, strings.Join(c.args, " "), err)
				continue
			}
			if d := cmp.Diff(want, chunks(t, out.Bytes())); d != "" {
				t.Errorf("%s as %s: anth %s differs from the recording (-want +got):\n%s", rec.name, c.form, strings.Join(c.args, " "), d)
			}
		}
	}
}

// chatText is what anth decode --to text writes of a Chat Completions
// stream, from its chunks: the text of each choice's content and refusal,
// a block each in the order they first carry text; the first block's
// whole, then each other's after a line feed (unless the text before ends
// in one).
func chatText(t *testing.T, stream []byte) string {
	t.Helper()
	type key struct {
		choice int
		field  string
	}
	var order []key
	text := map[key]string{}
	for _, ev := range testdata.Events(t, stream) {
		var c struct {
			Choices []struct {
				Index int
				Delta map[string]any
			}
		}
		json.Unmarshal([]byte(ev[1]), &c)
		for _, ch := range c.Choices {
			for _, field := range []string{"content", "refusal"} {
				s, _ := ch.Delta[field].(string)
				if s == "" {
					continue
				}
				k := key{ch.Index, field}
				if _, ok := text[k]; !ok {
					order = append(order, k)
				}
				text[k] += s
			}
		}
	}
	var b strings.Builder
	for i, k := range order {
		if i > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		b.WriteString(text[k])
	}
	return b.String()
}

// TestDecodeChatText: anth decode --to text of every Chat Completions
// recording, as SSE, ANTH and anth-deflate, writes its content and refusal
// (not reasoning, not tool arguments), a choice's whole before the next's;
// a stream that failed is an error naming the error type as the Chat
// Completions API does, after its text.
func TestDecodeChatText(t *testing.T) {
	failed := map[string]string{
		"layer0-openai-error.sse": "the response failed: 500 server_error: ",
		"layer0-vllm-error.sse":   "the response failed: 400 invalid_request_error: ",
		// A named error event (Groq) and an error in a chunk with choices
		// (OpenRouter) end their streams too (SPEC.md §7b.3).
		"chat-more/pydantic-ai_groq_tool_use_failed_error_streaming.sse": "the response failed: 400 invalid_request_error: Tool call validation failed",
		"chat-more/pydantic-ai_openrouter_stream_error.sse":              "the response failed: 400 invalid_request_error: Token limit reached",
	}
	for _, rec := range recordings(t) {
		if rec.api != apiChat {
			continue
		}
		want := chatText(t, rec.sse)
		for _, in := range [][]byte{rec.sse, bridged(t, rec), proxied(t, rec)} {
			var out bytes.Buffer
			err := run([]string{"decode", "--to", "text"}, bytes.NewReader(in), &out)
			if out.String() != want || failed[rec.name] == "" && err != nil || failed[rec.name] != "" && (err == nil || !strings.Contains(err.Error(), failed[rec.name])) {
				t.Errorf("%s: text %q, %v; want %q", rec.name, out.String(), err, want)
			}
		}
	}
}

// TestChatJSONL: anth decode --to jsonl of a Chat Completions stream
// inflates every EVENT with the chat dictionary (its data a JSON value,
// not a string) and names its DONE's reason as a finish_reason.
func TestChatJSONL(t *testing.T) {
	for _, rec := range recordings(t) {
		if rec.api != apiChat {
			continue
		}
		var out bytes.Buffer
		run([]string{"decode", "--to", "jsonl"}, bytes.NewReader(bridged(t, rec)), &out)
		events, done := 0, ""
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%s: %v: %s", rec.name, err, line)
			}
			switch m["type"] {
			case "EVENT":
				events++
				if _, isString := m["data"].(string); isString && m["more"] == false {
					t.Errorf("%s: EVENT data not inflated: %s", rec.name, line)
				}
			case "DONE":
				done, _ = m["finish_reason"].(string)
				if _, ok := m["stop_reason"]; ok {
					t.Errorf("%s: DONE with a stop_reason: %s", rec.name, line)
				}
			}
		}
		var last string // the recording's last finish_reason of choice 0 before its end
		for _, ev := range testdata.Events(t, rec.sse) {
			var c struct {
				Choices []struct {
					Index  int
					Finish *string `json:"finish_reason"`
				}
				Error map[string]any
			}
			json.Unmarshal([]byte(ev[1]), &c)
			if ev[0] == "error" || len(c.Error) > 0 {
				last = "" // it ends in its error, with no DONE (SPEC.md §7b.3)
				break
			}
			for _, ch := range c.Choices {
				if ch.Index == 0 && ch.Finish != nil {
					last = *ch.Finish
				}
			}
		}
		if _, known := map[string]bool{"stop": true, "length": true, "tool_calls": true, "content_filter": true}[last]; known && done != last {
			t.Errorf("%s: DONE finish_reason %q, the stream's %q", rec.name, done, last)
		}
		if events == 0 {
			t.Errorf("%s: no EVENT frames", rec.name)
		}
	}
}

// TestChatStats: anth stats of every Chat Completions recording gives its
// size, its ANTH's and the anth-deflate anthhttp.Proxy sends with chat.API
// (the chat dictionary, a record per event), and says which API it read.
func TestChatStats(t *testing.T) {
	for _, rec := range recordings(t) {
		if rec.api != apiChat {
			continue
		}
		var out bytes.Buffer
		if err := run([]string{"stats", "-"}, bytes.NewReader(rec.sse), &out); err != nil {
			t.Errorf("%s: %v", rec.name, err)
			continue
		}
		var sseN, anthN, coded int
		var ratio float64
		s := out.String()
		fmt.Sscanf(s, "SSE %d bytes\nANTH %d bytes\n", &sseN, &anthN)
		_, err := fmt.Sscanf(s[strings.Index(s, "anth-deflate"):], "anth-deflate %d bytes, %fx the SSE", &coded, &ratio)
		if err != nil || sseN != len(rec.sse) || anthN != len(bridged(t, rec)) || coded != len(proxied(t, rec)) || !strings.HasSuffix(s, "a stream of the Chat Completions API (--api chat)\n") {
			t.Errorf("%s: %v; want SSE %d, ANTH %d, anth-deflate %d bytes:\n%s", rec.name, err, len(rec.sse), len(bridged(t, rec)), len(proxied(t, rec)), s)
		}
	}
}

// TestChatDump: anth dump of a Chat Completions stream names its ERROR's
// type and DONE's reason as that API does, inflates its EVENTs with the
// chat dictionary, and says what it was given when it is not ANTH.
func TestChatDump(t *testing.T) {
	for _, rec := range recordings(t) {
		if rec.api != apiChat {
			continue
		}
		var out bytes.Buffer
		run([]string{"dump"}, bytes.NewReader(rec.sse), &out)
		s := out.String()
		if !strings.HasPrefix(s, "# SSE input of the Chat Completions API: ") {
			t.Errorf("%s: dump starts %q", rec.name, s[:min(len(s), 80)])
		}
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, " EVENT ") && !strings.Contains(line, "(continues)") && !strings.Contains(line, " {") && !strings.Contains(line, " null") && !strings.Contains(line, "logprob") {
				t.Errorf("%s: EVENT not inflated: %s", rec.name, line)
			}
		}
	}
	// 500 is server_error in Chat Completions, api_error in Messages.
	errs := frame.AppendError(frame.AppendMagic(nil), 500, "oops")
	var out bytes.Buffer
	run([]string{"dump", "--api", "chat"}, bytes.NewReader(errs), &out)
	if !strings.Contains(out.String(), `500 server_error "oops"`) {
		t.Errorf("dump --api chat of an ERROR: %q", out.String())
	}
	out.Reset()
	run([]string{"decode", "--api", "chat", "--to", "jsonl"}, bytes.NewReader(errs), &out)
	if !strings.Contains(out.String(), `"error_type":"server_error"`) {
		t.Errorf("decode --api chat --to jsonl of an ERROR: %q", out.String())
	}
	out.Reset()
	run([]string{"dump", "--api", "chat"}, bytes.NewReader(frame.AppendDone(frame.AppendMagic(nil), frame.StopToolUse, "")), &out)
	if !strings.Contains(out.String(), "DONE              1  tool_calls") {
		t.Errorf("dump --api chat of a DONE: %q", out.String())
	}
}

// TestChatEncode: anth encode of every Chat Completions recording, told by
// the stream, writes the ANTH chat.Decoder makes of it; a data:-only stream
// that does not say its API is read as Messages, which the error names.
func TestChatEncode(t *testing.T) {
	for _, rec := range recordings(t) {
		var out bytes.Buffer
		if err := run([]string{"encode"}, bytes.NewReader(rec.sse), &out); err != nil || !bytes.Equal(out.Bytes(), bridged(t, rec)) {
			t.Errorf("%s: anth encode: %v, %d bytes; want the %s bridge's %d", rec.name, err, out.Len(), rec.api.name, len(bridged(t, rec)))
		}
	}
	err := run([]string{"encode"}, strings.NewReader("data: {\"x\":1}\n\n"), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "--api chat") {
		t.Errorf("a stream of no told API: %v", err)
	}
	if err := run([]string{"encode", "--api", "chat"}, strings.NewReader("data: {\"x\":1}\n\ndata: [DONE]\n\n"), &bytes.Buffer{}); err != nil {
		t.Errorf("--api chat: %v", err)
	}
}

// TestSniff: how the first event of an SSE stream, or the EVENT frames
// before an ANTH stream's first must-understand frame, tell its API, and
// when nothing tells (Messages, guessed).
func TestSniff(t *testing.T) {
	anth := func(frames ...[]byte) []byte {
		return bytes.Join(append([][]byte{frame.AppendMagic(nil)}, frames...), nil)
	}
	event := func(name, data string) []byte {
		return frame.AppendEvent(nil, frame.EventJSON, []byte(name), []byte(data))
	}
	text := frame.AppendText(nil, 0, []byte("hi"))
	done := frame.AppendDone(nil, frame.StopEndTurn, "")
	for _, c := range []struct {
		name    string
		in      []byte
		api     *streamAPI
		guessed bool
	}{
		{"chunk", []byte(`data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}` + "\n\n"), apiChat, false},
		{"chunk of no object", []byte("data: {\"choices\":[]}\n\n"), apiChat, false},
		{"object alone", []byte(`data: {"object":"chat.completion.chunk"}` + "\n\n"), apiChat, false},
		{"[DONE] first", []byte("data: [DONE]\n\n"), apiChat, false},
		{"error chunk", []byte(`data: {"error":{"message":"Overloaded","type":"server_error","param":null,"code":null}}` + "\n\n"), apiChat, false},
		{"comment first", []byte(": keep-alive\n\ndata: {\"choices\":[]}\n\n"), apiChat, false},
		{"CRLF", []byte("data: {\"choices\":[]}\r\n\r\n"), apiChat, false},
		{"data lines", []byte("data: {\"choices\":\ndata: []}\n\n"), apiChat, false},
		{"named event", []byte("event: ping\ndata: {}\n\n"), apiMessages, false},
		{"named chunk", []byte("event: chunk\ndata: {\"choices\":[]}\n\n"), apiChat, false},
		{"named error", []byte(`event: error` + "\n" + `data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n\n"), apiMessages, false},
		{"named, cut", []byte("event: message_start\ndata: {\"type\""), apiMessages, false},
		{"typed data", []byte(`data: {"type":"message_start","message":{}}` + "\n\n"), apiMessages, false},
		{"untold data", []byte("data: {\"x\":1}\n\n"), apiMessages, true},
		{"cut chunk", []byte("data: {\"choices\":[]}"), apiMessages, true},
		{"ANTH chunk", anth(event("chunk", "{}"), done), apiChat, false},
		{"ANTH content", anth(event("content", "{}"), text, done), apiChat, false},
		{"ANTH named SSE event", anth(event("event:x", "{}"), done), apiChat, false},
		{"ANTH padded", anth(frame.AppendPad(nil, 3), event("usage", "{}"), done), apiChat, false},
		{"ANTH error, then chunk", anth(event("error", "{}"), event("chunk", "{}"), done), apiChat, false},
		{"ANTH error alone", anth(event("error", "{}"), frame.AppendError(nil, 500, "x")), apiMessages, true},
		{"ANTH message_start", anth(event("message_start", "{}"), text, done), apiMessages, false},
		{"ANTH text first", anth(text, event("chunk", "{}"), done), apiMessages, true},
		{"ANTH no frames", anth(), apiMessages, true},
		{"ANTH cut EVENT", anth(event("chunk", "{}"))[:9], apiMessages, true},
	} {
		src, err := openANTH(bytes.NewReader(c.in), nil)
		if err != nil || src.api != c.api || src.guessed != c.guessed {
			t.Errorf("%s: %s (guessed %v), %v; want %s (guessed %v)", c.name, apiName(src.api), src.guessed, err, c.api.name, c.guessed)
		}
	}
}

// TestNativeANTH: ANTH from a server that never saw SSE (no EVENT frames)
// says no API: decode writes Messages events, or with --api chat the
// chunks chat.Encoder makes (model "unknown", a finish chunk, [DONE]);
// where the guess does not matter (--to text of a cut stream), the error
// does not mention --api.
func TestNativeANTH(t *testing.T) {
	resp := frame.AppendDone(frame.AppendText(frame.AppendMagic(nil), 0, []byte("hi")), frame.StopMaxTokens, "")
	var msg, chunk bytes.Buffer
	if err := run([]string{"decode"}, bytes.NewReader(resp), &msg); err != nil || !strings.Contains(msg.String(), "event: message_stop") {
		t.Errorf("decode: %v\n%s", err, msg.String())
	}
	if err := run([]string{"decode", "--api", "chat"}, bytes.NewReader(resp), &chunk); err != nil {
		t.Fatalf("decode --api chat: %v", err)
	}
	evs := chunks(t, chunk.Bytes())
	if len(evs) < 3 || evs[len(evs)-1][1] != "[DONE]" || !strings.Contains(chunk.String(), `"model":"unknown"`) ||
		!strings.Contains(chunk.String(), `"content":"hi"`) || !strings.Contains(chunk.String(), `"finish_reason":"length"`) {
		t.Errorf("decode --api chat:\n%s", chunk.String())
	}
	cut := resp[:len(resp)-1]
	err := run([]string{"decode", "--to", "text"}, bytes.NewReader(cut), &bytes.Buffer{})
	if err == nil || strings.Contains(err.Error(), "--api") {
		t.Errorf("decode --to text of cut ANTH: %v", err)
	}
	err = run([]string{"decode"}, bytes.NewReader(cut), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "--api chat") {
		t.Errorf("decode of cut ANTH, read as Messages: %v", err)
	}
}

// TestChatErrorBody: the Chat Completions API's error body, what it sends
// instead of a stream, is reported with its type and message.
func TestChatErrorBody(t *testing.T) {
	body := `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	err := run([]string{"decode", "--to", "text"}, strings.NewReader(body), &bytes.Buffer{})
	var api *apiErrorBody
	if !errors.As(err, &api) || api.Type != "invalid_request_error" || api.Message != "Incorrect API key provided" {
		t.Errorf("%v", err)
	}
}

// TestSniffByteByByte: telling the API of a stream that arrives a byte a
// Read scans each byte once: a first event of 60 KB, or 60,000 blank
// lines, take milliseconds (scanning the buffer again at each Read took
// seconds: 60,000 scans of up to 60 KB).
func TestSniffByteByByte(t *testing.T) {
	for _, in := range [][]byte{
		append(append([]byte("data: "), bytes.Repeat([]byte("a"), 60000)...), "\n\n"...),
		append([]byte(":"), bytes.Repeat([]byte("\n"), 60000)...),
	} {
		start := time.Now()
		_, err := openANTH(iotest.OneByteReader(bytes.NewReader(in)), nil)
		if d := time.Since(start); err != nil || d > time.Second {
			t.Errorf("%d bytes a byte a Read: %v, %v", len(in), d, err)
		}
	}
}

// TestChatInputErrors: a bad Chat Completions stream exits 1 with one line
// naming the file and the offset in the SSE, without the package's prefix.
func TestChatInputErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		in   string
		want string
	}{
		{[]string{"encode"}, "data: {\"choices\":[]}\n\ndata: {nope\n\n", "anth: stdin: offset 22: malformed: chunk is not JSON\n"},
		{[]string{"decode", "--to", "text"}, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n", "anth: stdin: offset 58: unexpected EOF: stream ends before data: [DONE]\n"},
	} {
		_, errOut, code := runAnth(t, []byte(c.in), c.args...)
		if code != 1 || string(errOut) != c.want {
			t.Errorf("anth %s: exit %d, stderr %q; want %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}
