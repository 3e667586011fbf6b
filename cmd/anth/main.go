// Command anth shows and inspects ANTH streams, converts them to and from
// the Server-Sent Events of the Anthropic Messages API and of OpenAI's Chat
// Completions API (--api messages|chat; told from the input when not
// given), and makes and applies KV cache deltas.
//
//	anth demo            encode a sample response as ANTH and as SSE JSON,
//	                     decode both, compare, print the frames and sizes
//	anth --version       the module version and VCS revision anth was built from
//	anth dump [--api A] [--vocab FILE] [FILE|-]   print one line per frame of an ANTH stream
//	anth encode [--from sse|text|raw] [--api A] [FILE|-]   SSE, text or ANTH to ANTH
//	anth decode [--to sse|text|jsonl] [--api A] [--vocab FILE] [FILE|-]   ANTH to SSE, text or JSON lines
//	anth stats [--api A] [FILE|-]  SSE against ANTH sizes of an SSE recording
//	anth request encode|decode [--api A] [FILE|-]   a request body, JSON to ANTH and back
//	anth proxy --upstream URL [--listen ADDR]    the gateway: ANTH in front of both APIs
//	anth kv encode|apply|stats ...               KV cache deltas of raw KV dumps
//	anth vocab pack|hash FILE                    a vocabulary as a vocabulary file, or its hash
//
// Every command takes -h or --help. Output goes to standard output, errors
// to standard error, each once, naming the file and the byte offset. Exit
// status is 0 on success, 1 when the input is bad or the output cannot be
// written, and 2 when the command line is wrong.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const usage = `usage: anth COMMAND [ARGS]
  anth demo            encode a sample response as ANTH and SSE, decode both, compare
  anth dump [--vocab FILE] [FILE|-]   print one line per frame of an ANTH stream (default stdin)
  anth encode [--from sse|text|raw] [FILE|-]   SSE, text or ANTH to ANTH on stdout
  anth decode [--to sse|text|jsonl] [--vocab FILE] [FILE|-]   ANTH to SSE, text or JSON lines on stdout
  anth stats [--api A] [FILE|-]  SSE against ANTH sizes of an SSE recording
  anth request encode|decode [--api A] [FILE|-]   a request body, JSON to ANTH and back
  anth proxy --upstream URL [--listen ADDR]    the gateway: ANTH in front of both APIs
  anth kv encode|apply|stats ...   KV cache deltas (anth kv --help)
  anth vocab pack|hash FILE   a vocabulary as a vocabulary file, or its hash
  anth --version       the module version and VCS revision anth was built from
anth COMMAND --help prints a command's usage.
`

// commands are anth's commands, by name.
var commands = map[string]func(args []string, stdin io.Reader, stdout io.Writer) error{
	"demo":    runDemo,
	"dump":    runDump,
	"encode":  encode,
	"decode":  decode,
	"stats":   stats,
	"kv":      kv,
	"request": requestCmd,
	"proxy":   proxy,
	"vocab":   vocabCmd,
}

// usages are the commands' usage texts.
var usages = map[string]string{
	"demo":    demoUsage,
	"dump":    dumpUsage,
	"encode":  encodeUsage,
	"decode":  decodeUsage,
	"stats":   statsUsage,
	"kv":      kvUsage,
	"request": requestUsage,
	"proxy":   proxyUsage,
	"vocab":   vocabUsage,
}

// errUsage marks command-line mistakes, which exit with status 2.
var errUsage = errors.New("usage")

// usageError is a command-line mistake: what was wrong, and the usage of
// the command it was made in.
type usageError struct{ msg, text string }

func (u *usageError) Error() string        { return u.msg }
func (u *usageError) Is(target error) bool { return target == errUsage }

// usageErr is a usage error of command cmd that names the bad flag or
// value.
func usageErr(cmd, format string, a ...any) error {
	return &usageError{msg: "anth " + cmd + ": " + fmt.Sprintf(format, a...), text: usages[cmd]}
}

// parseFlags parses a command's flags. -h and --help give flag.ErrHelp,
// which prints the usage and exits 0; any other mistake names the flag.
func parseFlags(cmd string, fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if err != nil {
		return usageErr(cmd, "%v", err)
	}
	return nil
}

func main() {
	os.Exit(exit(run(os.Args[1:], os.Stdin, os.Stdout), os.Stdout, os.Stderr))
}

// exit reports err and returns the exit status.
func exit(err error, stdout, stderr io.Writer) int {
	var u *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		fmt.Fprintf(stderr, "%s\n%s", u.msg, u.text)
		return 2
	case errors.Is(err, errUsage):
		fmt.Fprint(stderr, usage)
		return 2
	case errors.Is(err, flag.ErrHelp):
		var h *helpError
		if errors.As(err, &h) {
			fmt.Fprint(stdout, h.text)
		}
		return 0
	}
	fmt.Fprintln(stderr, "anth:", userMessage(err))
	return 1
}

// pkgPrefixes are the prefixes the module's packages put on their errors'
// messages, which tell a Go caller which package failed and tell a user of
// the command nothing: the user wants the file, the offset and the fault.
var pkgPrefixes = []string{"frame: ", "request: ", "sse: ", "messages: ", "chat: ", "anthhttp: ", "deflate: ", "kvdelta: ", "tiling: ", "utf8: ", "vocab: "}

// userMessage is err's message without the packages' prefixes, where they
// start the message or a part of it ("stdin: frame: offset 3: …" reads
// "stdin: offset 3: …").
func userMessage(err error) string {
	msg := err.Error()
	for _, p := range pkgPrefixes {
		msg = strings.TrimPrefix(msg, p)
		msg = strings.ReplaceAll(msg, ": "+p, ": ")
	}
	return msg
}

// helpError asks for a command's usage to be printed, on standard output.
type helpError struct{ text string }

func (h *helpError) Error() string { return "help requested" }
func (h *helpError) Unwrap() error { return flag.ErrHelp }

// run runs the command of args, writing its output through a buffer whose
// final flush is checked: output that cannot be written is an error.
func run(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return errUsage // a first run shows what anth does; anth demo runs the demo
	}
	name, args := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return &helpError{usage}
	case "version", "-version", "--version":
		return printVersion(stdout)
	}
	cmd, ok := commands[name]
	if !ok {
		return &usageError{msg: "anth: unknown command " + quote(name), text: usage}
	}
	out := newOutput(stdout)
	err := cmd(args, stdin, out)
	if errors.Is(err, flag.ErrHelp) {
		return &helpError{usages[name]}
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	return err
}

// output is anth's standard output. It is buffered, and flushed after each
// frame or event a command writes (endFrame) when it is a pipe or a terminal,
// so a reader of `curl … | anth decode --to text` sees each delta as it
// arrives; to a regular file, where no one reads along, it is written in
// buffer-sized batches. Write errors come back as *outputError, which names
// standard output rather than the input.
type output struct {
	*bufio.Writer
	stream bool
}

// newOutput buffers w, streaming unless w is a regular file or not a file
// at all (a test's buffer).
func newOutput(w io.Writer) *output {
	stream := false
	if f, ok := w.(*os.File); ok {
		fi, err := f.Stat()
		stream = err != nil || !fi.Mode().IsRegular()
	}
	return &output{Writer: bufio.NewWriter(outputWriter{w}), stream: stream}
}

// endFrame marks the end of a frame or event: a streaming output flushes.
func (o *output) endFrame() error {
	if o.stream {
		return o.Flush()
	}
	return nil
}

// endFrame ends a frame or event written to w, if w is anth's output.
func endFrame(w io.Writer) error {
	if o, ok := w.(*output); ok {
		return o.endFrame()
	}
	return nil
}

// frameWriter writes to w and then ends a frame of out, which w writes to:
// for writers (frame.Writer, messages.Encoder, io.Copy from messages.Decoder) that
// hand over whole frames or events in one Write.
type frameWriter struct{ w, out io.Writer }

func (f frameWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil {
		err = endFrame(f.out)
	}
	return n, err
}

// outputWriter is standard output; its errors are *outputError.
type outputWriter struct{ w io.Writer }

func (o outputWriter) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil {
		err = &outputError{err}
	}
	return n, err
}

// outputError is an error writing standard output, which inFile does not
// blame on the input.
type outputError struct{ err error }

func (e *outputError) Error() string {
	return "writing standard output: " + strings.TrimPrefix(e.err.Error(), "write /dev/stdout: ")
}
func (e *outputError) Unwrap() error { return e.err }

func quote(s string) string { return fmt.Sprintf("%q", s) }

// openArg opens a file argument, or stdin for "" and "-", and returns it
// with the name errors give it.
func openArg(name string, stdin io.Reader) (io.Reader, string, func(), error) {
	if name == "" || name == "-" {
		return stdin, "stdin", func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, name, nil, err // *PathError: it names the file
	}
	return f, name, func() { f.Close() }, nil
}

// inFile labels an error about the input with the input's name.
func inFile(name string, err error) error {
	var out *outputError
	if err == nil || errors.Is(err, errUsage) || errors.As(err, &out) || strings.HasPrefix(err.Error(), name+": ") {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}
