package main

import (
	"flag"
	"io"

	"github.com/layer0/anth/request"
)

const requestUsage = `usage: anth request encode|decode [FILE|-]
encode: a Messages API request body, JSON, to ANTH on standard output (the seed
form when it can carry the request, else the extended form of SPEC.md §5.4).
decode: an ANTH request, either form, to its JSON on standard output.
`

func requestCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		return flag.ErrHelp
	}
	if len(args) == 0 || (args[0] != "encode" && args[0] != "decode") {
		return usageErr("request", "want encode or decode")
	}
	fs := flag.NewFlagSet("anth request "+args[0], flag.ContinueOnError)
	if err := parseFlags("request", fs, args[1:]); err != nil {
		return err
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
		out, err = request.AppendANTH(nil, body)
	} else {
		out, err = request.AppendJSON(nil, body)
	}
	if err != nil {
		return inFile(name, err)
	}
	_, err = stdout.Write(out)
	return err
}
