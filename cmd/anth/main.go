// Command anth shows and inspects ANTH streams.
//
//	anth [demo]          encode an embedded sample response as ANTH and as
//	                     SSE JSON, decode both, compare, print the frames
//	anth dump [file|-]   print one line per frame of an ANTH stream
//	anth encode [--from sse|text|raw] [file|-]
//	anth decode [--to sse|text|jsonl] [file|-]
//	anth stats FILE.sse  SSE and ANTH sizes of a recording
//	anth kv encode|apply|stats ...
//	                     KV cache deltas of raw KV dumps (anth kv for usage)
//
// Exit status is 1 when the input is bad and 2 when the command line is.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

const usage = `usage:
  anth [demo]          encode a sample response as ANTH and SSE, decode, compare
  anth dump [file|-]   print one line per frame of an ANTH stream (default stdin)
  anth encode [--from sse|text|raw] [file|-]   SSE, text or ANTH to ANTH
  anth decode [--to sse|text|jsonl] [file|-]   ANTH to SSE, text or JSON lines
  anth stats FILE.sse  SSE against ANTH sizes of a recording
  anth kv encode|apply|stats ...   KV cache deltas (anth kv prints their usage)
`

// errUsage marks command-line mistakes, which exit with status 2.
var errUsage = errors.New("usage")

func main() {
	err := run(os.Args[1:], os.Stdin, os.Stdout)
	switch {
	case err == nil:
	case errors.Is(err, errUsage):
		text := usage
		var u *usageError
		if errors.As(err, &u) {
			text = u.text
		}
		fmt.Fprint(os.Stderr, text)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "anth:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	cmd := "demo"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "demo":
		if len(args) != 0 {
			return errUsage
		}
		return demo(stdout)
	case "dump":
		if len(args) > 1 {
			return errUsage
		}
		in, name := stdin, "-"
		if len(args) == 1 && args[0] != "-" {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			in, name = f, args[0]
		}
		if err := dump(stdout, in); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	case "kv":
		return kv(args, stdin, stdout)
	case "encode":
		return encode(args, stdin, stdout)
	case "decode":
		return decode(args, stdin, stdout)
	case "stats":
		return stats(args, stdout)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return errUsage
}
