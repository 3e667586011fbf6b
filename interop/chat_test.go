package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

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
	client := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
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
// testdata/chat, openai-go's ChatCompletionAccumulator builds the same
// completion, from as many chunks, with the same error, from the original
// SSE and from SSE → ANTH → SSE (issue 22, item 1).
func TestChatSDKOverBridge(t *testing.T) {
	recs := testdata.Chat(t)
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
