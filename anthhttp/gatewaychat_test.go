package anthhttp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/request"
)

// chatUpstream is an OpenAI-compatible server stand-in (vLLM, llama.cpp,
// Ollama…): POST /v1/chat/completions answers with the stream named by the
// request's "model" from its streams, /v1/models with a list; it records
// the bodies it gets.
type chatUpstream struct {
	mu      sync.Mutex
	bodies  [][]byte
	streams map[string][]byte
}

func (u *chatUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.bodies = append(u.bodies, body)
	u.mu.Unlock()
	switch r.URL.Path {
	case "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	case "/v1/chat/completions":
		name := string(bytes.TrimSuffix(bytes.TrimPrefix(fieldOf(body, "model"), []byte(`"`)), []byte(`"`)))
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for _, ev := range bytes.SplitAfter(u.streams[name], []byte("\n\n")) {
			w.Write(ev)
			rc.Flush()
		}
	default:
		http.NotFound(w, r)
	}
}

func fieldOf(body []byte, key string) []byte {
	i := bytes.Index(body, []byte(`"`+key+`":`))
	if i < 0 {
		return nil
	}
	rest := body[i+len(key)+3:]
	end := bytes.IndexAny(rest, ",}")
	return rest[:end]
}

// TestGatewayChat: one gateway serves both APIs at their paths (issue 22,
// item 3): a Chat Completions request, JSON or ANTH (SPEC §5.5), goes
// upstream as the same JSON, and every recording of testdata/chat and
// testdata/chat-more comes back as the ANTH chat.Decoder makes of it
// (plain and anth-deflate, the chat dictionary's DICTID), or as the
// upstream's SSE, event for event; other paths pass through.
func TestGatewayChat(t *testing.T) {
	up := &chatUpstream{streams: map[string][]byte{}}
	recs := testdata.ChatAll(t)
	for name, s := range recs {
		up.streams[name] = s
	}
	upstream := httptest.NewServer(up)
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	gw := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u}, chat.API{}))
	defer gw.Close()

	for name, rec := range recs {
		body := []byte(`{"model":"` + name + `","messages":[{"role":"user","content":"Hi"}],"stream":true}`)
		want, err := io.ReadAll(chat.NewDecoder(bytes.NewReader(rec), chat.DecoderOptions{}))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// In anth-deflate, EVENT data travels raw (SPEC.md §11.2).
		wantRaw, _ := io.ReadAll(chat.NewDecoder(bytes.NewReader(rec), chat.DecoderOptions{RawEvents: true, RandomPad: true}))
		for _, c := range []struct{ ct, accept, encoding string }{
			{"application/json", anthclient.Accept, ""},
			{ContentType, anthclient.Accept, ""},
			{"application/json", anthclient.Accept, AcceptEncoding},
			{"application/json", "text/event-stream", ""},
		} {
			reqBody := body
			if c.ct == ContentType {
				if reqBody, err = request.AppendChatANTH(nil, body); err != nil {
					t.Fatal(err)
				}
			}
			req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", bytes.NewReader(reqBody))
			req.Header.Set("Content-Type", c.ct)
			req.Header.Set("Accept", c.accept)
			if c.encoding != "" {
				req.Header.Set("Accept-Encoding", c.encoding)
			}
			resp, err := gw.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			if c.accept == anthclient.Accept {
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, ContentType) {
					t.Fatalf("%s, %+v: Content-Type %q: the stream did not come as ANTH", name, c, ct)
				}
				fr, err := anthclient.NewFrameReader(resp, chat.API{})
				if err != nil {
					t.Fatalf("%s, %+v: %v", name, c, err)
				}
				for f, err := range fr.All() {
					if err != nil {
						t.Fatalf("%s, %+v: %v", name, c, err)
					}
					got = append(append(got, byte(f.Type)), f.Payload...)
				}
				w := framesOf(t, want)
				if c.encoding != "" {
					w = framesOf(t, wantRaw)
				}
				if !bytes.Equal(got, w) {
					t.Errorf("%s, %+v: the frames differ from chat.Decoder's (%d bytes, want %d)", name, c, len(got), len(w))
				}
			} else {
				got, _ = io.ReadAll(resp.Body)
				if g, w := testdata.EventsJSON(t, got), testdata.EventsJSON(t, rec); !equalEvents(g, w) {
					t.Errorf("%s: the SSE relayed differs from the upstream's", name)
				}
			}
			resp.Body.Close()
			up.mu.Lock()
			last := up.bodies[len(up.bodies)-1]
			up.mu.Unlock()
			if !bytes.Equal(last, body) {
				t.Errorf("%s, %+v: upstream got %s, want %s", name, c, last, body)
			}
		}
	}
	resp, err := gw.Client().Get(gw.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"object":"list"`) {
		t.Errorf("/v1/models passed through as %s", b)
	}
}

// framesOf is the frames of a response, type and payload, as the
// gateway's tests compare them.
func framesOf(t *testing.T, anth []byte) []byte {
	t.Helper()
	var out []byte
	for f, err := range frame.NewReader(bytes.NewReader(anth), frame.ReaderOptions{}).All() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, byte(f.Type)), f.Payload...)
	}
	return out
}

func equalEvents(a, b [][2]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGatewayChatNoDone: a server that sends no data: [DONE] (Writer's
// API) ends its stream with its bytes after the usage chunk; relayed as SSE
// it reaches the client unchanged, and as ANTH it ends in a DONE (SPEC.md
// §7b.3). Cut after a chunk of text, the same stream is reported: an error
// chunk after the upstream's bytes, an ERROR frame.
func TestGatewayChatNoDone(t *testing.T) {
	text := `data: {"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\n\n"
	whole := text + `data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
		`data: {"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}` + "\n\n"
	up := httptest.NewServer(&chatUpstream{streams: map[string][]byte{"whole": []byte(whole), "cut": []byte(text)}})
	defer up.Close()
	u, _ := url.Parse(up.URL)
	gw := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u}, chat.API{}))
	defer gw.Close()
	for _, model := range []string{"whole", "cut"} {
		for _, accept := range []string{"text/event-stream", anthclient.Accept} {
			req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(`{"model":"`+model+`","messages":[],"stream":true}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", accept)
			resp, err := gw.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if accept == "text/event-stream" {
				rest, ok := bytes.CutPrefix(body, []byte(map[string]string{"whole": whole, "cut": text}[model]))
				switch {
				case !ok:
					t.Errorf("%s, SSE: the upstream's events did not come unchanged: %q", model, body)
				case model == "whole" && len(rest) > 0:
					t.Errorf("%s, SSE: %q after the upstream's stream, which was whole", model, rest)
				case model == "cut" && !bytes.Contains(rest, []byte(`"error"`)):
					t.Errorf("%s, SSE: the cut stream ends with %q, no error", model, rest)
				}
				continue
			}
			var last frame.Type
			for f, err := range frame.NewReader(bytes.NewReader(body), frame.ReaderOptions{}).All() {
				if err != nil {
					t.Fatalf("%s, ANTH: %v", model, err)
				}
				last = f.Type
			}
			if want := map[string]frame.Type{"whole": frame.TypeDone, "cut": frame.TypeError}[model]; last != want {
				t.Errorf("%s, ANTH: the stream ends in frame type %d, want %d", model, last, want)
			}
		}
	}
}
