package anthhttp

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/layer0/anth/messages"
)

// TestRelayLastBytesKept: the last bytes of a stream that failed (its
// ERROR frame, in an anth-deflate record or not, or its error event) stay
// the relay's until the caller asks for more: what they are in goes back
// to the server's pools only then, so another stream that takes it cannot
// write over them before they are written to their client. A stream that
// ended whole gives its buffers back at once (no bytes are left to
// write), and a relay asked for more after the end gives io.EOF.
func TestRelayLastBytesKept(t *testing.T) {
	if RaceEnabled {
		t.Skip("sync.Pool drops what it is given at random under the race detector")
	}
	const cut = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":3}}}\n\n"
	api := messages.API{}
	for _, w := range []wire{wireStream, wireANTH, wireCoded} {
		rl := newRelay(context.Background(), bytes.NewReader([]byte(cut)), api, w, 0, nil)
		var last []byte
		for !rl.done {
			b, err := rl.next()
			if err != nil {
				t.Fatalf("wire %d: %v before the failed stream's last bytes", w, err)
			}
			last = b // the last, once the relay is done
		}
		want := bytes.Clone(last)
		// What another stream would take from the pools now, and fill.
		c := getCoder(api.Dictionary())
		c.w.Write(bytes.Repeat([]byte("x"), 4096))
		c.w.Flush()
		p := getGather()
		*p = append(*p, bytes.Repeat([]byte("y"), 4096)...)
		if !bytes.Equal(last, want) {
			t.Errorf("wire %d: the failed stream's last bytes were written over before they were spent: %q, were %q", w, last, want)
		}
		putCoder(c)
		putGather(p, *p)
		if b, err := rl.next(); err != io.EOF || b != nil {
			t.Errorf("wire %d: after the end, %q, %v; want io.EOF", w, b, err)
		}
		if rl.bufp != nil || rl.z != nil {
			t.Errorf("wire %d: the relay still holds its buffers after the end", w)
		}
	}
}
