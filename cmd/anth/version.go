package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// printVersion writes what anth was built from: the module's version
// ("(devel)" for a build from a clone, a tag for go install …@vX), the
// version control revision and whether the tree had changes, and the Go
// release, all from the binary's build information.
func printVersion(w io.Writer) error {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		_, err := fmt.Fprintln(w, "anth (no build information)")
		return err
	}
	_, err := io.WriteString(w, versionLine(bi)+"\n")
	return err
}

// versionLine is the line anth --version prints for bi:
//
//	anth github.com/layer0/anth (devel) rev 1a2b3c4d5e6f (modified) go1.26.0
func versionLine(bi *debug.BuildInfo) string {
	s := "anth " + bi.Main.Path + " " + bi.Main.Version
	var rev, modified string
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			modified = kv.Value
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += " rev " + rev
		if modified == "true" {
			s += " (modified)"
		}
	} else {
		s += " (no VCS revision)"
	}
	return s + " " + bi.GoVersion
}
