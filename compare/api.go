package compare

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/ssejson"
	"github.com/layer0/anth/messages"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// An api is a streaming API the comparison runs: its endpoint, its bridge
// (a gateway's, keeping its Decoders for reuse as anth proxy does, and a
// client's), how a Go client of its SSE reads the text, and what text and
// how many deltas a stream of it carries.
type api struct {
	path    string
	gateway bridge.API
	client  bridge.API
	readSSE func(body io.Reader) (reading, error)
	count   func(stream []byte) (deltas int, text string)
}

// messagesAPI is the Anthropic Messages API.
var messagesAPI = &api{
	path:    "/v1/messages",
	gateway: messages.API{Decoders: &messages.DecoderPool{}},
	client:  messages.API{},
	readSSE: readMessagesSSE,
	count:   countMessages,
}

// readMessagesSSE reads the Messages API's SSE as a Go client does:
// bufio.Scanner lines and encoding/json for each event.
func readMessagesSSE(body io.Reader) (reading, error) {
	var rd reading
	var text strings.Builder
	s := ssejson.NewScanner(body)
	for {
		err := s.Next()
		if err == io.EOF {
			rd.text = text.String()
			return rd, nil
		}
		if err != nil {
			return rd, err
		}
		if s.Name == "content_block_delta" {
			rd.deltas++
		}
		if _, t, ok := s.DeltaText(); ok {
			text.WriteString(t)
		}
	}
}

// countMessages counts a Messages stream's content_block_delta events and
// joins the text of its text deltas.
func countMessages(stream []byte) (int, string) {
	var n int
	var text strings.Builder
	for _, ev := range events(stream) {
		var e struct {
			Type  string `json:"type"`
			Delta struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"delta"`
		}
		if json.Unmarshal(eventData(ev), &e) != nil || e.Type != "content_block_delta" {
			continue
		}
		n++
		if e.Delta.Type == "text_delta" {
			text.WriteString(e.Delta.Text)
		}
	}
	return n, text.String()
}

// readANTH reads ANTH as a Go client does: anthclient.NewFrameReader with the
// API's bridge, then the frames.
func readANTH(resp *http.Response, a *api) (reading, error) {
	fr, err := anthclient.NewFrameReader(resp, a.client)
	if err != nil {
		return reading{}, err
	}
	var rd reading
	var text []byte
	for f, err := range fr.All() {
		if err != nil {
			return rd, err
		}
		switch f.Type {
		case frame.TypeText:
			_, t, _ := f.Text()
			text = append(text, t...)
			rd.deltas++
		case frame.TypeDelta:
			rd.deltas++
		}
	}
	rd.text = string(text)
	return rd, nil
}

// expectedError reports whether a stream is one that ends in an error
// event, which a client reads as an error.
func expectedError(stream []byte) bool {
	return bytes.Contains(stream, []byte("event: error")) || bytes.Contains(stream, []byte(`data: {"error"`))
}

// chatAPI is the OpenAI Chat Completions API.
var chatAPI = &api{
	path:    "/v1/chat/completions",
	gateway: chat.API{Decoders: &chat.DecoderPool{}},
	client:  chat.API{},
	readSSE: readChatSSE,
	count:   countChat,
}

// readChatSSE reads Chat Completions SSE as openai-go does: its ssestream
// decoder and encoding/json into openai.ChatCompletionChunk for each
// chunk, the path of client.Chat.Completions.NewStreaming.
func readChatSSE(body io.Reader) (reading, error) {
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(body)}
	s := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(resp), nil)
	defer s.Close()
	var rd reading
	var text strings.Builder
	for s.Next() {
		n, t := chunkDeltas(s.Current())
		rd.deltas += n
		text.WriteString(t)
	}
	rd.text = text.String()
	return rd, s.Err()
}

// chunkDeltas is what a chunk carries that the bridge makes a TEXT or DELTA
// frame of (SPEC.md §7b.1, §7b.2): the open field of its one choice, the
// first of content, refusal, reasoning_content, reasoning and a tool
// call's arguments that is a string not empty, else the first that is a
// string; and its text, if it is content or refusal.
func chunkDeltas(c openai.ChatCompletionChunk) (int, string) {
	if len(c.Choices) != 1 {
		return 0, ""
	}
	d := c.Choices[0].Delta
	type field struct {
		text   string
		isText bool
	}
	var fields []field
	if d.JSON.Content.Valid() {
		fields = append(fields, field{d.Content, true})
	}
	if d.JSON.Refusal.Valid() {
		fields = append(fields, field{d.Refusal, true})
	}
	for _, k := range []string{"reasoning_content", "reasoning"} {
		if f, ok := d.JSON.ExtraFields[k]; ok {
			var s string
			if raw := f.Raw(); strings.HasPrefix(raw, `"`) && json.Unmarshal([]byte(raw), &s) == nil {
				fields = append(fields, field{s, false})
			}
		}
	}
	if len(d.ToolCalls) == 1 && d.ToolCalls[0].Function.JSON.Arguments.Valid() {
		fields = append(fields, field{d.ToolCalls[0].Function.Arguments, false})
	}
	if len(fields) == 0 {
		return 0, ""
	}
	open := fields[0]
	for _, f := range fields {
		if f.text != "" {
			open = f
			break
		}
	}
	if !open.isText {
		return 1, ""
	}
	return 1, open.text
}

// countChat counts a Chat Completions stream's chunks that carry text, and
// joins it.
func countChat(stream []byte) (int, string) {
	rd, _ := readChatSSE(bytes.NewReader(stream))
	return rd.deltas, rd.text
}
