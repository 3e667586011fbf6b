package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
)

// sseEvent is one event of a text response, as the API sends it.
func sseEvent(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

// textResponseSSE is a response whose text is "Hello, world": its events
// up to the first delta, and the rest.
func textResponseSSE() (first, rest string) {
	first = sseEvent("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","usage":{"input_tokens":3,"output_tokens":1}}}`) +
		sseEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`)
	rest = sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", world"}}`) +
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		sseEvent("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}`) +
		sseEvent("message_stop", `{"type":"message_stop"}`)
	return first, rest
}

// textUpstream serves textResponseSSE whole to every request, as the
// Messages API streams it; it is closed when the test ends.
func textUpstream(t *testing.T) *httptest.Server {
	first, rest := textResponseSSE()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, first+rest)
	}))
	t.Cleanup(upstream.Close)
	return upstream
}

func toANTH(t *testing.T, s string) []byte {
	t.Helper()
	b, err := io.ReadAll(messages.NewDecoder(strings.NewReader(s), messages.DecoderOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStreams: anth decode and anth dump write each frame to a pipe as it
// arrives. The input's writer holds the rest of the response back until the
// first text has come out of anth's standard output, so a binary that
// buffers until its input ends never gets the rest and the test times out
// (before: all output came at exit).
func TestStreams(t *testing.T) {
	first, rest := textResponseSSE()
	full := toANTH(t, first+rest)
	// The ANTH of the first events, which full starts with.
	head, _ := io.ReadAll(messages.NewDecoder(strings.NewReader(first), messages.DecoderOptions{}))
	cut := len(head)
	if cut == 0 || !bytes.HasPrefix(full, head) || !bytes.Contains(head, []byte("Hello")) {
		t.Fatalf("the first events' ANTH (%d bytes) is not a prefix of the response's with the first text", cut)
	}
	// A Chat Completions stream: deciding its API holds nothing back.
	chatFirst := `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n" +
		`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hello"}}]}` + "\n\n"
	chatRest := `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":", world"}}]}` + "\n\n" +
		`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	chatHead, _ := io.ReadAll(chat.NewDecoder(strings.NewReader(chatFirst), chat.DecoderOptions{}))
	chatFull, _ := io.ReadAll(chat.NewDecoder(strings.NewReader(chatFirst+chatRest), chat.DecoderOptions{}))
	if len(chatHead) == 0 || !bytes.HasPrefix(chatFull, chatHead) {
		t.Fatalf("the first chunks' ANTH (%d bytes) is not a prefix of the stream's", len(chatHead))
	}
	chatCut := len(chatHead)
	for _, c := range []struct {
		args       []string
		in1, in2   []byte
		firstText  string
		wantSuffix string
	}{
		{[]string{"decode", "--to", "text"}, chatFull[:chatCut], chatFull[chatCut:], "Hello", "Hello, world"},
		{[]string{"decode"}, chatFull[:chatCut], chatFull[chatCut:], `"Hello"`, "data: [DONE]\n\n"},
		{[]string{"decode", "--to", "text"}, []byte(chatFirst), []byte(chatRest), "Hello", "Hello, world"},
		{[]string{"encode"}, []byte(chatFirst), []byte(chatRest), "Hello", ""},
		{[]string{"dump"}, []byte(chatFirst), []byte(chatRest), `"Hello"`, "stop\n"},
		{[]string{"decode", "--to", "text"}, full[:cut], full[cut:], "Hello", "Hello, world"},
		{[]string{"decode"}, full[:cut], full[cut:], `"Hello"`, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
		{[]string{"decode", "--to", "jsonl"}, full[:cut], full[cut:], `"Hello"`, "\"type\":\"DONE\"}\n"},
		{[]string{"dump"}, full[:cut], full[cut:], `"Hello"`, "end_turn\n"},
		{[]string{"decode", "--to", "text"}, []byte(first), []byte(rest), "Hello", "Hello, world"}, // SSE input, through the bridge
		{[]string{"encode"}, []byte(first), []byte(rest), "Hello", ""},
	} {
		cmd := exec.Command(anthBin, c.args...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A binary that holds its output never shows the first text: kill it
		// rather than hang (the test fails on the read, not on the time).
		kill := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
		if _, err := stdin.Write(c.in1); err != nil {
			t.Fatal(err)
		}
		// Read until the first text shows: only then is the rest sent.
		var got []byte
		buf := make([]byte, 4096)
		for !bytes.Contains(got, []byte(c.firstText)) {
			n, err := stdout.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				t.Fatalf("anth %s: %v before the first text; stdout %q, stderr %q", strings.Join(c.args, " "), err, got, errOut.String())
			}
		}
		stdin.Write(c.in2)
		stdin.Close()
		more, _ := io.ReadAll(stdout)
		got = append(got, more...)
		kill.Stop()
		if err := cmd.Wait(); err != nil || !bytes.HasSuffix(got, []byte(c.wantSuffix)) {
			t.Errorf("anth %s: %v, stderr %q, stdout ends %q", strings.Join(c.args, " "), err, errOut.String(), got[max(0, len(got)-80):])
		}
	}
}

// TestInputKinds: decode and dump say what they were given when it is not
// ANTH, read anth-deflate and SSE, and report an API error body's type and
// message (before: every one was `frame: offset 0: bad magic`).
func TestInputKinds(t *testing.T) {
	first, rest := textResponseSSE()
	anth := toANTH(t, first+rest)
	var coded bytes.Buffer
	z := deflate.NewWriter(&coded, apiMessages.Dictionary())
	z.Write(anth[:20])
	z.Flush()
	z.Write(anth[20:])
	z.Flush()
	for _, c := range []struct {
		name   string
		args   []string
		in     []byte
		code   int
		stdout string // contained
		stderr string // contained; "" for none at all
	}{
		{"401", []string{"decode", "--to", "text"}, []byte(`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_1"}`), 1, "",
			"anth: stdin: the API returned an error instead of a stream: authentication_error: invalid x-api-key\n"},
		{"529", []string{"dump"}, []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), 1, "", "overloaded_error: Overloaded"},
		{"json", []string{"decode"}, []byte(`{"id":"msg_1","type":"message"}`), 1, "", `input is not ANTH: it is a JSON body, not a stream`},
		{"headers", []string{"decode"}, []byte("HTTP/2 401\r\ncontent-type: application/json\r\n\r\n{}"), 1, "", "HTTP headers"},
		{"binary", []string{"decode"}, []byte{0xFF, 0xFE, 0x00, 0x01, 0x02}, 1, "", "anth: stdin: input is not ANTH: it starts with FF FE 00 01 02\n"},
		{"empty", []string{"dump"}, nil, 1, "", "input is not ANTH: it is empty"},
		{"text", []string{"decode"}, []byte("hello there, world"), 1, "", `input is not ANTH: it starts with "hello there, wor"`},
		{"deflate text", []string{"decode", "--to", "text"}, coded.Bytes(), 0, "Hello, world", ""},
		{"deflate dump", []string{"dump"}, coded.Bytes(), 0, "# anth-deflate input", ""},
		{"sse text", []string{"decode", "--to", "text"}, []byte(first + rest), 0, "Hello, world", ""},
		{"sse dump", []string{"dump"}, []byte(first + rest), 0, "block 0 \"Hello\"", ""},
		{"sse to sse", []string{"decode"}, []byte(first + rest), 0, "event: message_stop", ""},
	} {
		out, errOut, code := runAnth(t, c.in, c.args...)
		if code != c.code || !bytes.Contains(out, []byte(c.stdout)) || c.stderr == "" && len(errOut) != 0 || !bytes.Contains(errOut, []byte(c.stderr)) {
			t.Errorf("%s: anth %s: exit %d, stdout %q, stderr %q; want exit %d, stderr with %q", c.name, strings.Join(c.args, " "), code, out, errOut, c.code, c.stderr)
		}
	}
}

// TestSniffBound: deciding what a long input is holds a bounded amount of
// it: a megabyte-long JSON body, or garbage, costs no more than maxSniff
// and the readers' fixed buffers (below 256 KiB allocated).
func TestSniffBound(t *testing.T) {
	for _, in := range [][]byte{
		append([]byte(`{"type":"error","error":{"type":"x","message":"`), bytes.Repeat([]byte("a"), 4<<20)...),
		bytes.Repeat([]byte{0x7E}, 4<<20), // not DEFLATE after a few bytes
	} {
		var before, after runtimeMem
		before.read()
		_, err := openANTH(bytes.NewReader(in), nil)
		after.read()
		t.Logf("%d bytes in: %d bytes allocated", len(in), after.total-before.total)
		if err == nil || after.total-before.total > 256<<10 {
			t.Errorf("%d bytes in: %v, %d bytes allocated", len(in), err, after.total-before.total)
		}
	}
}

// TestJSONL: decode --to jsonl gives each frame's fields as JSON values,
// numbers as numbers (before: the payload was one human-readable string).
func TestJSONL(t *testing.T) {
	b := frame.AppendMagic(nil)
	b = frame.AppendToken(b, 42, 100276)
	b = frame.AppendText(b, 2, []byte("hi"))
	b = frame.AppendUsage(b, frame.Usage{InputTokens: 397, OutputTokens: 89, CacheHitRatio: 250000})
	b = frame.AppendDone(b, frame.StopSequence, "END")
	out, errOut, code := runAnth(t, b, "decode", "--to", "jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	want := []map[string]any{
		{"offset": 4.0, "type": "TOKEN32", "length": 8.0, "tokens": []any{42.0, 100276.0}},
		{"offset": 15.0, "type": "TEXT", "length": 4.0, "block": 2.0, "text": "hi"},
		{"offset": 22.0, "type": "USAGE", "length": float64(len(frame.AppendUsage(nil, frame.Usage{InputTokens: 397, OutputTokens: 89, CacheHitRatio: 250000})) - 3), "input_tokens": 397.0, "output_tokens": 89.0, "cache_hit_ratio": 0.25},
	}
	if len(got) != 4 {
		t.Fatalf("%d objects:\n%s", len(got), out)
	}
	delete(got[2], "length")
	delete(want[2], "length")
	if d := cmp.Diff(want, got[:3]); d != "" {
		t.Errorf("jsonl (-want +got):\n%s", d)
	}
	if got[3]["stop_reason"] != "stop_sequence" || got[3]["stop_sequence"] != "END" {
		t.Errorf("DONE: %v", got[3])
	}
}

// TestMessages: errors name the file and offset without Go package
// prefixes; a write error names standard output, not the input file
// (before: "anth: FILE: write /dev/stdout: no space left on device").
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.anth")
	resp := frame.AppendDone(frame.AppendText(frame.AppendMagic(nil), 0, []byte("hello")), frame.StopEndTurn, "")
	os.WriteFile(cut, resp[:len(resp)-2], 0o644)
	_, errOut, _ := runAnth(t, nil, "dump", cut)
	if want := "anth: " + cut + ": offset 16: "; !strings.HasPrefix(string(errOut), want) {
		t.Errorf("dump of a cut file: %q, want it to start %q", errOut, want)
	}
	whole := filepath.Join(dir, "whole.anth")
	os.WriteFile(whole, resp, 0o644)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("this test needs /dev/full: %v", err)
	}
	defer full.Close()
	for _, args := range [][]string{{"decode", whole}, {"encode", "--from", "raw", whole}, {"dump", whole}} {
		cmd := exec.Command(anthBin, args...)
		cmd.Stdout = full
		var e bytes.Buffer
		cmd.Stderr = &e
		cmd.Run()
		if msg := e.String(); strings.Contains(msg, whole) || !strings.HasPrefix(msg, "anth: writing standard output: ") {
			t.Errorf("anth %s > /dev/full: %q, want it to name standard output alone", strings.Join(args, " "), msg)
		}
	}
	// anth alone: the usage, exit 2.
	out, errOut, code := runAnth(t, nil)
	if code != 2 || len(out) != 0 || !bytes.Contains(errOut, []byte("anth demo")) {
		t.Errorf("anth: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestStatsStdin: anth stats - reads standard input, like every other
// command (before: a usage error... or "open -: no such file").
func TestStatsStdin(t *testing.T) {
	first, rest := textResponseSSE()
	out, errOut, code := runAnth(t, []byte(first+rest), "stats", "-")
	if code != 0 || !bytes.HasPrefix(out, []byte("SSE ")) {
		t.Errorf("stats -: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestVersion: anth --version names the module and the Go release from the
// build information, and versionLine gives the revision and modified flag.
func TestVersion(t *testing.T) {
	out, errOut, code := runAnth(t, nil, "--version")
	if code != 0 || !bytes.HasPrefix(out, []byte("anth github.com/layer0/anth ")) || !bytes.Contains(out, []byte(" go1.")) || len(errOut) != 0 {
		t.Errorf("--version: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/layer0/anth", Version: "v0.1.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionLine(bi), "anth github.com/layer0/anth v0.1.0 rev 0123456789ab (modified) go1.26.0"; got != want {
		t.Errorf("versionLine = %q, want %q", got, want)
	}
}

// runtimeMem reads the bytes allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

// TestKVStatsRate: kv stats of a small dump gives rates that are not zero
// (before: "encode 0 MB/s", whole MB/s of a run of microseconds).
func TestKVStatsRate(t *testing.T) {
	// One fp32 token of one head of one dimension: 8 bytes in microseconds.
	one := filepath.Join(t.TempDir(), "one.raw")
	os.WriteFile(one, []byte{0, 1, 2, 0x3F, 4, 5, 6, 0x3F}, 0o644)
	out, errOut, code := runAnth(t, nil, "kv", "stats", "--layers", "1", "--kv-heads", "1", "--head-dim", "1", "--dtype", "fp32", "--tile-shift", "0", "--mode", "max", one)
	var enc, apply float64
	i := bytes.Index(out, []byte("encode "))
	if code != 0 || i < 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	fmt.Sscanf(string(out[i:]), "encode %g MB/s", &enc)
	j := bytes.Index(out, []byte("apply "))
	fmt.Sscanf(string(out[j:]), "apply %g MB/s", &apply)
	if enc <= 0 || apply <= 0 {
		t.Errorf("rates %g and %g MB/s in %q", enc, apply, out)
	}
}

// TestTextBlocksOnly: decode --to text gives text blocks' text, not
// thinking, signatures or tool input (the JS TextReassembler's default).
func TestTextBlocksOnly(t *testing.T) {
	b := frame.AppendMagic(nil)
	b = frame.AppendDelta(b, 0, frame.DeltaThinking, []byte("let me think"))
	b = frame.AppendDelta(b, 0, frame.DeltaSignature, []byte("c2ln"))
	b = frame.AppendBlock(b, 0, frame.BlockStop)
	b = frame.AppendText(b, 1, []byte("the answer"))
	b = frame.AppendDelta(b, 2, frame.DeltaInputJSON, []byte(`{"q":1}`))
	b = frame.AppendDone(b, frame.StopEndTurn, "")
	out, errOut, code := runAnth(t, b, "decode", "--to", "text")
	if code != 0 || string(out) != "the answer" {
		t.Errorf("exit %d, stdout %q, stderr %q; want the text block alone", code, out, errOut)
	}
}
