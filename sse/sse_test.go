package sse

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/ssejson"
)

// recordings returns the shared SSE recordings, skipping when absent.
func recordings(t testing.TB) map[string][]byte {
	dir := filepath.Join("..", "..", "shared", "data", "sse")
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(names) == 0 {
		t.Skip("shared SSE recordings absent")
	}
	out := map[string][]byte{}
	for _, n := range names {
		if strings.HasSuffix(n, ".md") {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = b
	}
	return out
}

type event struct {
	Name string
	Data any
}

// events parses SSE into events with their JSON decoded, so whitespace and
// escaping do not count.
func events(t testing.TB, sse []byte) []event {
	sc := newScanner(bytes.NewReader(sse), 0)
	var evs []event
	for {
		name, data, err := sc.next()
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("event %s: %v", name, err)
		}
		evs = append(evs, event{string(name), v})
	}
}

// TestRecordings bridges every recording SSE -> ANTH -> SSE and checks the
// events come back equal, JSON value for JSON value.
func TestRecordings(t *testing.T) {
	var sseTotal, anthTotal int
	for name, in := range recordings(t) {
		anth, err := io.ReadAll(NewEncoder(bytes.NewReader(in), EncoderOptions{}))
		if err != nil {
			t.Fatalf("%s: encode: %v", name, err)
		}
		// However the SSE arrives, the ANTH is the same.
		oneByte, err := io.ReadAll(NewEncoder(iotest.OneByteReader(bytes.NewReader(in)), EncoderOptions{}))
		if err != nil || !bytes.Equal(oneByte, anth) {
			t.Fatalf("%s: encoding byte by byte differs (%v)", name, err)
		}
		back, err := io.ReadAll(NewDecoder(bytes.NewReader(anth), DecoderOptions{}))
		if err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
		if d := cmp.Diff(events(t, in), events(t, back)); d != "" {
			t.Errorf("%s: events differ (-original +bridged):\n%s", name, d)
		}
		sseTotal += len(in)
		anthTotal += len(anth)
		t.Logf("%-62s SSE %5d  ANTH %5d  %.3fx", name, len(in), len(anth), float64(len(anth))/float64(len(in)))
	}
	ratio := float64(anthTotal) / float64(sseTotal)
	t.Logf("all recordings: SSE %d bytes, ANTH %d bytes, %.3fx", sseTotal, anthTotal, ratio)
	if ratio > 0.30 {
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
	sse, err := io.ReadAll(NewDecoder(bytes.NewReader(b), DecoderOptions{Model: "m"}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ssejson.Decode(bytes.NewReader(sse))
	if err != nil {
		t.Fatalf("%v\n%s", err, sse)
	}
	want := ssejson.Response{ID: "msg_anth", Model: "m", Text: []string{text}, OutputTokens: 7, StopReason: "max_tokens"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s\n%s", d, sse)
	}
	for _, ev := range bytes.Split(bytes.TrimSpace(sse), []byte("\n\n")) {
		if !bytes.HasPrefix(ev, []byte("event: ")) {
			t.Fatalf("event without a name: %q", ev)
		}
	}
	// And back: the SSE bridges to ANTH again with the same text.
	if _, err := io.ReadAll(NewEncoder(bytes.NewReader(sse), EncoderOptions{})); err != nil {
		t.Fatal(err)
	}
}

func TestEncoderErrors(t *testing.T) {
	ok := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
	for name, c := range map[string]struct {
		in   string
		kind error
	}{
		"no blank line":   {ok + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n", ErrTruncated},
		"cut in a line":   {ok + "event: message_stop\ndata: {\"type\":\"mess", ErrTruncated},
		"no message_stop": {ok, ErrTruncated},
		"bad JSON":        {"event: x\ndata: {nope}\n\n", ErrMalformed},
		"huge line":       {"data: " + strings.Repeat("a", 200) + "\n\n", ErrTooLarge},
	} {
		_, err := io.ReadAll(NewEncoder(strings.NewReader(c.in), EncoderOptions{MaxEvent: 100}))
		var e *Error
		if !errors.Is(err, c.kind) || !errors.As(err, &e) {
			t.Errorf("%s: %v, want %v", name, err, c.kind)
		}
	}
	// CRLF and LF both work, and comments and unknown fields are skipped.
	crlf := strings.ReplaceAll(": comment\nid: 1\n"+ok+"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", "\n", "\r\n")
	if _, err := io.ReadAll(NewEncoder(strings.NewReader(crlf), EncoderOptions{})); err != nil {
		t.Fatalf("CRLF: %v", err)
	}
}

func TestDecoderErrors(t *testing.T) {
	done := frame.AppendDone(nil, frame.StopEndTurn, "")
	for name, c := range map[string]struct {
		in   []byte
		kind error
	}{
		"cut":         {frame.AppendText(frame.AppendMagic(nil), 0, []byte("hi")), ErrTruncated},
		"tokens":      {append(frame.AppendToken(frame.AppendMagic(nil), 1), done...), ErrMalformed},
		"stop unseen": {append(frame.AppendBlock(frame.AppendMagic(nil), 3, frame.BlockStop), done...), ErrMalformed},
		"bad deflate": {append(frame.AppendEvent(frame.AppendMagic(nil), frame.EventDeflate, []byte("x"), []byte{0xFF, 0xFF}), done...), ErrMalformed},
	} {
		_, err := io.ReadAll(NewDecoder(bytes.NewReader(c.in), DecoderOptions{}))
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", name, err, c.kind)
		}
	}
	// With a vocabulary, tokens are text.
	in := append(frame.AppendToken(frame.AppendMagic(nil), 1, 2), done...)
	out, err := io.ReadAll(NewDecoder(bytes.NewReader(in), DecoderOptions{Detokenize: func(dst []byte, ids []uint32) []byte {
		for _, id := range ids {
			dst = append(dst, 'a'+byte(id))
		}
		return dst
	}}))
	if err != nil || !bytes.Contains(out, []byte(`"text":"bc"`)) {
		t.Fatalf("detokenized: %v\n%s", err, out)
	}
}

func TestPadding(t *testing.T) {
	in := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	e := NewEncoder(strings.NewReader(in), EncoderOptions{Padding: 32})
	for {
		b, err := e.Next()
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
	recs := recordings(t)
	e := NewEncoder(nil, EncoderOptions{})
	d := NewDecoder(nil, DecoderOptions{})
	for name, in := range recs {
		want, _ := io.ReadAll(NewEncoder(bytes.NewReader(in), EncoderOptions{}))
		e.Reset(bytes.NewReader(in))
		got, err := io.ReadAll(e)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: a reset Encoder differs (%v)", name, err)
		}
		wantSSE, _ := io.ReadAll(NewDecoder(bytes.NewReader(want), DecoderOptions{}))
		d.Reset(bytes.NewReader(want))
		gotSSE, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(gotSSE, wantSSE) {
			t.Fatalf("%s: a reset Decoder differs (%v)", name, err)
		}
	}
}

// TestLoneCR: a lone CR ends a line, as the SSE standard says, so CR, LF
// and CRLF streams bridge to the same ANTH.
func TestLoneCR(t *testing.T) {
	lf := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	want, err := io.ReadAll(NewEncoder(strings.NewReader(lf), EncoderOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, eol := range []string{"\r", "\r\n"} {
		got, err := io.ReadAll(NewEncoder(strings.NewReader(strings.ReplaceAll(lf, "\n", eol)), EncoderOptions{}))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%q line ends: %v", eol, err)
		}
	}
}
