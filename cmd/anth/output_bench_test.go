package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/layer0/anth/frame"
)

// BenchmarkDecodeTextOutput: anth decode --to text of 2,000 text deltas of a
// few bytes each (a long answer, token by token) to a pipe,
// flushed after each frame (what anth does for a pipe or terminal) against
// batched in 4 KiB writes (what it does for a regular file), in the same run.
func BenchmarkDecodeTextOutput(b *testing.B) {
	anth := frame.AppendMagic(nil)
	for range 2000 {
		anth = frame.AppendText(anth, 0, []byte(" token"))
	}
	anth = frame.AppendDone(anth, frame.StopEndTurn, "")
	for _, c := range []struct {
		name   string
		stream bool
	}{{"batched", false}, {"per-frame", true}} {
		b.Run(c.name, func(b *testing.B) {
			pr, pw, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			go io.Copy(io.Discard, pr)
			defer pr.Close()
			defer pw.Close()
			out := &output{Writer: bufio.NewWriter(outputWriter{pw}), stream: c.stream}
			b.SetBytes(int64(len(anth)))
			b.ReportAllocs()
			for b.Loop() {
				if err := decodeText(out, frame.NewReader(bytes.NewReader(anth), frame.ReaderOptions{}), apiMessages, nil); err != nil {
					b.Fatal(err)
				}
				out.Flush()
			}
		})
	}
}
