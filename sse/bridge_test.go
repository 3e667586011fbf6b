package sse

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

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
		for _, ev := range scanEvents(t, out) {
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

func jsonValid(b []byte) bool {
	_, ok := jsonlex.DecodeNumbers(b)
	return ok && utf8.Valid(b)
}

// nativeStream draws a response a server writes natively: blocks of text,
// thinking and tool input cut at character boundaries, usage with its
// cache counts, and its DONE.
func nativeStream(t *rapid.T) []byte {
	b := frame.AppendMagic(nil)
	words := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "é", "你好", "😀", " ", "\n", `"`, "\\", "\u2028"}), 1, 8)
	blocks := rapid.IntRange(1, 3).Draw(t, "blocks")
	for i := range blocks {
		block := uint16(i)
		kind := frame.DeltaKind(rapid.IntRange(0, 2).Draw(t, "kind"))
		switch kind {
		case 0:
			if rapid.Bool().Draw(t, "explicit start") {
				b = frame.AppendBlock(b, block, frame.BlockStartText)
			}
		default:
			b = frame.AppendBlock(b, block, frame.BlockStartThinking)
		}
		for range rapid.IntRange(1, 5).Draw(t, "pieces") {
			text := []byte(strings.Join(words.Draw(t, "text"), ""))
			if kind == 0 {
				b = frame.AppendText(b, block, text)
			} else {
				b = frame.AppendDelta(b, block, kind, text)
			}
		}
		b = frame.AppendBlock(b, block, frame.BlockStop)
	}
	in := rapid.Uint32Range(0, 1e6).Draw(t, "input")
	u := frame.Usage{InputTokens: in, OutputTokens: rapid.Uint32Range(1, 1e6).Draw(t, "output")}
	if rapid.Bool().Draw(t, "cache") {
		c := frame.CacheUsage{CacheReadInputTokens: rapid.Uint32Range(0, 1e6).Draw(t, "read"), CacheCreationInputTokens: rapid.Uint32Range(0, 1e6).Draw(t, "made")}
		u.CacheHitRatio = frame.CacheHitRatio(uint64(c.CacheReadInputTokens), uint64(in)+uint64(c.CacheReadInputTokens)+uint64(c.CacheCreationInputTokens))
		b = frame.AppendUsage(b, u)
		b = frame.AppendCacheUsage(b, c)
	} else {
		b = frame.AppendUsage(b, u)
	}
	if rapid.Bool().Draw(t, "stop sequence") {
		return frame.AppendDone(b, frame.StopSequence, strings.Join(words.Draw(t, "seq"), ""))
	}
	return frame.AppendDone(b, frame.StopReason(rapid.IntRange(1, 7).Draw(t, "reason")), "")
}

// essential drops what SSE always carries and a native stream may leave
// out — the message_start EVENT, BLOCK frames — which SPEC.md §7a names.
func essential(fs []frame.Frame) []frame.Frame {
	var out []frame.Frame
	for _, f := range fs {
		if f.Type == frame.TypeBlock {
			continue
		}
		if ev, err := f.Event(); err == nil && string(ev.Name) == "message_start" {
			continue
		}
		out = append(out, f)
	}
	return out
}

// TestOneFrameSequence: the frames a client reads through NewFrameReader are
// the same over ANTH and over SSE, apart from what SSE cannot leave out:
// for responses a server writes natively (through NewResponseWriter), and
// for every recording (through Proxy).
func TestOneFrameSequence(t *testing.T) {
	var body []byte
	native := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fw := NewResponseWriter(w, r, ResponseOptions{})
		fr := frame.NewReader(bytes.NewReader(body))
		for f, err := range fr.All() {
			if err != nil {
				panic(err)
			}
			if err := fw.WriteFrame(f); err != nil {
				panic(err)
			}
		}
	}))
	defer native.Close()
	rapid.Check(t, func(rt *rapid.T) {
		body = nativeStream(rt)
		over := readBoth(t, native)
		if d := cmp.Diff(essential(over[0]), essential(over[1])); d != "" {
			rt.Fatalf("frames (-ANTH +SSE):\n%s", d)
		}
	})

	var recording []byte
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := Proxy(w, r, io.NopCloser(bytes.NewReader(recording)), DecoderOptions{}); err != nil {
			t.Error(err)
		}
	}))
	defer proxy.Close()
	for name, rec := range testdata.SSE(t) {
		recording = rec
		over := readBoth(t, proxy)
		if d := cmp.Diff(over[0], over[1]); d != "" {
			t.Errorf("%s: frames (-ANTH +SSE):\n%s", name, d)
		}
		if usage(over[0]) == nil && bytes.Contains(rec, []byte(`"output_tokens"`)) {
			t.Errorf("%s: no USAGE frame, though the stream reports usage", name)
		}
	}
}

// readBoth reads srv's response as ANTH and as SSE, through NewFrameReader.
func readBoth(t tb, srv *httptest.Server) [2][]frame.Frame {
	var over [2][]frame.Frame
	for i, accept := range []string{acceptANTH, "text/event-stream"} {
		req, _ := http.NewRequest("POST", srv.URL, nil)
		req.Header.Set("Accept", accept)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := readFrames(resp)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", accept, err)
		}
		over[i] = fs
	}
	return over
}

func usage(fs []frame.Frame) *frame.Usage {
	for _, f := range fs {
		if u, err := f.Usage(); err == nil {
			return &u
		}
	}
	return nil
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
			back, err := readFrames(&http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(sse))})
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
