package anth_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

// TestEncoderResetAllocs: an Encoder of either bridge that Reset gives a
// new stream allocates nothing for it once it has written the streams
// before: its text's state, its templates (chat) and the inflater of
// deflated EVENTs reuse what those left. Every recording of both APIs in
// turn.
func TestEncoderResetAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	type encoder interface {
		Reset(io.Writer)
		Write([]byte) (int, error)
		Close() error
	}
	for _, c := range []struct {
		api     bridge.API
		streams map[string][]byte
		enc     encoder
	}{
		{messages.API{}, testdata.SSEAll(t), messages.NewEncoder(io.Discard, messages.EncoderOptions{})},
		{chat.API{}, testdata.ChatAll(t), chat.NewEncoder(io.Discard, chat.EncoderOptions{})},
	} {
		var anths [][]byte
		for name, in := range c.streams {
			d := c.api.NewDecoder(bytes.NewReader(in), false)
			var anth []byte
			for {
				b, err := d.Next()
				anth = append(anth, b...)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			anths = append(anths, anth)
		}
		all := func() {
			for _, anth := range anths {
				c.enc.Reset(io.Discard)
				if _, err := c.enc.Write(anth); err != nil {
					t.Fatal(err)
				}
				if err := c.enc.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
		all()
		if n := testing.AllocsPerRun(5, all); n != 0 {
			t.Errorf("%s: %.1f allocations for %d streams through a reused Encoder, want 0", c.api.Path(), n, len(anths))
		}
	}
}
