package main

import (
	"flag"
	"io"

	"github.com/layer0/anth/request"
)

const requestUsage = `usage: anth request encode|decode [--api messages|chat] [FILE|-]
encode: a request body, JSON, to ANTH on standard output: a Messages API
request in the seed form when it can carry the request, else the extended form
of SPEC.md §5.4; a Chat Completions request (--api chat) as §5.5's.
decode: an ANTH request of the API named to its JSON on standard output; a
request of the other API is refused.
  --api messages|chat   the request's API (default messages)
`

func requestCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		return flag.ErrHelp
	}
	if len(args) == 0 || (args[0] != "encode" && args[0] != "decode") {
		return usageErr("request", "want encode or decode")
	}
	fs := flag.NewFlagSet("anth request "+args[0], flag.ContinueOnError)
	api := fs.String("api", "messages", "")
	if err := parseFlags("request", fs, args[1:]); err != nil {
		return err
	}
	toANTH, toJSON := request.AppendANTH, request.AppendJSON
	switch *api {
	case "messages":
	case "chat":
		toANTH, toJSON = request.AppendChatANTH, request.AppendChatJSON
	default:
		return usageErr("request", "--api %q: want messages or chat", *api)
	}
	if fs.NArg() > 1 {
		return usageErr("request", "unexpected argument %q", fs.Arg(1))
	}
	in, name, done, err := openArg(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	defer done()
	body, err := io.ReadAll(io.LimitReader(in, 32<<20+1))
	if err != nil {
		return inFile(name, err)
	}
	var out []byte
	if args[0] == "encode" {
		out, err = toANTH(nil, body)
	} else {
		out, err = toJSON(nil, body)
	}
	if err != nil {
		return inFile(name, err)
	}
	_, err = stdout.Write(out)
	return err
}
