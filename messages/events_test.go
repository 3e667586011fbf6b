package messages

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/sse"
)

// eventFrame is an EVENT frame as it comes off the wire: its encoding, the
// More flag, its name and its piece of data.
func eventFrame(enc uint8, more bool, name, data string) frame.Frame {
	if more {
		enc |= 0x80
	}
	return frame.Frame{Type: frame.TypeEvent, Payload: append(append([]byte{enc, byte(len(name))}, name...), data...)}
}

// TestEventReader: events join across frames of the same name and
// encoding, up to exactly MaxEvent bytes joined and inflated; anything
// else is an *Error with no offset.
func TestEventReader(t *testing.T) {
	const max = 16
	deflated := func(s string) string { return string(deflate.AppendBlock(nil, []byte(s), eventDict())) }
	str := func(n int) string { return `"` + strings.Repeat("a", n-2) + `"` } // JSON of n bytes
	for _, c := range []struct {
		name   string
		frames []frame.Frame
		want   Event
		kind   error
	}{
		{"one frame", []frame.Frame{eventFrame(frame.EventJSON, false, "ping", `{"type": "ping"}`)}, Event{[]byte("ping"), []byte(`{"type":"ping"}`)}, nil},
		{"joined", []frame.Frame{eventFrame(frame.EventJSON, true, "x", `{"a":`), eventFrame(frame.EventJSON, true, "x", ``), eventFrame(frame.EventJSON, false, "x", `[1]}`)}, Event{[]byte("x"), []byte(`{"a":[1]}`)}, nil},
		{"another name", []frame.Frame{eventFrame(frame.EventJSON, true, "x", `{"a":`), eventFrame(frame.EventJSON, false, "y", `1}`)}, Event{}, ErrMalformed},
		{"another encoding", []frame.Frame{eventFrame(frame.EventJSON, true, "x", `{"a":`), eventFrame(frame.EventDeflate, false, "x", `1}`)}, Event{}, ErrMalformed},
		{"max bytes", []frame.Frame{eventFrame(frame.EventJSON, false, "x", str(max))}, Event{[]byte("x"), []byte(str(max))}, nil},
		{"max bytes joined", []frame.Frame{eventFrame(frame.EventJSON, true, "x", str(max)[:10]), eventFrame(frame.EventJSON, false, "x", str(max)[10:])}, Event{[]byte("x"), []byte(str(max))}, nil},
		{"max+1 bytes", []frame.Frame{eventFrame(frame.EventJSON, false, "x", str(max+1))}, Event{}, ErrTooLarge},
		{"max+1 bytes joined", []frame.Frame{eventFrame(frame.EventJSON, true, "x", str(max + 1)[:10]), eventFrame(frame.EventJSON, false, "x", str(max + 1)[10:])}, Event{}, ErrTooLarge},
		{"max bytes inflated", []frame.Frame{eventFrame(frame.EventDeflate, false, "x", deflated(str(max)))}, Event{[]byte("x"), []byte(str(max))}, nil},
		{"max+1 bytes inflated", []frame.Frame{eventFrame(frame.EventDeflate, false, "x", deflated(str(max+1)))}, Event{}, ErrTooLarge},
		{"a name with a line break", []frame.Frame{eventFrame(frame.EventJSON, false, "a\nb", `{}`)}, Event{}, ErrMalformed},
		{"not JSON", []frame.Frame{eventFrame(frame.EventJSON, false, "x", `{`)}, Event{}, ErrMalformed},
		{"not DEFLATE", []frame.Frame{eventFrame(frame.EventDeflate, false, "x", "\xff\xff")}, Event{}, ErrMalformed},
	} {
		r := &EventReader{MaxEvent: max}
		var got Event
		var err error
		for i, f := range c.frames {
			ev, ok, ferr := r.Add(f)
			if last := i == len(c.frames)-1; ferr == nil && ok != last {
				t.Errorf("%s: frame %d completes an event: %v", c.name, i, ok)
			}
			if ferr == nil && r.Pending() == ok {
				t.Errorf("%s: frame %d: Pending %v", c.name, i, r.Pending())
			}
			if err = ferr; err != nil {
				break
			}
			got = Event{Name: bytes.Clone(ev.Name), Data: bytes.Clone(ev.Data)}
		}
		var e *Error
		switch {
		case c.kind == nil && (err != nil || !cmp.Equal(got, c.want)):
			t.Errorf("%s: %q %q, %v; want %q %q", c.name, got.Name, got.Data, err, c.want.Name, c.want.Data)
		case c.kind != nil && (!errors.Is(err, c.kind) || !errors.As(err, &e) || e.Offset != -1):
			t.Errorf("%s: %v, want %v with no offset", c.name, err, c.kind)
		}
	}

	// Reset forgets an event cut off; the default limit is sse.DefaultMaxEvent.
	var r EventReader
	r.Add(eventFrame(frame.EventJSON, true, "x", `{"a":`))
	r.Reset()
	if ev, ok, err := r.Add(eventFrame(frame.EventJSON, false, "y", `{}`)); err != nil || !ok || string(ev.Name) != "y" || r.Pending() {
		t.Errorf("after Reset: %q, %v, %v", ev.Name, ok, err)
	}
	big := str(sse.DefaultMaxEvent)
	if _, ok, err := r.Add(eventFrame(frame.EventDeflate, false, "x", deflated(big))); err != nil || !ok {
		t.Errorf("sse.DefaultMaxEvent bytes inflated: %v", err)
	}
	if _, _, err := r.Add(eventFrame(frame.EventDeflate, false, "x", deflated(big+" "))); !errors.Is(err, ErrTooLarge) {
		t.Errorf("sse.DefaultMaxEvent+1 bytes inflated: %v", err)
	}
}

// recordingWriter records each Write it is given, and fails them all
// with err once set.
type recordingWriter struct {
	writes [][]byte
	err    error
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.writes = append(w.writes, bytes.Clone(p))
	return len(p), nil
}

// TestEncoderWrites: each Write that completes events hands them to the
// underlying writer in one Write, one that completes none writes nothing,
// and each says it took all its bytes; a failing writer's error is the
// Encoder's, and an event with no name has no event line.
func TestEncoderWrites(t *testing.T) {
	b := frame.AppendMagic(nil)
	b = frame.AppendEvent(b, frame.EventJSON, nil, []byte(`{"type":"ping"}`))
	b = frame.AppendText(b, 0, []byte("hi"))
	b = frame.AppendDone(b, frame.StopEndTurn, "")
	var w recordingWriter
	e := NewEncoder(&w, EncoderOptions{})
	cut := len(frame.Magic) + 3 // inside the EVENT frame
	for _, p := range [][]byte{b[:cut], b[cut:]} {
		if n, err := e.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write of %d bytes: %d, %v", len(p), n, err)
		}
		if p[0] == 'A' && len(w.writes) != 0 {
			t.Fatalf("a Write that completes no frame wrote %q", w.writes)
		}
	}
	if err := e.Close(); err != nil || len(w.writes) != 1 || !bytes.HasPrefix(w.writes[0], []byte("data: {\"type\":\"ping\"}\n\nevent: message_start\n")) {
		t.Fatalf("%v, writes %q", err, w.writes)
	}

	broken := errors.New("broken pipe")
	for _, failAt := range []string{"Write", "Close"} {
		w := recordingWriter{err: broken}
		e := NewEncoder(&w, EncoderOptions{})
		in := b
		if failAt == "Close" {
			in = b[:len(b)-2] // the DONE arrives, cut, at Close: nothing to write
		}
		n, err := e.Write(in)
		switch failAt {
		case "Write":
			if n != 0 || !errors.Is(err, broken) {
				t.Errorf("a writer that fails: Write returns %d, %v", n, err)
			}
			if _, err := e.Write(nil); !errors.Is(err, broken) || !errors.Is(e.Close(), broken) {
				t.Errorf("the writer's error is not sticky: %v", err)
			}
		case "Close":
			if !errors.Is(err, broken) {
				t.Errorf("a writer that fails: %v", err)
			}
		}
	}
	// A frame error and a writer error at once: the frame's, with its offset
	// (where the frame starts).
	good := frame.AppendText(frame.AppendMagic(nil), 0, []byte("x"))
	bad := append(good, frame.AppendBlock(nil, 9, frame.BlockStop)...)
	w = recordingWriter{err: broken}
	_, err := NewEncoder(&w, EncoderOptions{}).Write(bad)
	var se *Error
	if !errors.Is(err, ErrMalformed) || !errors.As(err, &se) || se.Offset != int64(len(good)) {
		t.Errorf("malformed ANTH to a failing writer: %v, want ErrMalformed at %d", err, len(good))
	}
}

// TestEventDeflateAfter: SPEC.md §3.10's vector of encoding 3 reads as the
// events it gives; an EVENT of encoding 3 inflates after the event before
// it whatever that one's encoding (raw, deflated, binary32, deflated
// after, joined from continuation frames), and after Reset as the first of
// a stream; inside anth-deflate it is refused like encoding 1.
func TestEventDeflateAfter(t *testing.T) {
	rows := testdata.SpecRows(t, "3.10", regexp.MustCompile("^\\| `(event-deflate-after)` \\| `([0-9A-F ]+)` \\| (.*) \\|$"))
	if len(rows) != 1 {
		t.Fatalf("%d encoding-3 vectors in SPEC §3.10, want 1", len(rows))
	}
	var got []string
	var r EventReader
	for f, err := range frame.NewReader(bytes.NewReader(append([]byte(frame.Magic), testdata.Hex(t, rows[0][2])...)), frame.ReaderOptions{RawFrames: true}).All() {
		if err != nil {
			t.Fatal(err)
		}
		ev, ok, err := r.Add(f)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			got = append(got, "`"+string(ev.Data)+"`")
		}
	}
	if g := strings.Join(got, " "); g != rows[0][3] {
		t.Errorf("the vector gives %s, want %s", g, rows[0][3])
	}

	after := func(js, prev string) string {
		return string(deflate.AppendBlockAfter(nil, []byte(js), eventDict(), []byte(prev)))
	}
	next := `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`
	for _, c := range []struct {
		name   string
		before []frame.Frame
		prev   string // the data the event before gives
	}{
		{"none", nil, ""},
		{"raw", []frame.Frame{eventFrame(frame.EventJSON, false, "a", `{"type": "ping"}`)}, `{"type": "ping"}`},
		{"deflated", []frame.Frame{eventFrame(frame.EventDeflate, false, "a", string(deflate.AppendBlock(nil, []byte(next), eventDict())))}, next},
		{"binary32", []frame.Frame{eventFrame(frame.EventBinary32, false, "logprob", "\x00\x00\x80\xbf")}, `-1.0`},
		{"joined", []frame.Frame{eventFrame(frame.EventJSON, true, "a", `{"type":`), eventFrame(frame.EventJSON, false, "a", `"ping"}`)}, `{"type":"ping"}`},
		{"after after", []frame.Frame{eventFrame(frame.EventJSON, false, "a", `{"n":1}`), eventFrame(frame.EventDeflateAfter, false, "a", after(`{"n":2}`, `{"n":1}`))}, `{"n":2}`},
	} {
		var r EventReader
		for _, f := range c.before {
			if _, _, err := r.Add(f); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		ev, ok, err := r.Add(eventFrame(frame.EventDeflateAfter, false, "content_block_start", after(next, c.prev)))
		if !ok || err != nil || string(ev.Data) != next {
			t.Errorf("%s: %q, %v, %v", c.name, ev.Data, ok, err)
		}
		// After Reset the next event is a stream's first: its dictionary
		// is the EVENT dictionary alone.
		r.Reset()
		ev, ok, err = r.Add(eventFrame(frame.EventDeflateAfter, false, "x", after(next, "")))
		if !ok || err != nil || string(ev.Data) != next {
			t.Errorf("%s, after Reset: %q, %v, %v", c.name, ev.Data, ok, err)
		}
	}
	raw := EventReader{RawOnly: true}
	if _, _, err := raw.Add(eventFrame(frame.EventDeflateAfter, false, "x", after(next, ""))); !errors.Is(err, ErrMalformed) {
		t.Errorf("encoding 3 inside anth-deflate: %v, want ErrMalformed", err)
	}
}
