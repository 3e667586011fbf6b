package messages

import (
	"bytes"
	"strings"
	"testing"

	"github.com/layer0/anth/internal/testdata"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/frame"
)

// frameKinds reads ANTH and names its frames: the type, and for an EVENT
// its name and encoding ("EVENT x json").
func frameKinds(t *testing.T, anth []byte) []string {
	t.Helper()
	var kinds []string
	for f, err := range frame.NewReader(bytes.NewReader(anth), frame.ReaderOptions{}).All() {
		if err != nil {
			t.Fatal(err)
		}
		k := f.Type.String()
		if ev, err := f.Event(); err == nil {
			enc := map[uint8]string{frame.EventJSON: "json", frame.EventDeflate: "deflate"}[ev.Encoding]
			k += " " + string(ev.Name) + " " + enc
		}
		kinds = append(kinds, k)
	}
	return kinds
}

// TestBridgeEdges: events at the edges of what typed frames carry — block
// indexes at 65,535 and past it, citations up to a frame's payload, key
// orders the fast path does not take, invalid UTF-8, events alike but for
// their names, JSON that deflates to exactly its own size — become the
// frames they should, and come back as the same events.
func TestBridgeEdges(t *testing.T) {
	const start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
	const stop = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	ev := func(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }
	citation := func(n int) string { // a JSON object of n bytes
		return `{"cited_text":"` + strings.Repeat("c", n-17) + `"}`
	}
	// block wraps events in the start and stop of a text block.
	block := func(i string, events string) string {
		return ev("content_block_start", `{"type":"content_block_start","index":`+i+`,"content_block":{"type":"text","text":""}}`) + events +
			ev("content_block_stop", `{"type":"content_block_stop","index":`+i+`}`)
	}
	for _, c := range []struct {
		name   string
		events string
		want   []string // the frames between message_start's and DONE
	}{
		{"block 65,535", block("65535", ""), []string{"BLOCK", "BLOCK"}},
		{"block 65,536", block("65536", ""), []string{"EVENT content_block_start deflate", "EVENT content_block_stop deflate"}},
		{"a delta of block 65,535 in another key order", block("65535", ev("content_block_delta", `{"index":65535,"type":"content_block_delta","delta":{"text":"hi","type":"text_delta"}}`)), []string{"BLOCK", "TEXT", "BLOCK"}},
		{"a delta of block 65,536 in another key order", block("65536", ev("content_block_delta", `{"index":65536,"type":"content_block_delta","delta":{"text":"hi","type":"text_delta"}}`)), []string{"EVENT content_block_start deflate", "EVENT content_block_delta deflate", "EVENT content_block_stop deflate"}},
		{"a delta of invalid UTF-8", block("0", ev("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\xffb\"}}")), []string{"BLOCK", "EVENT content_block_delta deflate", "BLOCK"}},
		{"a delta with a lone continuation byte", block("0", ev("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\x80\"}}")), []string{"BLOCK", "EVENT content_block_delta deflate", "BLOCK"}},
		{"a citation", block("0", ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":`+citation(100)+`}}`)), []string{"BLOCK", "DELTA", "BLOCK"}},
		{"a citation that fills a frame", block("0", ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":`+citation(frame.MaxPayload-3)+`}}`)), []string{"BLOCK", "DELTA", "BLOCK"}},
		{"a citation past a frame", block("0", ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":`+citation(frame.MaxPayload-2)+`}}`)), []string{"BLOCK", "EVENT content_block_delta deflate", "BLOCK"}},
		{"a citation that is not an object", block("0", ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":[1]}}`)), []string{"BLOCK", "EVENT content_block_delta deflate", "BLOCK"}},
		{"events alike but for their names", ev("x", `{"a":1}`) + ev("y", `{"a":1}`) + ev("y", `{"a":1}`), []string{"EVENT x json", "EVENT y json", "EVENT y json"}},
		{"JSON that deflates to its own size", ev("x", `{"v":"2502404"}`), []string{"EVENT x json"}},
		{"JSON that deflates smaller", ev("x", `{"type":"ping"}`), []string{"EVENT x deflate"}},
		{"a name of 255 bytes", ev(strings.Repeat("n", 255), `{}`), []string{"EVENT " + strings.Repeat("n", 255) + " json"}},
	} {
		in := start + c.events + stop
		anth := toANTH(t, []byte(in), DecoderOptions{})
		kinds := frameKinds(t, anth)
		if d := cmp.Diff(c.want, kinds[1:len(kinds)-2]); d != "" { // message_start, ..., message_stop, DONE
			t.Errorf("%s: frames (-want +got):\n%s", c.name, d)
		}
		back, err := toSSEBytes(anth, len(anth), EncoderOptions{})
		if err != nil {
			t.Fatalf("%s: back to SSE: %v", c.name, err)
		}
		if d := cmp.Diff(testdata.EventsJSON(t, []byte(in)), testdata.EventsJSON(t, back)); d != "" {
			t.Errorf("%s: events (-in +back):\n%s", c.name, d)
		}
	}
}

// TestEncoderBlocks: a block that starts and stops in EVENTs (a tool call,
// a stop with fields of its own) is open between them, up to index 65,535,
// so its deltas are written and it can start again; an EVENT with no name
// is written with no event line.
func TestEncoderBlocks(t *testing.T) {
	const blk = 65535
	b := frame.AppendMagic(nil)
	b = frame.AppendEvent(b, frame.EventJSON, []byte("message_start"), []byte(`{"type":"message_start","message":{}}`))
	b = frame.AppendEvent(b, frame.EventJSON, []byte("content_block_start"), []byte(`{"type":"content_block_start","index":65535,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}`))
	b = frame.AppendDelta(b, blk, frame.DeltaInputJSON, []byte(`{"a":`))
	b = frame.AppendEvent(b, frame.EventJSON, []byte("content_block_stop"), []byte(`{"type":"content_block_stop","index":65535,"x":1}`))
	b = frame.AppendBlock(b, blk, frame.BlockStartText)
	b = frame.AppendText(b, blk, []byte("hi"))
	b = frame.AppendBlock(b, blk, frame.BlockStop)
	b = frame.AppendEvent(b, frame.EventJSON, nil, []byte(`{"type":"ping"}`))
	b = frame.AppendDone(b, frame.StopEndTurn, "")
	out, err := toSSEBytes(b, 7, EncoderOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var names []string
	for _, e := range testdata.Events(t, out) {
		names = append(names, e[0])
	}
	want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "content_block_start", "content_block_delta", "content_block_stop", "", "message_delta", "message_stop"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("events (-want +got):\n%s\n%s", d, out)
	}
	if !bytes.Contains(out, []byte("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":65535}\n\ndata: {\"type\":\"ping\"}\n\n")) {
		t.Errorf("the unnamed event is not written bare:\n%s", out)
	}
}

// TestText: Text's public methods on blocks and kinds it holds nothing
// for, and a character cut at a block's end in each kind.
func TestText(t *testing.T) {
	var x frame.Text
	if got := x.Flush([]byte("k"), 9, 0); string(got) != "k" || x.Pending(9, 0) || x.Blocks() != 0 {
		t.Fatalf("an unseen block: %q, pending %v, %d blocks", got, x.Pending(9, 0), x.Blocks())
	}
	for kind := frame.DeltaKind(0); kind <= frame.DeltaCitation; kind++ {
		got := x.Append(nil, 1, kind, []byte("a\xe4\xbd"))
		pending := kind <= frame.DeltaSignature
		if x.Pending(1, kind) != pending {
			t.Errorf("kind %d: pending %v", kind, x.Pending(1, kind))
		}
		got = x.Flush(got, 1, kind)
		want := "a\uFFFD"
		if !pending {
			want = "a\xe4\xbd" // a citation is passed on whole
		}
		if string(got) != want {
			t.Errorf("kind %d: %q, want %q", kind, got, want)
		}
	}
	x.Append(nil, 2, 0, []byte("\xe4"))
	if x.Blocks() != 2 {
		t.Errorf("%d blocks, want 2", x.Blocks())
	}
	x.Forget(1)
	if x.Blocks() != 1 || x.Pending(1, 0) || !x.Pending(2, 0) {
		t.Errorf("after Forget(1): %d blocks", x.Blocks())
	}
	if got := x.Append(nil, 2, 0, []byte("\xbd\xa0")); string(got) != "你" {
		t.Errorf("a character across Appends: %q", got)
	}
}
