// Package testdata finds the repository's test data, in testdata/ at its
// root, for the tests of any package or nested module of the repository.
// A missing or altered file fails the test that asked for it: the
// repository tests itself, with nothing beside it.
package testdata

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// Path returns the path of a file or folder under testdata/.
func Path(elem ...string) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "testdata")
	return filepath.Join(append([]string{root}, elem...)...)
}

// SSE returns every SSE stream in testdata/sse by file name, each checked
// against that folder's SHA256SUMS.
func SSE(t testing.TB) map[string][]byte {
	t.Helper()
	return checked(t, "sse", func(name string) bool {
		return strings.HasSuffix(name, ".sse") || strings.HasSuffix(name, ".txt") && !strings.HasPrefix(name, "LICENSE")
	})
}

// SSEMore returns the Messages API streams of testdata/sse-more by file
// name, each checked against that folder's SHA256SUMS: responses of the
// API with its newer blocks (server tools, compaction, context editing),
// as vercel/ai's Anthropic provider tests replay them. They are kept
// apart from SSE's, whose sizes README.md and compare/RESULTS.md quote and
// whose text testdata/tokens tokenizes; the bridge's tests read both.
func SSEMore(t testing.TB) map[string][]byte {
	t.Helper()
	return checked(t, "sse-more", func(name string) bool { return strings.HasSuffix(name, ".sse") })
}

// SSEAll returns SSE's streams and SSEMore's, these under names that start
// with "sse-more/": every Messages API stream, for the tests of what the
// bridge carries (the figures are SSE's alone).
func SSEAll(t testing.TB) map[string][]byte {
	t.Helper()
	return joined(SSE(t), SSEMore(t), "sse-more/")
}

// Chat returns every Chat Completions stream in testdata/chat by file
// name, each checked against that folder's SHA256SUMS.
func Chat(t testing.TB) map[string][]byte {
	t.Helper()
	return checked(t, "chat", func(name string) bool { return strings.HasSuffix(name, ".sse") })
}

// ChatMore returns the Chat Completions streams of testdata/chat-more by
// file name, each checked against that folder's SHA256SUMS: responses of
// the OpenAI API as openai-python's tests replay them, and of other
// OpenAI-compatible servers as vercel/ai's provider tests do. They are
// kept apart from Chat's, whose text testdata/tokens tokenizes and whose
// sizes README.md and compare/RESULTS.md quote; the bridge's tests read
// both.
func ChatMore(t testing.TB) map[string][]byte {
	t.Helper()
	return checked(t, "chat-more", func(name string) bool { return strings.HasSuffix(name, ".sse") })
}

// ChatAll returns Chat's streams and ChatMore's, these under names that
// start with "chat-more/": every Chat Completions stream, for the tests
// of what the bridge carries (the figures are Chat's alone).
func ChatAll(t testing.TB) map[string][]byte {
	t.Helper()
	return joined(Chat(t), ChatMore(t), "chat-more/")
}

// joined adds more's streams to all, each name after prefix.
func joined(all, more map[string][]byte, prefix string) map[string][]byte {
	for name, b := range more {
		all[prefix+name] = b
	}
	return all
}

// Requests returns every request body in testdata/requests by file name,
// each checked against that folder's SHA256SUMS.
func Requests(t testing.TB) map[string][]byte {
	t.Helper()
	return checked(t, "requests", func(name string) bool { return strings.HasSuffix(name, ".json") })
}

// checked reads the files of folder dir that keep selects, after checking
// every file SHA256SUMS lists.
func checked(t testing.TB, dir string, keep func(string) bool) map[string][]byte {
	t.Helper()
	sums, err := os.Open(Path(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatalf("test data: %v", err)
	}
	defer sums.Close()
	out := map[string][]byte{}
	s := bufio.NewScanner(sums)
	for s.Scan() {
		sum, name, ok := strings.Cut(s.Text(), "  ")
		if !ok {
			t.Fatalf("test data: bad line in %s/SHA256SUMS: %q", dir, s.Text())
		}
		b, err := os.ReadFile(Path(dir, name))
		if err != nil {
			t.Fatalf("test data: %v", err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Fatalf("test data: %s/%s does not match its SHA-256", dir, name)
		}
		if keep(name) {
			out[name] = b
		}
	}
	if len(out) == 0 {
		t.Fatalf("test data: no files in %s", Path(dir))
	}
	return out
}

// SpecRows returns the submatches of row, a regexp for one table row, in
// every line of SPEC.md's section (its number, such as "9" or "5.4") that
// it matches: tests read the specification's own vector tables, so the
// document and the code cannot drift apart.
func SpecRows(t testing.TB, section string, row *regexp.Regexp) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(Path(), "..", "SPEC.md"))
	if err != nil {
		t.Fatalf("test data: %v", err)
	}
	defer f.Close()
	var rows [][]string
	level := 0 // the section's heading level while inside it, else 0
	for s := bufio.NewScanner(f); s.Scan(); {
		line := s.Text()
		if h := strings.TrimLeft(line, "#"); h != line && strings.HasPrefix(h, " ") {
			n := len(line) - len(h)
			switch {
			case strings.HasPrefix(h, " "+section+" ") || strings.HasPrefix(h, " "+section+". "):
				level = n
			case n <= level:
				level = 0
			}
			continue
		}
		if m := row.FindStringSubmatch(line); m != nil && level > 0 {
			rows = append(rows, m)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("test data: no vectors in SPEC.md §%s", section)
	}
	return rows
}

// Hex decodes a vector's bytes as SPEC.md writes them: hex pairs with
// spaces between.
func Hex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("SPEC.md vector %q: %v", s, err)
	}
	return b
}

// Golden checks got against the golden file at path, or, when update is
// set, writes it there; regenerate names the command that rewrites the
// goldens, for the message of a missing one.
func Golden(t testing.TB, path string, got []byte, update bool, regenerate string) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s writes it)", err, regenerate)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from this package's output (%s rewrites it)", path, regenerate)
	}
}

// ChatRequests returns every Chat Completions request body in
// testdata/requests/chat by file name, each checked against that folder's
// SHA256SUMS.
func ChatRequests(t testing.TB) map[string][]byte {
	t.Helper()
	return checked(t, filepath.Join("requests", "chat"), func(name string) bool { return strings.HasSuffix(name, ".json") })
}
