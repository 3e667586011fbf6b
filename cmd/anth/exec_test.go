package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// anthBin is the anth binary TestMain builds, once, for the tests that run
// it as a user does (runAnth).
var anthBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "anth-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	anthBin = filepath.Join(dir, "anth")
	if err := build(anthBin); err != nil {
		fmt.Fprintln(os.Stderr, "building anth:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	if old := os.Getenv("ANTH_TEST_BIN"); old != "" {
		anthBin = old // to check that a test fails on another build (an older commit's)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// build builds this package's binary to out with the go command that runs
// the tests (from PATH, or GOROOT's).
func build(out string) error {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		gocmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	cmd := exec.Command(gocmd, "build", "-buildvcs=false", "-o", out, ".")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// runAnth runs the built anth binary with args, stdin as its standard
// input, and returns what it wrote to standard output and standard error
// and its exit status. Only a failure to run it at all fails the test.
func runAnth(t *testing.T, stdin []byte, args ...string) (stdout, stderr []byte, exitCode int) {
	t.Helper()
	cmd := exec.Command(anthBin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	var exit *exec.ExitError
	switch err := cmd.Run(); {
	case err == nil:
	case errors.As(err, &exit):
		exitCode = exit.ExitCode()
	default:
		t.Fatalf("running anth %q: %v", args, err)
	}
	return out.Bytes(), errOut.Bytes(), exitCode
}
