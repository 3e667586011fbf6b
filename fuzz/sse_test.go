package fuzz

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
)

const sseSeed = "event: message_start\ndata: {\"type\": \"message_start\", \"message\": {\"id\": \"m\"}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi \\u00e9\"}}\n\n" +
	"event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\"}}\r\n\r\n" +
	": keepalive\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// FuzzSSEDecoder bridges arbitrary bytes as SSE: no panic, an *messages.Error
// for bad input, and for good input the bridge reaches a fixed point after
// one round: SSE → ANTH → SSE → ANTH → SSE gives the same SSE twice.
func FuzzSSEDecoder(f *testing.F) {
	f.Add([]byte(sseSeed))
	f.Add([]byte("event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		s1, err := round(in)
		if err != nil {
			var e *messages.Error
			var fe *frame.Error
			if !errors.As(err, &e) && !errors.As(err, &fe) {
				t.Fatalf("error %v (%T), want *messages.Error", err, err)
			}
			return
		}
		s2, err := round(s1)
		if err != nil {
			t.Fatalf("bridged SSE does not bridge again: %v\n%s", err, s1)
		}
		if !bytes.Equal(s1, s2) {
			t.Fatalf("no fixed point:\n%s\n---\n%s", s1, s2)
		}
	})
}

func round(in []byte) ([]byte, error) {
	anth, err := io.ReadAll(messages.NewDecoder(bytes.NewReader(in), messages.DecoderOptions{MaxEvent: 1 << 16}))
	if err != nil {
		return nil, err
	}
	return encode(anth)
}

// encode writes ANTH as SSE with an Encoder, in three pieces.
func encode(anth []byte) ([]byte, error) {
	var out bytes.Buffer
	e := messages.NewEncoder(&out, messages.EncoderOptions{MaxEvent: 1 << 16})
	for _, piece := range [][]byte{anth[:len(anth)/3], anth[len(anth)/3 : len(anth)*2/3], anth[len(anth)*2/3:]} {
		if _, err := e.Write(piece); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), e.Close()
}

// FuzzSSEEncoder turns arbitrary bytes as ANTH into SSE: no panic, and what
// it produces is SSE the Decoder accepts.
func FuzzSSEEncoder(f *testing.F) {
	anth, _ := io.ReadAll(messages.NewDecoder(bytes.NewReader([]byte(sseSeed)), messages.DecoderOptions{}))
	f.Add(anth)
	f.Add(frame.AppendDone(frame.AppendText(frame.AppendMagic(nil), 0, []byte("x\xE4")), frame.StopEndTurn, ""))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := encode(in)
		if err != nil {
			return
		}
		if _, err := io.ReadAll(messages.NewDecoder(bytes.NewReader(out), messages.DecoderOptions{})); err != nil {
			t.Fatalf("encoded SSE is not accepted back: %v\n%q", err, out)
		}
	})
}
