package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/sse"
	"github.com/layer0/anth/utf8"
)

const bridgeUsage = `usage:
  anth encode [--from sse|text|raw] [file|-]   to ANTH on stdout
  anth decode [--to sse|text|jsonl] [file|-]   from ANTH to stdout
  anth stats FILE.sse                          SSE against ANTH sizes
`

// convertArgs parses the one format flag and the optional input file of
// anth encode and anth decode, and opens the input.
func convertArgs(cmd, name, def string, args []string, stdin io.Reader) (format string, in io.Reader, done func(), err error) {
	fs := flag.NewFlagSet("anth "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := fs.String(name, def, "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 1 {
		return "", nil, nil, usageErr(bridgeUsage)
	}
	in, done, err = openArg(fs.Arg(0), stdin)
	return *f, in, done, err
}

// encode converts SSE, plain text or ANTH (re-checked) to ANTH.
func encode(args []string, stdin io.Reader, stdout io.Writer) error {
	from, in, done, err := convertArgs("encode", "from", "sse", args, stdin)
	if err != nil {
		return err
	}
	defer done()
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	switch from {
	case "sse":
		_, err = io.Copy(out, sse.NewDecoder(in, sse.DecoderOptions{}))
	case "text":
		w := frame.NewWriter(out)
		buf := make([]byte, 4096)
		for err == nil {
			var n int
			n, err = in.Read(buf)
			if n > 0 {
				if werr := w.WriteText(0, buf[:n]); werr != nil {
					return werr
				}
			}
		}
		if err != io.EOF {
			return err
		}
		err = w.WriteDone(frame.StopEndTurn, "")
	case "raw":
		w := frame.NewWriter(out)
		r := frame.NewReader(in)
		var werr error
		r.OnSkip = func(f frame.Frame) {
			if werr == nil {
				werr = w.WriteFrame(f)
			}
		}
		for f, rerr := range r.All() {
			if rerr != nil {
				return rerr
			}
			if werr = w.WriteFrame(f); werr != nil {
				return werr
			}
		}
		if werr == nil {
			werr = w.Flush()
		}
		err = werr
	default:
		return usageErr(bridgeUsage)
	}
	return err
}

// decode converts ANTH to SSE, plain text or one JSON object per frame.
func decode(args []string, stdin io.Reader, stdout io.Writer) error {
	to, in, done, err := convertArgs("decode", "to", "sse", args, stdin)
	if err != nil {
		return err
	}
	defer done()
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	switch to {
	case "sse":
		enc := sse.NewEncoder(out, sse.EncoderOptions{})
		if _, err = io.Copy(enc, in); err != nil {
			return err
		}
		return enc.Close()
	case "text":
		// Text of every block, whole characters only, in stream order.
		decoders := map[uint16]*utf8.Decoder{}
		var b []byte
		for f, err := range frame.NewReader(in).All() {
			if err != nil {
				return err
			}
			if f.Type != frame.TypeText {
				continue
			}
			block, text, _ := f.Text()
			d := decoders[block]
			if d == nil {
				d = &utf8.Decoder{}
				decoders[block] = d
			}
			b = d.Append(b[:0], text)
			out.Write(b)
		}
		for _, d := range decoders {
			out.Write(d.Flush(nil))
		}
		return nil
	case "jsonl":
		r := frame.NewReader(in, frame.WithRawFrames())
		enc := json.NewEncoder(out)
		emit := func(f frame.Frame) {
			enc.Encode(map[string]any{"offset": r.Offset() - int64(f.Size()), "type": f.Type.String(), "length": len(f.Payload), "payload": describe(f)})
		}
		r.OnSkip = emit
		for f, err := range r.All() {
			if err != nil {
				return err
			}
			emit(f)
		}
		return nil
	}
	return usageErr(bridgeUsage)
}

// stats compares an SSE recording with its ANTH form.
func stats(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return usageErr(bridgeUsage)
	}
	in, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	anth, err := io.ReadAll(sse.NewDecoder(bytes.NewReader(in), sse.DecoderOptions{}))
	if err != nil {
		return err
	}
	deltas := 0
	for f, err := range frame.NewReader(bytes.NewReader(anth)).All() {
		if err != nil {
			return err
		}
		if f.Type == frame.TypeText || f.Type == frame.TypeDelta {
			deltas++
		}
	}
	fmt.Fprintf(stdout, "SSE   %7d bytes\nANTH  %7d bytes\nratio %.3fx (%.1fx smaller)\n", len(in), len(anth), float64(len(anth))/float64(len(in)), float64(len(in))/float64(len(anth)))
	if deltas > 0 {
		fmt.Fprintf(stdout, "%d deltas: %.1f bytes each as SSE, %.1f as ANTH (whole stream over deltas)\n", deltas, float64(len(in))/float64(deltas), float64(len(anth))/float64(deltas))
	}
	return nil
}
