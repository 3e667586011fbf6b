package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/ssejson"
	"github.com/layer0/anth/messages"
)

const demoUsage = `usage: anth demo
Encodes a sample response (English and Chinese text in 73 deltas, usage, a
stop reason) as ANTH and as the SSE JSON the API sends, decodes both, checks
that they agree, and prints the ANTH frames and the sizes of both.
`

func runDemo(args []string, _ io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("anth demo", flag.ContinueOnError)
	if err := parseFlags("demo", fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("demo", "unexpected argument %q", fs.Arg(0))
	}
	return demo(stdout)
}

// demo encodes the sample response both ways, decodes both, checks that
// they agree and prints the frames and the sizes.
func demo(w io.Writer) error {
	pieces := samplePieces(sampleText)
	resp := sampleResponse
	resp.Text = []string{sampleText}

	anth := encodeANTH(resp, pieces)
	sse := ssejson.AppendResponse(nil, resp, [][]string{pieces})

	fmt.Fprintf(w, "A sample response: %d bytes of English and Chinese text in %d deltas, usage, stop reason.\n\n", len(sampleText), len(pieces))
	fmt.Fprintf(w, "ANTH frames (offset, type, payload length, payload):\n")
	if err := dump(w, bytes.NewReader(anth), apiMessages, nil); err != nil {
		return fmt.Errorf("dump of the demo's own stream: %w", err)
	}

	fromANTH, err := decodeANTH(bytes.NewReader(anth))
	if err != nil {
		return fmt.Errorf("decoding ANTH: %w", err)
	}
	fromSSE, err := ssejson.Decode(bytes.NewReader(sse))
	if err != nil {
		return fmt.Errorf("decoding SSE: %w", err)
	}
	// ANTH names the model in the request and leaves the message id to the
	// transport; everything else must match.
	fromSSE.ID, fromSSE.Model = "", ""
	if !reflect.DeepEqual(fromSSE, fromANTH) {
		return fmt.Errorf("ANTH and SSE decode differently:\nSSE:  %+v\nANTH: %+v", fromSSE, fromANTH)
	}
	if fromANTH.Text[0] != sampleText {
		return fmt.Errorf("decoded text differs from the sample")
	}

	n := float64(len(pieces))
	fmt.Fprintf(w, "\nSizes of the same response:\n")
	fmt.Fprintf(w, "  SSE + JSON  %6d bytes  %6.1f bytes per text delta\n", len(sse), float64(len(sse))/n)
	fmt.Fprintf(w, "  ANTH        %6d bytes  %6.1f bytes per text delta\n", len(anth), float64(len(anth))/n)
	fmt.Fprintf(w, "  ANTH is %.3fx the size of SSE (%.1fx smaller)\n\n", float64(len(anth))/float64(len(sse)), float64(len(sse))/float64(len(anth)))
	fmt.Fprintf(w, "Check: ANTH and SSE decode to the same response (text %d bytes, usage %d in / %d out, %d cached, stop %s).\n",
		len(fromANTH.Text[0]), fromANTH.InputTokens, fromANTH.OutputTokens, fromANTH.CacheRead, fromANTH.StopReason)
	return nil
}

func encodeANTH(r ssejson.Response, pieces []string) []byte {
	var b bytes.Buffer
	w := frame.NewWriter(&b, frame.WriterOptions{})
	for _, p := range pieces {
		_ = w.WriteText(0, []byte(p))
	}
	total := uint64(r.InputTokens + r.CacheRead + r.CacheCreation)
	_ = w.WriteUsage(frame.Usage{
		InputTokens:   uint32(r.InputTokens),
		OutputTokens:  uint32(r.OutputTokens),
		CacheHitRatio: frame.CacheHitRatio(uint64(r.CacheRead), total),
	})
	_ = w.WriteCacheUsage(frame.CacheUsage{CacheReadInputTokens: uint32(r.CacheRead), CacheCreationInputTokens: uint32(r.CacheCreation)})
	reason, _ := messages.ParseStopReason(r.StopReason)
	_ = w.WriteDone(reason, r.StopSequence)
	_ = w.Flush() // a bytes.Buffer does not fail
	return b.Bytes()
}

func decodeANTH(in io.Reader) (ssejson.Response, error) {
	var resp ssejson.Response
	var text []strings.Builder
	done := false
	for f, err := range frame.NewReader(in, frame.ReaderOptions{}).All() {
		if err != nil {
			return resp, err
		}
		switch f.Type {
		case frame.TypeText:
			block, t, _ := f.Text()
			for int(block) >= len(text) {
				text = append(text, strings.Builder{})
			}
			text[block].Write(t)
		case frame.TypeUsage:
			u, _ := f.Usage()
			resp.InputTokens, resp.OutputTokens = int(u.InputTokens), int(u.OutputTokens)
		case frame.TypeCacheUsage:
			u, _ := f.CacheUsage()
			resp.CacheRead, resp.CacheCreation = int(u.CacheReadInputTokens), int(u.CacheCreationInputTokens)
		case frame.TypeDone:
			reason, seq, _ := f.Done()
			resp.StopReason, resp.StopSequence = messages.StopReasonName(reason), string(seq)
			done = true
		}
	}
	if !done {
		return resp, io.ErrUnexpectedEOF
	}
	for i := range text {
		resp.Text = append(resp.Text, text[i].String())
	}
	return resp, nil
}
