package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/internal/testdata"
)

// accumulateChat serves body as a Chat Completions streaming response on
// 127.0.0.1 and returns the completion openai-go's
// ChatCompletionAccumulator builds from it, as a JSON value, the chunks'
// count, and the SDK's error.
func accumulateChat(t *testing.T, body []byte) (any, int, string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body)
	}))
	defer srv.Close()
	return chatStream(t, srv.URL)
}

// chatStream runs openai-go's streaming call against url, with the request
// options given, and accumulates the completion as accumulateChat does.
func chatStream(t *testing.T, url string, opts ...option.RequestOption) (any, int, string) {
	opts = append([]option.RequestOption{option.WithBaseURL(url), option.WithAPIKey("test"), option.WithMaxRetries(0)}, opts...)
	client := openai.NewClient(opts...)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	n := 0
	for stream.Next() {
		n++
		acc.AddChunk(stream.Current())
	}
	errText := ""
	if err := stream.Err(); err != nil {
		errText = err.Error()
	}
	js, err := json.Marshal(acc.ChatCompletion)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		t.Fatalf("SDK completion JSON: %v", err)
	}
	return v, n, errText
}

// TestChatSDKOverBridge: for every Chat Completions stream of
// testdata/chat and testdata/chat-more, openai-go's ChatCompletionAccumulator builds the same
// completion, from as many chunks, with the same error, from the original
// SSE and from SSE → ANTH → SSE (issue 22, item 1).
func TestChatSDKOverBridge(t *testing.T) {
	recs := testdata.ChatAll(t)
	var names []string
	for n := range recs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		orig := recs[name]
		t.Run(name, func(t *testing.T) {
			anth, err := io.ReadAll(chat.NewDecoder(bytes.NewReader(orig), chat.DecoderOptions{}))
			if err != nil {
				t.Fatalf("SSE to ANTH: %v", err)
			}
			var bridged bytes.Buffer
			enc := chat.NewEncoder(&bridged, chat.EncoderOptions{})
			if _, err := enc.Write(anth); err != nil || enc.Close() != nil {
				t.Fatalf("ANTH to SSE: %v", err)
			}
			want, wantN, wantErr := accumulateChat(t, orig)
			got, gotN, gotErr := accumulateChat(t, bridged.Bytes())
			if wantErr != gotErr || wantN != gotN {
				t.Fatalf("SDK: original %d chunks, error %q; bridged %d, %q", wantN, wantErr, gotN, gotErr)
			}
			if wantN == 0 {
				t.Fatalf("the SDK read no chunk of the original")
			}
			if m, _ := want.(map[string]any); wantErr == "" && (m == nil || len(m["choices"].([]any)) == 0 || m["id"] == "") {
				t.Fatalf("the SDK accumulated no completion: %v", want)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("accumulated completion differs (-original +bridged):\n%s", d)
			}
			t.Logf("%d chunks, SSE %d B, ANTH %d B, error %q", wantN, len(orig), len(anth), wantErr)
		})
	}
}

// TestChatSDKThroughMiddleware: openai-go, through anthclient.Transport's
// middleware with chat.API, reads every stream of testdata/chat and
// testdata/chat-more served by anthhttp.Proxy as anth-deflate (with the
// chat dictionary) and accumulates the completion it accumulates over
// plain SSE; the server saw it ask for ANTH.
func TestChatSDKThroughMiddleware(t *testing.T) {
	var body []byte
	var accepts []string
	var mu sync.Mutex
	var coding string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accepts = append(accepts, r.Header.Get("Accept")+" | "+r.Header.Get("Accept-Encoding"))
		anthhttp.Proxy(&headerSpy{ResponseWriter: w, mu: &mu, coding: &coding}, r, io.NopCloser(bytes.NewReader(body)), chat.API{}, anthhttp.ProxyOptions{})
	}))
	defer srv.Close()
	recs := testdata.ChatAll(t)
	var names []string
	for n := range recs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		body = recs[name]
		// openai-go's base URL ends in /v1/, as the API's does, so that the
		// path is chat.API's, /v1/chat/completions.
		want, wantN, wantErr := chatStream(t, srv.URL+"/v1/")
		accepts = accepts[:0]
		got, gotN, gotErr := chatStream(t, srv.URL+"/v1/", option.WithMiddleware((&anthclient.Transport{API: chat.API{}}).Middleware))
		if len(accepts) != 1 || accepts[0] != anthclient.Accept+" | "+anthhttp.AcceptEncoding+", gzip" {
			t.Fatalf("%s: the SDK sent Accept %q through the middleware", name, accepts)
		}
		mu.Lock()
		c := coding
		coding = ""
		mu.Unlock()
		if c != "anth-deflate" {
			t.Fatalf("%s: the response came with Content-Encoding %q, not anth-deflate", name, c)
		}
		if wantN == 0 || wantN != gotN || wantErr != gotErr {
			t.Fatalf("%s: over SSE %d chunks, error %q; through ANTH %d, %q", name, wantN, wantErr, gotN, gotErr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%s: completion differs (-SSE +ANTH):\n%s", name, d)
		}
	}
}

// headerSpy notes the Content-Encoding a handler's response goes out with,
// when its header is written: before the client can have read it.
type headerSpy struct {
	http.ResponseWriter
	mu     *sync.Mutex
	coding *string
	done   bool
}

func (h *headerSpy) WriteHeader(code int) {
	if !h.done {
		h.done = true
		h.mu.Lock()
		*h.coding = h.Header().Get("Content-Encoding")
		h.mu.Unlock()
	}
	h.ResponseWriter.WriteHeader(code)
}

func (h *headerSpy) Write(p []byte) (int, error) {
	if !h.done {
		h.WriteHeader(http.StatusOK)
	}
	return h.ResponseWriter.Write(p)
}

func (h *headerSpy) Flush() {
	if !h.done {
		h.WriteHeader(http.StatusOK)
	}
	h.ResponseWriter.(http.Flusher).Flush()
}

func (h *headerSpy) Unwrap() http.ResponseWriter { return h.ResponseWriter }
