package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/sse"
)

// accumulate serves body as a Messages API streaming response on
// 127.0.0.1 and returns the message the official SDK accumulates from it,
// as JSON values (so whitespace does not count), or the SDK's error.
func accumulate(t *testing.T, body []byte) (any, string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body)
	}))
	defer srv.Close()
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	stream := client.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))},
	})
	defer stream.Close()
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			return nil, "accumulate: " + err.Error()
		}
	}
	if err := stream.Err(); err != nil {
		return nil, "stream: " + err.Error()
	}
	var v any
	if raw := msg.RawJSON(); raw != "" {
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			t.Fatalf("SDK message JSON: %v", err)
		}
	}
	return v, ""
}

// TestSDKOverBridge: for every recording, the message the official SDK
// accumulates from the original SSE equals the one it accumulates from SSE
// → ANTH → SSE.
func TestSDKOverBridge(t *testing.T) {
	for name, orig := range testdata.SSE(t) {
		t.Run(name, func(t *testing.T) {
			anth, err := io.ReadAll(sse.NewDecoder(bytes.NewReader(orig), sse.DecoderOptions{}))
			if err != nil {
				t.Fatalf("SSE to ANTH: %v", err)
			}
			var bridged bytes.Buffer
			enc := sse.NewEncoder(&bridged, sse.EncoderOptions{})
			if _, err := enc.Write(anth); err != nil || enc.Close() != nil {
				t.Fatalf("ANTH to SSE: %v", err)
			}
			want, wantErr := accumulate(t, orig)
			got, gotErr := accumulate(t, bridged.Bytes())
			if !sameError(wantErr, gotErr) {
				t.Fatalf("SDK error: original %q, bridged %q", wantErr, gotErr)
			}
			if want == nil && wantErr == "" {
				t.Fatal("the SDK accumulated nothing from the original")
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("accumulated message differs (-original +bridged):\n%s", d)
			}
			t.Logf("SSE %d bytes, ANTH %d bytes (%.3fx); SDK error: %q", len(orig), len(anth), float64(len(anth))/float64(len(orig)), wantErr)
		})
	}
}

// sameError compares the SDK's errors by the API error they carry (as JSON
// values): the server's address and the JSON's whitespace differ.
func sameError(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	ia, ib := strings.IndexByte(a, '{'), strings.IndexByte(b, '{')
	if ia < 0 || ib < 0 {
		return false
	}
	var va, vb any
	if json.Unmarshal([]byte(a[ia:]), &va) != nil || json.Unmarshal([]byte(b[ib:]), &vb) != nil {
		return false
	}
	return cmp.Equal(va, vb)
}

// TestSDKOverNativeANTH: a server that speaks only ANTH, served to the SDK
// through the bridge, gives the SDK a normal message.
func TestSDKOverNativeANTH(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fw := sse.NewResponseWriter(w, r, sse.EncoderOptions{Model: "native-model"})
		for _, piece := range []string{"Hello", " from", " ANTH ", "你好"} {
			fw.WriteText(0, []byte(piece))
		}
		fw.WriteDone(1, "") // end_turn
		fw.Flush()
	}))
	defer srv.Close()
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	stream := client.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{
		Model: "native-model", MaxTokens: 64,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))},
	})
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "Hello from ANTH 你好" || msg.StopReason != "end_turn" || msg.Model != "native-model" {
		t.Fatalf("SDK message: %+v", msg)
	}
}
