package anth_test

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestInlined pins the inlining the per-token and per-position paths are
// built on, as the compiler reports it (go build -gcflags=-m): a change
// that pushes one of these over the inliner's budget costs them 1.3–3.4x
// (issue 26: a panic message built in tiling's Layout.shift, and
// frame.Reader.Next split into three calls) and no other test notices.
// The build is cached, so the test costs a compile once and then ~50 ms.
func TestInlined(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to check inlining: %v", err)
	}
	out, err := exec.Command(goTool, "build", "-gcflags=-m", "./frame", "./tiling", "./vocab", "./deflate").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	report := string(out)
	for _, c := range []struct {
		file, fn string
	}{
		{"tiling/layout.go", "Layout.shift"},
		{"tiling/layout.go", "Layout.Tile"},
		{"tiling/layout.go", "Layout.Tiles"},
		{"tiling/layout.go", "Layout.Pos"},
		{"tiling/layout.go", "Layout.Size"},
		{"tiling/layout.go", "Layout.Mask"},
		{"frame/frame.go", "parseFast"},
		{"frame/frame.go", "parseShort"},
		// Text's loop over a frame's IDs runs it inline (issue 23).
		{"vocab/detokenizer.go", "(*Detokenizer).appendWhole"},
		// The matchers put each position in the hash chains through it.
		{"deflate/writer.go", "(*Writer).put"},
	} {
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c.file) + `:\d+:\d+: can inline ` + regexp.QuoteMeta(c.fn) + `\b`)
		if !re.MatchString(report) {
			t.Errorf("%s: %s no longer inlines:\n%s", c.file, c.fn, grepLines(report, c.fn))
		}
	}
	// Reader.Next is one call a frame: parseFast and parseShort (a short
	// token frame) are inlined in Next itself, not in a function Next
	// calls.
	src, err := os.ReadFile("frame/reader.go")
	if err != nil {
		t.Fatal(err)
	}
	from, to := funcLines(string(src), "func (r *Reader) Next()")
	for _, fn := range []string{"parseFast", "parseShort"} {
		inlined := false
		for _, m := range regexp.MustCompile(`(?m)^frame/reader\.go:(\d+):\d+: inlining call to `+fn+`\b`).FindAllStringSubmatch(report, -1) {
			if line, _ := strconv.Atoi(m[1]); from <= line && line < to {
				inlined = true
			}
		}
		if !inlined {
			t.Errorf("frame.Reader.Next (lines %d-%d) no longer inlines %s:\n%s", from, to-1, fn, grepLines(report, fn))
		}
	}
}

// funcLines returns the lines, from and up to but not including to, of the
// function whose declaration starts with decl in src.
func funcLines(src, decl string) (from, to int) {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, decl):
			from = i + 1
		case from > 0 && l == "}":
			return from, i + 2
		}
	}
	return 0, 0
}

// grepLines returns the lines of s that mention sub, for a failure message.
func grepLines(s, sub string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if strings.Contains(line, sub) {
			b.WriteString(line)
		}
	}
	return b.String()
}
