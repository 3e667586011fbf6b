// Package ssejson writes and reads Anthropic Messages API streams as
// Server-Sent Events with JSON data, the way servers and the official SDKs
// do: encoding/json for each event, line scanning to split them. It is the
// baseline that the demo and the benchmarks set ANTH against, not a bridge
// (that is package messages' job): it models only text responses.
package ssejson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Response is a text response as a client accumulates it.
type Response struct {
	ID, Model                 string
	Text                      []string // one entry per content block
	InputTokens, OutputTokens int
	CacheRead, CacheCreation  int
	StopReason, StopSequence  string
}

type usage struct {
	InputTokens   int `json:"input_tokens,omitempty"`
	CacheCreation int `json:"cache_creation_input_tokens,omitempty"`
	CacheRead     int `json:"cache_read_input_tokens,omitempty"`
	OutputTokens  int `json:"output_tokens"`
}

type message struct {
	ID           string   `json:"id"`
	Type         string   `json:"type"`
	Role         string   `json:"role"`
	Content      []string `json:"content"`
	Model        string   `json:"model"`
	StopReason   *string  `json:"stop_reason"`
	StopSequence *string  `json:"stop_sequence"`
	Usage        usage    `json:"usage"`
}

type delta struct {
	Type         string  `json:"type,omitempty"`
	Text         *string `json:"text,omitempty"`
	StopReason   *string `json:"stop_reason,omitempty"`
	StopSequence *string `json:"stop_sequence,omitempty"`
}

type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// event is every event's fields in one struct, as a hand-written client
// decodes them.
type event struct {
	Type         string   `json:"type"`
	Message      *message `json:"message,omitempty"`
	Index        *int     `json:"index,omitempty"`
	ContentBlock *block   `json:"content_block,omitempty"`
	Delta        *delta   `json:"delta,omitempty"`
	Usage        *usage   `json:"usage,omitempty"`
}

// AppendEvent appends one SSE event whose data is v encoded as JSON.
func AppendEvent(b []byte, name string, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // the event types above always encode
	}
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// AppendDelta appends a content_block_delta event carrying text.
func AppendDelta(b []byte, index int, text string) []byte {
	return AppendEvent(b, "content_block_delta", event{Type: "content_block_delta", Index: &index, Delta: &delta{Type: "text_delta", Text: &text}})
}

// AppendResponse appends a whole response: message_start, one text block
// per piece list, message_delta and message_stop. pieces[i] are block i's
// text deltas.
func AppendResponse(b []byte, r Response, pieces [][]string) []byte {
	b = AppendEvent(b, "message_start", event{Type: "message_start", Message: &message{
		ID: r.ID, Type: "message", Role: "assistant", Content: []string{}, Model: r.Model,
		Usage: usage{InputTokens: r.InputTokens, CacheCreation: r.CacheCreation, CacheRead: r.CacheRead, OutputTokens: 1},
	}})
	for i, ps := range pieces {
		b = AppendEvent(b, "content_block_start", event{Type: "content_block_start", Index: &i, ContentBlock: &block{Type: "text"}})
		for _, p := range ps {
			b = AppendDelta(b, i, p)
		}
		b = AppendEvent(b, "content_block_stop", event{Type: "content_block_stop", Index: &i})
	}
	d := &delta{StopReason: &r.StopReason}
	if r.StopSequence != "" {
		d.StopSequence = &r.StopSequence
	}
	b = AppendEvent(b, "message_delta", event{Type: "message_delta", Delta: d, Usage: &usage{OutputTokens: r.OutputTokens}})
	return AppendEvent(b, "message_stop", event{Type: "message_stop"})
}

// Scanner splits an SSE stream into events with bufio.Scanner, as the
// official SDKs' line decoders do.
type Scanner struct {
	s     *bufio.Scanner
	data  []byte
	event event
	Name  string // the current event's name
}

// NewScanner returns a Scanner reading from r.
func NewScanner(r io.Reader) *Scanner {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), 1<<20)
	return &Scanner{s: s}
}

// Next reads and decodes the next event; it returns io.EOF at the end.
func (s *Scanner) Next() error {
	s.Name, s.data = "", s.data[:0]
	for s.s.Scan() {
		line := s.s.Bytes()
		switch {
		case len(line) == 0:
			if len(s.data) == 0 && s.Name == "" {
				continue
			}
			s.event = event{}
			return json.Unmarshal(s.data, &s.event)
		case bytes.HasPrefix(line, []byte("event:")):
			s.Name = string(bytes.TrimSpace(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			s.data = append(s.data, bytes.TrimPrefix(line[len("data:"):], []byte(" "))...)
		}
	}
	if err := s.s.Err(); err != nil {
		return err
	}
	if len(s.data) > 0 || s.Name != "" {
		return io.ErrUnexpectedEOF
	}
	return io.EOF
}

// DeltaText returns the text of the current event if it is a text delta.
func (s *Scanner) DeltaText() (index int, text string, ok bool) {
	e := &s.event
	if e.Type != "content_block_delta" || e.Delta == nil || e.Delta.Text == nil || e.Index == nil {
		return 0, "", false
	}
	return *e.Index, *e.Delta.Text, true
}

// Decode reads a whole response.
func Decode(r io.Reader) (Response, error) {
	var resp Response
	s := NewScanner(r)
	stopped := false
	for {
		err := s.Next()
		if err == io.EOF {
			if !stopped {
				return resp, io.ErrUnexpectedEOF
			}
			return resp, nil
		}
		if err != nil {
			return resp, err
		}
		e := &s.event
		switch e.Type {
		case "message_start":
			if e.Message == nil {
				return resp, fmt.Errorf("message_start without a message")
			}
			resp.ID, resp.Model = e.Message.ID, e.Message.Model
			resp.InputTokens = e.Message.Usage.InputTokens
			resp.CacheRead, resp.CacheCreation = e.Message.Usage.CacheRead, e.Message.Usage.CacheCreation
		case "content_block_delta":
			i, text, ok := s.DeltaText()
			if !ok || i < 0 || i > len(resp.Text) {
				return resp, fmt.Errorf("bad content_block_delta")
			}
			if i == len(resp.Text) {
				resp.Text = append(resp.Text, "")
			}
			resp.Text[i] += text
		case "message_delta":
			if e.Delta != nil && e.Delta.StopReason != nil {
				resp.StopReason = *e.Delta.StopReason
			}
			if e.Delta != nil && e.Delta.StopSequence != nil {
				resp.StopSequence = *e.Delta.StopSequence
			}
			if e.Usage != nil {
				resp.OutputTokens = e.Usage.OutputTokens
			}
		case "message_stop":
			stopped = true
		}
	}
}
