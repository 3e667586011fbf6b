package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
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
	for name, orig := range testdata.SSEAll(t) {
		t.Run(name, func(t *testing.T) {
			anth, err := io.ReadAll(messages.NewDecoder(bytes.NewReader(orig), messages.DecoderOptions{}))
			if err != nil {
				t.Fatalf("SSE to ANTH: %v", err)
			}
			var bridged bytes.Buffer
			enc := messages.NewEncoder(&bridged, messages.EncoderOptions{})
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
		fw := anthhttp.NewResponseWriter(w, r, messages.API{Encoder: messages.EncoderOptions{Model: "native-model"}}, frame.WriterOptions{})
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

// sdkStream streams a message from srv with the official SDK, through
// anthclient.Transport.Middleware when mw, with OpenTelemetry tracing on or off, and
// returns what it accumulated (as JSON values) or its error.
func sdkStream(t *testing.T, url string, mw, traced bool) (any, string) {
	t.Helper()
	opts := []option.RequestOption{option.WithBaseURL(url), option.WithAPIKey("test"), option.WithMaxRetries(0), option.WithOpenTelemetryTraces(traced)}
	if traced {
		opts = append(opts, option.WithTracerProvider(sdktrace.NewTracerProvider()))
	}
	if mw {
		opts = append(opts, option.WithMiddleware((&anthclient.Transport{API: messages.API{}}).Middleware))
	}
	client := anthropic.NewClient(opts...)
	stream := client.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))},
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

// TestSDKThroughMiddleware: the official Go SDK, through
// anthclient.Transport.Middleware, reads every recording served by anthhttp.Proxy as ANTH
// and accumulates the message it accumulates over plain SSE, with tracing
// on and off; the server saw the SDK ask for ANTH and anth-deflate.
func TestSDKThroughMiddleware(t *testing.T) {
	var body []byte
	var accepts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accepts = append(accepts, r.Header.Get("Accept")+" | "+r.Header.Get("Accept-Encoding"))
		anthhttp.Proxy(w, r, io.NopCloser(bytes.NewReader(body)), messages.API{}, anthhttp.ProxyOptions{})
	}))
	defer srv.Close()
	for name, rec := range testdata.SSEAll(t) {
		body = rec
		want, wantErr := sdkStream(t, srv.URL, false, false)
		for _, traced := range []bool{false, true} {
			accepts = accepts[:0]
			got, gotErr := sdkStream(t, srv.URL, true, traced)
			if len(accepts) != 1 || accepts[0] != anthclient.Accept+" | "+anthhttp.AcceptEncoding+", gzip" {
				t.Fatalf("%s: the SDK sent Accept %q through the middleware", name, accepts)
			}
			if !sameError(wantErr, gotErr) {
				t.Fatalf("%s (traced %v): SDK error over SSE %q, through ANTH %q", name, traced, wantErr, gotErr)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%s (traced %v): message differs (-SSE +ANTH):\n%s", name, traced, d)
			}
		}
	}
}

// TestSDKCutStream: a stream cut mid-way ends in an error through the
// middleware; over plain SSE the SDK may end quietly with half a message.
func TestSDKCutStream(t *testing.T) {
	rec := testdata.SSE(t)["layer0-basic.sse"]
	cut := rec[:bytes.Index(rec, []byte("event: content_block_stop"))]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !anthhttp.Negotiate(r) {
			w.Write(cut)
			return
		}
		// The server dies mid-stream, after two thirds of the frames, coded
		// as the client asked.
		fw := anthhttp.NewResponseWriter(w, r, messages.API{}, frame.WriterOptions{})
		fr := frame.NewReader(messages.NewDecoder(bytes.NewReader(rec), messages.DecoderOptions{}), frame.ReaderOptions{RawFrames: true})
		var fs []frame.Frame
		for f, err := range fr.All() {
			if err != nil {
				t.Error(err)
				return
			}
			fs = append(fs, frame.Frame{Type: f.Type, Payload: bytes.Clone(f.Payload)})
		}
		for _, f := range fs[:len(fs)*2/3] {
			fw.WriteFrame(f)
		}
	}))
	defer srv.Close()
	_, plainErr := sdkStream(t, srv.URL, false, false)
	_, err := sdkStream(t, srv.URL, true, false)
	if err == "" || !strings.Contains(err, "unexpected EOF") {
		t.Fatalf("a cut ANTH stream through the middleware: error %q, want one saying the stream ended early", err)
	}
	t.Logf("cut stream: over plain SSE the SDK reports %q; through the middleware %q", plainErr, err)
}

// TestSDKNativeThroughMiddleware: a server that writes ANTH natively with
// NewResponseWriter serves the SDK through the middleware.
func TestSDKNativeThroughMiddleware(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The model the request named: ANTH does not carry it, and the
		// middleware names the message after the request.
		fw := anthhttp.NewResponseWriter(w, r, messages.API{Encoder: messages.EncoderOptions{Model: "claude-test"}}, frame.WriterOptions{})
		for _, piece := range []string{"Hello", " from", " ANTH ", "你", "好"} {
			fw.WriteText(0, []byte(piece))
		}
		fw.WriteUsage(frame.Usage{InputTokens: 5, OutputTokens: 6})
		fw.WriteDone(frame.StopEndTurn, "")
	}))
	defer srv.Close()
	for _, traced := range []bool{false, true} {
		plain, perr := sdkStream(t, srv.URL, false, traced)
		got, err := sdkStream(t, srv.URL, true, traced)
		if perr != "" || err != "" || !cmp.Equal(plain, got) {
			t.Fatalf("traced %v: over SSE %v %q, through ANTH %v %q", traced, plain, perr, got, err)
		}
	}
}

// upstreamRecorder replays a recording for POST /v1/messages and keeps the
// bodies it receives.
type upstreamRecorder struct {
	mu     sync.Mutex
	bodies [][]byte
	body   []byte
}

func (u *upstreamRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.bodies = append(u.bodies, b)
	u.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Write(u.body)
}

func (u *upstreamRecorder) last() []byte {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.bodies[len(u.bodies)-1]
}

// richParams is a request with the fields a real client sends beyond the
// seed's: a system block with cache_control, tools and tool_choice, a
// tool_use and tool_result exchange, an image, stop sequences and
// metadata (TestSDKThroughGateway adds sampling parameters, thinking and an
// unknown field as JSON).
func richParams() anthropic.MessageNewParams {
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	return anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 2048,
		System: []anthropic.TextBlockParam{{Text: "Be brief.", CacheControl: anthropic.NewCacheControlEphemeralParam()}},
		Messages: []anthropic.MessageParam{
			anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in Paris?"), anthropic.NewImageBlockBase64("image/png", png)),
			anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_01", map[string]any{"city": "Paris"}, "get_weather")),
			anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_01", "18°C, cloudy", false)),
		},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name: "get_weather", Description: anthropic.String("Get the weather"),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}},
		}}},
		ToolChoice:    anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{}},
		StopSequences: []string{"\n\nHuman:"},
		Metadata:      anthropic.MetadataParam{UserID: anthropic.String("user-1234")},
	}
}

// TestSDKThroughGateway: the official SDK talks to the API through the
// gateway (anth proxy's handler) with JSON or ANTH requests and SSE or ANTH
// responses: the upstream receives the JSON the SDK sends when it talks to
// it directly, and the SDK accumulates the same message.
func TestSDKThroughGateway(t *testing.T) {
	up := &upstreamRecorder{}
	upstream := httptest.NewServer(up)
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	gw := httptest.NewServer(anthhttp.NewGateway(messages.API{}, anthhttp.GatewayOptions{Upstream: u}))
	defer gw.Close()
	stream := func(base string, opts ...option.RequestOption) (any, string) {
		client := anthropic.NewClient(append([]option.RequestOption{option.WithBaseURL(base), option.WithAPIKey("test"), option.WithMaxRetries(0)}, opts...)...)
		// Fields this SDK version has no parameter for, set as JSON: the
		// gateway carries them like any other.
		s := client.Messages.NewStreaming(context.Background(), richParams(),
			option.WithJSONSet("temperature", 0.7), option.WithJSONSet("top_k", 40), option.WithJSONSet("top_p", 0.9),
			option.WithJSONSet("thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}),
			option.WithJSONSet("future_field", map[string]any{"n": json.Number("12345678901234567890")}))
		defer s.Close()
		var msg anthropic.Message
		for s.Next() {
			if err := msg.Accumulate(s.Current()); err != nil {
				return nil, err.Error()
			}
		}
		if err := s.Err(); err != nil {
			return nil, err.Error()
		}
		var v any
		json.Unmarshal([]byte(msg.RawJSON()), &v)
		return v, ""
	}
	for name, rec := range testdata.SSEAll(t) {
		up.body = rec
		want, wantErr := stream(upstream.URL)
		direct := up.last()
		for _, c := range []struct {
			name string
			opts []option.RequestOption
		}{
			{"JSON request, SSE response", nil},
			{"JSON request, ANTH response", []option.RequestOption{option.WithMiddleware((&anthclient.Transport{API: messages.API{}}).Middleware)}},
			{"ANTH request, SSE response", []option.RequestOption{option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
				resp, err := (&anthclient.Transport{API: messages.API{}, SendANTH: true}).Middleware(r, next)
				if resp != nil && resp.Header.Get("Content-Type") == anthhttp.ContentType {
					t.Errorf("an ANTH response where the client asked for SSE")
				}
				return resp, err
			})}},
			{"ANTH request, ANTH response", []option.RequestOption{option.WithMiddleware((&anthclient.Transport{API: messages.API{}, SendANTH: true}).Middleware)}},
		} {
			got, gotErr := stream(gw.URL, c.opts...)
			if !sameError(wantErr, gotErr) {
				t.Fatalf("%s, %s: SDK error directly %q, through the gateway %q", name, c.name, wantErr, gotErr)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%s, %s: message differs (-direct +gateway):\n%s", name, c.name, d)
			}
			var a, b any
			json.Unmarshal(direct, &a)
			json.Unmarshal(up.last(), &b)
			if d := cmp.Diff(a, b); d != "" {
				t.Fatalf("%s, %s: the upstream got other JSON through the gateway (-direct +gateway):\n%s", name, c.name, d)
			}
		}
	}
}
