package messages

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/ssejson"
	"github.com/layer0/anth/internal/testdata"
)

// toANTH bridges SSE to ANTH with a Decoder.
func toANTH(t testing.TB, sse []byte, opts DecoderOptions) []byte {
	t.Helper()
	anth, err := io.ReadAll(NewDecoder(bytes.NewReader(sse), opts))
	if err != nil {
		t.Fatalf("SSE to ANTH: %v", err)
	}
	return anth
}

// toSSEBytes writes ANTH as SSE with an Encoder, in writes of step bytes.
func toSSEBytes(anth []byte, step int, opts EncoderOptions) ([]byte, error) {
	var out bytes.Buffer
	e := NewEncoder(&out, opts)
	for i := 0; i < len(anth); i += step {
		if _, err := e.Write(anth[i:min(i+step, len(anth))]); err != nil {
			return out.Bytes(), err
		}
	}
	return out.Bytes(), e.Close()
}

// tb is what the test helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}

type event struct {
	Name string
	Data any
}

// events parses SSE into events with their JSON decoded, so whitespace and
// escaping do not count.
func events(t tb, sse []byte) []event {
	t.Helper()
	var evs []event
	for _, ev := range testdata.Events(t, sse) {
		var v any
		if err := json.Unmarshal([]byte(ev[1]), &v); err != nil {
			t.Fatalf("event %s: %v", ev[0], err)
		}
		evs = append(evs, event{ev[0], v})
	}
	return evs
}

// TestRecordings bridges every recording SSE -> ANTH -> SSE and checks the
// events come back equal, JSON value for JSON value, however the bytes
// arrive on either side.
func TestRecordings(t *testing.T) {
	var sseTotal, anthTotal int
	for name, in := range testdata.SSEAll(t) {
		anth := toANTH(t, in, DecoderOptions{})
		oneByte, err := io.ReadAll(NewDecoder(iotest.OneByteReader(bytes.NewReader(in)), DecoderOptions{}))
		if err != nil || !bytes.Equal(oneByte, anth) {
			t.Fatalf("%s: decoding byte by byte differs (%v)", name, err)
		}
		back, err := toSSEBytes(anth, len(anth), EncoderOptions{})
		if err != nil {
			t.Fatalf("%s: ANTH to SSE: %v", name, err)
		}
		if d := cmp.Diff(events(t, in), events(t, back)); d != "" {
			t.Errorf("%s: events differ (-original +bridged):\n%s", name, d)
		}
		for _, step := range []int{1, 3, 64} {
			if got, err := toSSEBytes(anth, step, EncoderOptions{}); err != nil || !bytes.Equal(got, back) {
				t.Fatalf("%s: ANTH written %d bytes at a time gives other SSE (%v)", name, step, err)
			}
		}
		if strings.HasPrefix(name, "sse-more/") {
			continue // the ratio below is testdata/sse's, as README.md quotes it
		}
		sseTotal += len(in)
		anthTotal += len(anth)
		t.Logf("%-58s SSE %5d  ANTH %5d  %.3fx", name, len(in), len(anth), float64(len(anth))/float64(len(in)))
	}
	t.Logf("all %d recordings: SSE %d bytes, ANTH %d bytes, %.3fx", len(testdata.SSE(t)), sseTotal, anthTotal, float64(anthTotal)/float64(sseTotal))
	if ratio := float64(anthTotal) / float64(sseTotal); ratio > 0.30 {
		t.Errorf("ANTH is %.3fx of SSE over the recordings, want at most 0.30x", ratio)
	}
}

// TestNative turns ANTH from a server that never saw SSE into a Messages
// stream: text split inside characters, usage, stop reason.
func TestNative(t *testing.T) {
	text := "Hello, 世界! 😀"
	b := frame.AppendMagic(nil)
	raw := []byte(text)
	for i := 0; i < len(raw); i += 2 {
		b = frame.AppendText(b, 0, raw[i:min(i+2, len(raw))])
	}
	b = frame.AppendUsage(b, frame.Usage{InputTokens: 9, OutputTokens: 7})
	b = frame.AppendDone(b, frame.StopMaxTokens, "")
	sse, err := toSSEBytes(b, 5, EncoderOptions{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ssejson.Decode(bytes.NewReader(sse))
	if err != nil {
		t.Fatalf("%v\n%s", err, sse)
	}
	want := ssejson.Response{ID: "msg_anth", Model: "m", Text: []string{text}, InputTokens: 0, OutputTokens: 7, StopReason: "max_tokens"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s\n%s", d, sse)
	}
	// And back: the SSE bridges to ANTH again.
	toANTH(t, sse, DecoderOptions{})
}

// TestCutAfterEnd: bytes after a response's end (message_stop or error)
// that complete no event, a connection cut after the response, leave it
// whole: the ANTH of the stream alone and no error (SPEC.md §7a); a cut
// before the end is still ErrTruncated (TestDecoderErrors).
func TestCutAfterEnd(t *testing.T) {
	for name, src := range testdata.SSE(t) {
		full := toANTH(t, src, DecoderOptions{})
		for _, tail := range []string{"0", "event: ping\ndata: {", "event: ping\n", ": c"} {
			in := append(append([]byte{}, src...), tail...)
			got, err := io.ReadAll(NewDecoder(bytes.NewReader(in), DecoderOptions{}))
			if err != nil || !bytes.Equal(got, full) {
				t.Errorf("%s + %q: %v, the stream's ANTH %v; want the stream alone", name, tail, err, bytes.Equal(got, full))
			}
		}
	}
}

func TestDecoderErrors(t *testing.T) {
	ok := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
	for name, c := range map[string]struct {
		in     string
		kind   error
		offset int64
	}{
		"no blank line":   {ok + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n", ErrTruncated, -1},
		"cut in a line":   {ok + "event: message_stop\ndata: {\"type\":\"mess", ErrTruncated, -1},
		"no message_stop": {ok, ErrTruncated, -1},
		"bad JSON":        {ok + "event: x\ndata: {nope}\n\n", ErrMalformed, int64(len(ok))},
		"huge line":       {"data: " + strings.Repeat("a", 200) + "\n\n", ErrTooLarge, 0},
	} {
		if c.offset < 0 { // the end of the input
			c.offset = int64(len(c.in))
		}
		_, err := io.ReadAll(NewDecoder(strings.NewReader(c.in), DecoderOptions{MaxEvent: 100}))
		var e *Error
		if !errors.Is(err, c.kind) || !errors.As(err, &e) || e.Offset != c.offset {
			t.Errorf("%s: %v, want %v at %d", name, err, c.kind, c.offset)
		}
	}
	if _, err := io.ReadAll(NewDecoder(strings.NewReader(ok), DecoderOptions{Padding: 70_000})); !errors.Is(err, frame.ErrTooLarge) {
		t.Errorf("padding of 70,000: %v, want ErrTooLarge", err)
	}
}

func TestEncoderErrors(t *testing.T) {
	done := frame.AppendDone(nil, frame.StopEndTurn, "")
	magic := func() []byte { return frame.AppendMagic(nil) }
	for name, c := range map[string]struct {
		in   []byte
		kind error
	}{
		"cut":          {frame.AppendText(magic(), 0, []byte("hi")), ErrTruncated},
		"tokens":       {append(frame.AppendToken(magic(), 1), done...), ErrMalformed},
		"stop unseen":  {append(frame.AppendBlock(magic(), 3, frame.BlockStop), done...), ErrMalformed},
		"start twice":  {append(frame.AppendBlock(frame.AppendBlock(magic(), 3, frame.BlockStartText), 3, frame.BlockStartText), done...), ErrMalformed},
		"bad deflate":  {append(frame.AppendEvent(magic(), frame.EventDeflate, []byte("x"), []byte{0xFF, 0xFF}), done...), ErrMalformed},
		"not JSON":     {append(frame.AppendEvent(magic(), frame.EventJSON, []byte("x"), []byte("{nope")), done...), ErrMalformed},
		"bad citation": {append(frame.AppendDelta(magic(), 0, frame.DeltaCitation, []byte("[1]")), done...), ErrMalformed},
		"after done":   {append(append(magic(), done...), frame.AppendText(nil, 0, []byte("x"))...), frame.ErrMalformed},
	} {
		_, err := toSSEBytes(c.in, 4, EncoderOptions{})
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", name, err, c.kind)
		}
	}
	// With a vocabulary, tokens are text.
	in := append(frame.AppendToken(magic(), 1, 2), done...)
	out, err := toSSEBytes(in, len(in), EncoderOptions{Detokenize: func(dst []byte, ids []uint32) []byte {
		for _, id := range ids {
			dst = append(dst, 'a'+byte(id))
		}
		return dst
	}})
	if err != nil || !bytes.Contains(out, []byte(`"text":"bc"`)) {
		t.Fatalf("detokenized: %v\n%s", err, out)
	}
	// PACKED_TOKEN frames' IDs, the second's read with the first's (SPEC.md §3.1.1).
	var e frame.TokenEncoder
	in = append(e.AppendPackedToken(e.AppendPackedToken(magic(), 1, 2), 2, 3), done...)
	out, err = toSSEBytes(in, len(in), EncoderOptions{Detokenize: func(dst []byte, ids []uint32) []byte {
		for _, id := range ids {
			dst = append(dst, 'a'+byte(id))
		}
		return dst
	}})
	if err != nil || !bytes.Contains(out, []byte(`"text":"bc"`)) || !bytes.Contains(out, []byte(`"text":"cd"`)) {
		t.Fatalf("detokenized PACKED_TOKEN frames: %v\n%s", err, out)
	}
}

func TestPadding(t *testing.T) {
	in := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	d := NewDecoder(strings.NewReader(in), DecoderOptions{Padding: 32})
	for {
		b, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n := len(bytes.TrimPrefix(b, []byte(frame.Magic))); n%32 != 0 {
			t.Fatalf("event of %d bytes, want a multiple of 32", n)
		}
	}
}

func TestReset(t *testing.T) {
	d := NewDecoder(nil, DecoderOptions{})
	var out bytes.Buffer
	e := NewEncoder(nil, EncoderOptions{})
	for name, in := range testdata.SSEAll(t) {
		want := toANTH(t, in, DecoderOptions{})
		d.Reset(bytes.NewReader(in))
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: a reset Decoder differs (%v)", name, err)
		}
		wantSSE, _ := toSSEBytes(want, len(want), EncoderOptions{})
		out.Reset()
		e.Reset(&out)
		if _, err := e.Write(want); err != nil || e.Close() != nil || !bytes.Equal(out.Bytes(), wantSSE) {
			t.Fatalf("%s: a reset Encoder differs (%v)", name, err)
		}
	}
}

// TestLegalSSE: what the event-stream standard allows and a Messages stream
// does not use — comments (keep-alives that proxies inject), retry and id
// fields, events with no data, a leading byte order mark, any line ends —
// is accepted and carries nothing.
func TestLegalSSE(t *testing.T) {
	plain := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	want := toANTH(t, []byte(plain), DecoderOptions{})
	noise := []string{": keepalive\n\n", "retry: 3000\n\n", "id: 7\n\n", "event: ping\n\n", "event: x\nid: 9\n\n", ":\n:\n\n", "\n\n\n"}
	for _, n := range noise {
		for _, eol := range []string{"\n", "\r", "\r\n"} {
			in := strings.ReplaceAll("\uFEFF"+n+strings.Replace(plain, "\n\n", "\n\n"+n, 1)+n, "\n", eol)
			got, err := io.ReadAll(NewDecoder(strings.NewReader(in), DecoderOptions{}))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%q with %q line ends: %v", n, eol, err)
			}
		}
	}
}

// TestEncoderErrorOffset: a frame the mapping refuses (the stop of a block
// that never started) is reported where that frame starts, whether the
// stream comes whole or a byte at a time, as chat's Encoder reports it.
func TestEncoderErrorOffset(t *testing.T) {
	b := frame.AppendMagic(nil)
	b = frame.AppendText(b, 0, []byte("hi"))
	at := int64(len(b))
	b = frame.AppendBlock(b, 3, frame.BlockStop)
	b = frame.AppendDone(b, frame.StopEndTurn, "")
	for _, step := range []int{len(b), 1} {
		e := NewEncoder(io.Discard, EncoderOptions{})
		var err error
		for i := 0; i < len(b) && err == nil; i += step {
			_, err = e.Write(b[i:min(i+step, len(b))])
		}
		if err == nil {
			err = e.Close()
		}
		var me *Error
		if !errors.Is(err, ErrMalformed) || !errors.As(err, &me) || me.Offset != at {
			t.Errorf("writes of %d: %v, want ErrMalformed at %d", step, err, at)
		}
	}
}
