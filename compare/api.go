package compare

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/ssejson"
	"github.com/layer0/anth/messages"
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

// readANTH reads ANTH as a Go client does: anthhttp.NewFrameReader with the
// API's bridge, then the frames.
func readANTH(resp *http.Response, a *api) (reading, error) {
	fr, err := anthhttp.NewFrameReader(resp, a.client)
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
