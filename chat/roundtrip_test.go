package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/sse"
)

// recordings returns every Chat Completions stream of testdata, each
// checked against its folder's SHA256SUMS.
func recordings(t testing.TB) map[string][]byte { return testdata.ChatAll(t) }

func sortedNames(m map[string][]byte) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// toANTH decodes an SSE stream whole.
func toANTH(t tb, sseBytes []byte, opts DecoderOptions) []byte {
	t.Helper()
	out, err := io.ReadAll(NewDecoder(bytes.NewReader(sseBytes), opts))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return out
}

// toSSEBytes encodes an ANTH stream whole.
func toSSEBytes(t tb, anth []byte, opts EncoderOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	e := NewEncoder(&buf, opts)
	if _, err := e.Write(anth); err != nil {
		t.Fatalf("encode: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("encode close: %v", err)
	}
	return buf.Bytes()
}

// sseEvent is one event as an SDK sees it: its name and its data, JSON
// decoded (numbers as written) with obfuscation replaced by its length
// (SPEC.md §7b.4), or the raw data when it is not JSON ([DONE]).
type sseEvent struct {
	Name string
	Data any
}

// events reads an SSE stream as the SDKs do.
func events(t tb, b []byte) []sseEvent {
	t.Helper()
	return scanEvents(t, b, false)
}

// sentEvents is events of a stream as it was sent, whose bytes may go on
// after its end and be cut there, completing no event (SPEC.md §7b.3: the
// Decoder reads such a stream as whole).
func sentEvents(t tb, b []byte) []sseEvent {
	t.Helper()
	return scanEvents(t, b, true)
}

func scanEvents(t tb, b []byte, cutOK bool) []sseEvent {
	t.Helper()
	sc := sse.NewScanner(bytes.NewReader(b), 0)
	var out []sseEvent
	for {
		name, data, err := sc.Next()
		if err == io.EOF || cutOK && errors.Is(err, sse.ErrTruncated) {
			return out
		}
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		ev := sseEvent{Name: string(name), Data: string(data)}
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v any
		if d.Decode(&v) == nil {
			if m, ok := v.(map[string]any); ok {
				if o, ok := m["obfuscation"].(string); ok {
					m["obfuscation"] = len(o)
				}
			}
			ev.Data = v
		}
		out = append(out, ev)
	}
}

// TestRecordingsRoundTrip: every recording, SSE → ANTH → SSE, gives the
// same events, chunk by chunk (SPEC.md §7b.2: typed only when exact), deflated
// EVENTs or raw.
func TestRecordingsRoundTrip(t *testing.T) {
	recs := recordings(t)
	for _, name := range sortedNames(recs) {
		// Deflated EVENTs, raw EVENTs, and padding (whose PAD frames follow
		// each chunk's frames, after the PAD of its obfuscation, §7b.4).
		for _, opts := range []DecoderOptions{{}, {RawEvents: true}, {Padding: 64}} {
			src := recs[name]
			anth := toANTH(t, src, opts)
			back := toSSEBytes(t, anth, EncoderOptions{})
			if d := diffEvents(t, src, back); d != "" {
				t.Errorf("%s (%+v): SSE → ANTH → SSE differs (-want +got):\n%s", name, opts, d)
			}
			if opts.Padding > 0 && len(anth)%64 != 4 {
				t.Errorf("%s: padded ANTH of %d bytes", name, len(anth))
			}
			if opts == (DecoderOptions{}) {
				t.Logf("%-62s SSE %6d B, ANTH %6d B", name, len(src), len(anth))
			}
		}
	}
}

// diffEvents compares two SSE streams event by event as the SDKs read them.
func diffEvents(t tb, want, got []byte) string {
	t.Helper()
	return cmp.Diff(sentEvents(t, want), events(t, got))
}

// tb is what the helpers need of a test: *testing.T, *testing.B and
// *rapid.T all have it.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}
