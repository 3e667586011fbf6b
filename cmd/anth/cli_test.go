package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/layer0/anth/frame"
)

// TestHelp: every command takes --help and -h, prints its usage on
// standard output and exits 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"demo", "--help"}, {"dump", "-h"}, {"encode", "--help"}, {"decode", "--help"},
		{"stats", "--help"}, {"request", "--help"}, {"proxy", "-h"}, {"kv", "--help"}, {"kv", "encode", "--help"}, {"kv", "apply", "-h"}, {"kv", "stats", "--help"}} {
		out, errOut, code := runAnth(t, nil, args...)
		if code != 0 || !bytes.Contains(out, []byte("usage:")) && bytes.Contains(out, []byte("anth ")) || len(errOut) != 0 {
			t.Errorf("anth %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errOut)
		}
	}
}

// TestUsageMistakes: a mistake on the command line exits 2 and names the
// bad flag, value or argument, then gives the command's usage.
func TestUsageMistakes(t *testing.T) {
	for _, c := range []struct {
		args  []string
		names string
	}{
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"demo", "x"}, `unexpected argument "x"`},
		{[]string{"dump", "a", "b"}, `unexpected argument "b"`},
		{[]string{"dump", "--frob"}, "-frob"},
		{[]string{"encode", "--from", "xml"}, `--from "xml"`},
		{[]string{"decode", "--to", "xml"}, `--to "xml"`},
		{[]string{"decode", "--to"}, "-to"},
		{[]string{"stats"}, "want one FILE"},
		{[]string{"kv", "encode", "--dtype", "fp64"}, "--layers"},
		{[]string{"kv", "frob"}, `unknown subcommand "frob"`},
		{[]string{"proxy"}, "--upstream"},
		{[]string{"proxy", "--upstream", "ftp://x"}, "--upstream"},
		{[]string{"request", "frob"}, "want encode or decode"},
	} {
		out, errOut, code := runAnth(t, nil, c.args...)
		if code != 2 || len(out) != 0 || !bytes.Contains(errOut, []byte(c.names)) || !bytes.Contains(errOut, []byte("usage:")) {
			t.Errorf("anth %s: exit %d, stderr %q; want exit 2 naming %s", strings.Join(c.args, " "), code, errOut, c.names)
		}
	}
}

// TestInputErrors: bad input exits 1 with one line that names the file and
// the offset once.
func TestInputErrors(t *testing.T) {
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.bin")
	resp := frame.AppendDone(frame.AppendText(frame.AppendMagic(nil), 0, []byte("hello")), frame.StopEndTurn, "")
	os.WriteFile(cut, resp[:len(resp)-2], 0o644)
	for _, c := range []struct {
		args   []string
		stdin  []byte
		wants  []string
		output string // what is written before the error
	}{
		{[]string{"dump", cut}, nil, []string{"anth: " + cut + ": ", "offset 16", "unexpected EOF"}, "TEXT"},
		{[]string{"decode", "--to", "text", cut}, nil, []string{"anth: " + cut + ": ", "offset 16"}, "hello"},
		{[]string{"decode", cut}, nil, []string{"anth: " + cut + ": ", "offset 16"}, "event: content_block_delta"},
		{[]string{"decode"}, resp[:len(resp)-2], []string{"anth: stdin: ", "offset 16"}, ""},
		{[]string{"encode"}, []byte("event: x\ndata: {nope}\n\n"), []string{"anth: stdin: ", "offset 0", "not JSON"}, ""},
		{[]string{"dump", filepath.Join(dir, "missing")}, nil, []string{"no such file"}, ""},
	} {
		out, errOut, code := runAnth(t, c.stdin, c.args...)
		msg := string(errOut)
		ok := code == 1 && strings.Count(msg, "\n") == 1 && strings.Count(msg, "anth:") == 1 && strings.Count(msg, "offset") <= 1
		for _, w := range c.wants {
			ok = ok && strings.Contains(msg, w)
		}
		if !ok || !bytes.Contains(out, []byte(c.output)) {
			t.Errorf("anth %s: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", strings.Join(c.args, " "), code, out, msg, c.wants)
		}
	}
}

// TestFailedResponse: decode --to text of a response that failed prints its
// text, then the error, and exits 1.
func TestFailedResponse(t *testing.T) {
	failed := frame.AppendError(frame.AppendText(frame.AppendMagic(nil), 0, []byte("partial")), frame.CodeOverloaded, "Overloaded")
	out, errOut, code := runAnth(t, failed, "decode", "--to", "text")
	if code != 1 || string(out) != "partial" || !bytes.Contains(errOut, []byte("529 overloaded_error: Overloaded")) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestOutputErrors: output that cannot be written (a full disk) exits 1.
func TestOutputErrors(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("this test needs /dev/full: %v", err)
	}
	defer full.Close()
	resp := frame.AppendDone(frame.AppendText(frame.AppendMagic(nil), 0, []byte("hello")), frame.StopEndTurn, "")
	for _, args := range [][]string{{"decode"}, {"decode", "--to", "text"}, {"dump"}, {"demo"}, {"encode", "--from", "raw"}} {
		cmd := exec.Command(anthBin, args...)
		cmd.Stdin = bytes.NewReader(resp)
		cmd.Stdout = full
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		err := cmd.Run()
		if err == nil || cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errOut.String(), "no space left") {
			t.Errorf("anth %s > /dev/full: exit %d, stderr %q; want exit 1", strings.Join(args, " "), cmd.ProcessState.ExitCode(), errOut.String())
		}
	}
}
