package messages

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/internal/testdata"
	anthutf8 "github.com/layer0/anth/utf8"
)

// TestNoForgery: random bytes in every field of a frame that becomes SSE
// text — text, thinking, tool input, signature, error message, stop
// sequence, event name and data, the message's model and id — never start a
// line, field or event on the client: the client reads exactly the events
// the frames stand for, or the Encoder refuses the frame.
func TestNoForgery(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		junk := rapid.SliceOfN(rapid.SampledFrom([]byte("\n\r:\"\\ \x00\x7f\xff\xe4\xbd\xa0aevent: datamessage_stop")), 0, 40)
		b := frame.AppendMagic(nil)
		var want []string
		want = append(want, "message_start")
		var held [4]bool // whether a block ends inside a character
		text := append([]byte("x"), junk.Draw(t, "text")...)
		b = frame.AppendText(b, 0, text)
		held[0] = pendingUTF8(text)
		want = append(want, "content_block_start", "content_block_delta")
		for kind := frame.DeltaInputJSON; kind <= frame.DeltaSignature; kind++ {
			delta := append([]byte("x"), junk.Draw(t, "delta")...)
			b = frame.AppendBlock(b, uint16(kind), frame.BlockStartThinking)
			b = frame.AppendDelta(b, uint16(kind), kind, delta)
			held[kind] = pendingUTF8(delta)
			want = append(want, "content_block_start", "content_block_delta")
		}
		name, data := junk.Draw(t, "event name"), junk.Draw(t, "event data")
		if rapid.IntRange(0, 3).Draw(t, "data kind") > 0 {
			// Valid JSON with line breaks between its tokens, and the
			// junk in a string.
			s, _ := json.Marshal(string(data))
			data = append(append([]byte("{\"k\":\r\n"), s...), ",\n\"event: message_stop\"\r:\n1}"...)
		}
		b = frame.AppendEvent(b, frame.EventJSON, name, data)
		okEvent := !bytes.ContainsAny(name, "\r\n") && jsonValid(data)
		if okEvent {
			want = append(want, string(name))
		}
		if rapid.Bool().Draw(t, "fails") {
			b = frame.AppendError(b, frame.CodeAPI, string(junk.Draw(t, "message")))
			want = append(want, "error")
		} else {
			b = frame.AppendDone(b, frame.StopSequence, string(junk.Draw(t, "stop sequence")))
			for _, h := range held {
				if h { // the cut character, as U+FFFD, before the stop
					want = append(want, "content_block_delta")
				}
				want = append(want, "content_block_stop")
			}
			want = append(want, "message_delta", "message_stop")
		}
		opts := EncoderOptions{Model: string(junk.Draw(t, "model")), MessageID: string(junk.Draw(t, "id"))}
		out, err := toSSEBytes(b, rapid.IntRange(1, 64).Draw(t, "step"), opts)
		if !okEvent {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("an EVENT named %q with data %q: %v, want ErrMalformed", name, data, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ev := range testdata.Events(t, out) {
			if !jsonValid([]byte(ev[1])) {
				t.Fatalf("event %q has data that is not JSON: %q", ev[0], ev[1])
			}
			if ev[0] == "" {
				ev[0] = string(name) // the default type, as upstream had it
			}
			got = append(got, ev[0])
		}
		if !cmp.Equal(got, want) {
			t.Fatalf("client reads events %q, want %q\n%s", got, want, out)
		}
	})
}

// pendingUTF8 reports whether text ends inside a character.
func pendingUTF8(text []byte) bool {
	var d anthutf8.Decoder
	d.Append(nil, text)
	return d.Pending() > 0
}

// jsonValid is the EVENT data an Encoder takes: JSON as encoding/json
// reads it, which, like the compactor, does not look at the bytes inside a
// string. Invalid UTF-8 there is the upstream's, carried as it came
// (TestBridgeEdges, "a delta of invalid UTF-8"); requiring valid UTF-8
// here disagreed with that, and failed when rapid drew an EVENT of "\xff".
func jsonValid(b []byte) bool {
	_, ok := jsonlex.DecodeNumbers(b)
	return ok
}

// TestLongValues: a stop sequence and an error message longer than a frame
// cross the bridge both ways whole.
func TestLongValues(t *testing.T) {
	for _, n := range []int{70_000, 200_000} {
		long := strings.Repeat("é", n/2)
		for _, end := range []string{"done", "error"} {
			b := frame.AppendText(frame.AppendMagic(nil), 0, []byte("x"))
			if end == "done" {
				b = frame.AppendDone(b, frame.StopSequence, long)
			} else {
				b = frame.AppendError(b, frame.CodeOverloaded, long)
			}
			sse, err := toSSEBytes(b, 1000, EncoderOptions{})
			if err != nil {
				t.Fatalf("%s of %d bytes: %v", end, n, err)
			}
			back, err := readAll(NewDecoder(bytes.NewReader(sse), DecoderOptions{}))
			if err != nil {
				t.Fatalf("%s of %d bytes: back to ANTH: %v", end, n, err)
			}
			last := back[len(back)-1]
			var got []byte
			if end == "done" {
				_, got, err = last.Done()
			} else {
				_, got, err = last.ErrorMessage()
			}
			if err != nil || string(got) != long {
				t.Fatalf("%s of %d bytes comes back as %d bytes (%v)", end, n, len(got), err)
			}
		}
	}
}

// readAll reads the frames of an ANTH stream, copying their payloads.
func readAll(r io.Reader) ([]frame.Frame, error) {
	var fs []frame.Frame
	for f, err := range frame.NewReader(r, frame.ReaderOptions{}).All() {
		if err != nil {
			return fs, err
		}
		fs = append(fs, frame.Frame{Type: f.Type, Payload: append([]byte{}, f.Payload...)})
	}
	return fs, nil
}
