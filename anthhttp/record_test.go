package anthhttp

import (
	"testing"

	"github.com/layer0/anth/frame"
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
	if raceEnabled {
		return // the race detector's instrumentation allocates
	}
	r.started = true
	if n := testing.AllocsPerRun(100, func() { r.count(b[len(frame.Magic):], false) }); n != 0 {
		t.Errorf("count allocates %v times per event, want 0", n)
	}
}
