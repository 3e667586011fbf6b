package anth_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/ssejson"
	"github.com/layer0/anth/messages"
)

// sseResponse is a 1,000-token response as the API streams it: one token
// per content_block_delta, with message_start, block start and stop,
// message_delta and message_stop.
func sseResponse() []byte {
	pieces := make([]string, len(benchTokens))
	for i, t := range benchTokens {
		pieces[i] = t.text
	}
	return ssejson.AppendResponse(nil, ssejson.Response{
		ID: "msg_01XFDUDYJgAACzvnptvVoYEL", Model: "claude-sonnet-4-5-20250929",
		InputTokens: 25, OutputTokens: len(pieces), StopReason: "end_turn",
	}, [][]string{pieces})
}

// BenchmarkSSEBridge converts the 1,000-token response SSE → ANTH and
// ANTH → SSE, and reports the sizes per token: the SSE, the bridged ANTH
// (TEXT frames and the message events), and what a server that sends
// token IDs instead (a short token frame each, as frame.Writer's
// WriteToken sends a token at a time) would send.
func BenchmarkSSEBridge(b *testing.B) {
	in := sseResponse()
	anth, err := io.ReadAll(messages.NewDecoder(bytes.NewReader(in), messages.DecoderOptions{}))
	if err != nil {
		b.Fatal(err)
	}
	tokenMode := frame.AppendMagic(nil)
	for _, t := range benchTokens {
		tokenMode = frame.AppendShortToken(tokenMode, t.id)
	}
	tokenMode = frame.AppendUsage(tokenMode, frame.Usage{InputTokens: 25, OutputTokens: streamTokens})
	tokenMode = frame.AppendDone(tokenMode, frame.StopEndTurn, "")
	sizes := func(b *testing.B) {
		b.ReportMetric(float64(len(in))/streamTokens, "SSE-B/token")
		b.ReportMetric(float64(len(anth))/streamTokens, "ANTH-text-B/token")
		b.ReportMetric(float64(len(tokenMode))/streamTokens, "ANTH-token-B/token")
	}
	b.Run("sse-to-anth", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		decodeLoop(b, in)
		sizes(b)
	})
	b.Run("anth-to-sse", func(b *testing.B) {
		b.SetBytes(int64(len(in))) // MB/s of SSE produced, comparable both ways
		b.ReportAllocs()
		e := messages.NewEncoder(io.Discard, messages.EncoderOptions{})
		for b.Loop() {
			e.Reset(io.Discard)
			for i := 0; i < len(anth); i += 512 { // as a network delivers it
				if _, err := e.Write(anth[i:min(i+512, len(anth))]); err != nil {
					b.Fatal(err)
				}
			}
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
		}
		sizes(b)
	})
}

// BenchmarkSSEEventCost converts one kind of event at a time, SSE → ANTH,
// in a stream of 1,000 of them: a text delta (the per-token path), and the
// events that do not map to a text frame: a ping, a message_start and a
// message_delta, which used to cost 20–40 times a text delta each; and a
// text delta whose keys come in another order than the API's, as from an
// upstream that re-encodes the JSON (issue 26: it took encoding/json's
// path, at about 10 times the cost). Compare ns/event within the run.
func BenchmarkSSEEventCost(b *testing.B) {
	events := map[string]string{
		"text-delta":           `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" token"}}`,
		"text-delta-reordered": `{"index":0,"delta":{"text":" token","type":"text_delta"},"type":"content_block_delta"}`,
		"ping":                 `{"type": "ping"}`,
		"message_start":        `{"type":"message_start","message":{"model":"claude-3-7-sonnet-20250219","id":"msg_01H1pwRRkQxKbUGKi785gT4M","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":397,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":2,"service_tier":"standard"}}}`,
		"message_delta":        `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":89}}`,
	}
	for _, name := range []string{"text-delta", "text-delta-reordered", "ping", "message_start", "message_delta"} {
		ev := "event: " + name + "\ndata: " + events[name] + "\n\n"
		if strings.HasPrefix(name, "text-delta") {
			ev = "event: content_block_delta\ndata: " + events[name] + "\n\n"
		}
		var in []byte
		for i := range 1000 {
			// Each message_start has its own id, as each stream's does.
			in = append(in, strings.Replace(ev, "msg_01H1pwRRkQxKbUGKi785gT4M", fmt.Sprintf("msg_01H1pwRRkQxKbUGKi7%06d", i), 1)...)
		}
		in = append(in, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"...)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			decodeLoop(b, in)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/event")
		})
	}
}

// decodeLoop converts in, SSE, to ANTH b.N times with one Decoder, reset
// for each, as a gateway keeps one per worker.
func decodeLoop(b *testing.B, in []byte) {
	d := messages.NewDecoder(nil, messages.DecoderOptions{})
	r := bytes.NewReader(in)
	for b.Loop() {
		r.Reset(in)
		d.Reset(r)
		for {
			if _, err := d.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
