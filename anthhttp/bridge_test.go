package anthhttp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

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
		fw := NewResponseWriter(w, r, messages.API{}, frame.WriterOptions{})
		fr := frame.NewReader(bytes.NewReader(body), frame.ReaderOptions{})
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
		if err := Proxy(w, r, io.NopCloser(bytes.NewReader(recording)), messages.API{}, ProxyOptions{}); err != nil {
			t.Error(err)
		}
	}))
	defer proxy.Close()
	for name, rec := range testdata.SSEAll(t) {
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
