package anthhttp

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

// TestRelayCountAllocs: what the relay counts for a Record as an event
// passes (its frames, a USAGE frame's counts, an ERROR frame) allocates
// nothing, so metrics cost nothing per event.
func TestRelayCountAllocs(t *testing.T) {
	b := frame.AppendMagic(nil)
	b = frame.AppendText(b, 0, []byte("Hello"))
	b = frame.AppendUsage(b, frame.Usage{InputTokens: 3, OutputTokens: 4})
	b = frame.AppendError(b, frame.CodeAPI, "x")
	r := &relay{}
	r.count(b, true)
	if r.relayed != 3 || r.input != 3 || r.output != 4 || !r.upstreamFailed {
		t.Fatalf("counted %d frames, usage %d/%d, failed %v; want 3, 3/4, true", r.relayed, r.input, r.output, r.upstreamFailed)
	}
	if RaceEnabled {
		return // the race detector's instrumentation allocates
	}
	r.started = true
	if n := testing.AllocsPerRun(100, func() { r.count(b[len(frame.Magic):], false) }); n != 0 {
		t.Errorf("count allocates %v times per event, want 0", n)
	}
}

// TestRelayCountsGathered: what the relay counts for the Gateway's Record
// (frames or events, usage, an upstream error) is the same whether the
// events came at once, and were gathered, or one at a time.
func TestRelayCountsGathered(t *testing.T) {
	for name, in := range testdata.SSE(t) {
		for _, w := range []wire{wireStream, wireANTH, wireCoded} {
			count := func(up io.Reader) relay {
				r := newRelay(context.Background(), up, messages.API{}, w, 0, nil)
				io.Copy(io.Discard, r)
				return relay{relayed: r.relayed, input: r.input, output: r.output, upstreamFailed: r.upstreamFailed}
			}
			whole, apart := count(bytes.NewReader(in)), count(&testdata.EventReader{Rest: in})
			if whole.relayed != apart.relayed || whole.input != apart.input || whole.output != apart.output || whole.upstreamFailed != apart.upstreamFailed || apart.relayed == 0 {
				t.Errorf("%s, wire %d: counted %d, %d/%d, %v at once; %d, %d/%d, %v an event at a time", name, w,
					whole.relayed, whole.input, whole.output, whole.upstreamFailed, apart.relayed, apart.input, apart.output, apart.upstreamFailed)
			}
		}
	}
}

// TestRelayCountsChatUsage: a gateway counts a Chat Completions stream's
// tokens alike whether it relays the SSE (chat.API's EventUsage) or sends
// ANTH (its USAGE frames), wherever the server put the usage (SPEC.md
// §7b.2, §7b.3); the streams with usage are counted.
func TestRelayCountsChatUsage(t *testing.T) {
	counted := 0
	for name, in := range testdata.ChatAll(t) {
		var got [2]relay
		for i, w := range []wire{wireStream, wireANTH} {
			r := newRelay(context.Background(), bytes.NewReader(in), chat.API{}, w, 0, nil)
			io.Copy(io.Discard, r)
			got[i] = relay{input: r.input, output: r.output}
		}
		if got[0].input != got[1].input || got[0].output != got[1].output {
			t.Errorf("%s: SSE relayed counted %d/%d tokens, ANTH %d/%d", name, got[0].input, got[0].output, got[1].input, got[1].output)
		}
		if got[0].output > 0 {
			counted++
		}
	}
	if counted < 30 {
		t.Errorf("only %d streams counted any tokens", counted)
	}
}
