package anth_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/ssejson"
	"github.com/layer0/anth/sse"
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
// token IDs instead (TOKEN frames) would send.
func BenchmarkSSEBridge(b *testing.B) {
	in := sseResponse()
	anth, err := io.ReadAll(sse.NewEncoder(bytes.NewReader(in), sse.EncoderOptions{}))
	if err != nil {
		b.Fatal(err)
	}
	tokenMode := frame.AppendMagic(nil)
	for _, t := range benchTokens {
		tokenMode = frame.AppendToken(tokenMode, t.id)
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
		e := sse.NewEncoder(nil, sse.EncoderOptions{})
		r := bytes.NewReader(in)
		for b.Loop() {
			r.Reset(in)
			e.Reset(r) // one Encoder per worker, as a gateway keeps
			for {
				if _, err := e.Next(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
		sizes(b)
	})
	b.Run("anth-to-sse", func(b *testing.B) {
		b.SetBytes(int64(len(in))) // MB/s of SSE produced, comparable both ways
		b.ReportAllocs()
		d := sse.NewDecoder(nil, sse.DecoderOptions{})
		r := bytes.NewReader(anth)
		for b.Loop() {
			r.Reset(anth)
			d.Reset(r)
			for {
				if _, err := d.Next(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
		sizes(b)
	})
}
