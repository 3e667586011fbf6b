package request

import (
	"errors"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/internal/testdata"
)

// The request rows of SPEC.md §9 (frame's tests read the others), so the
// document and the code cannot drift apart.
var vectorRow = regexp.MustCompile("^\\| `(request[a-z0-9-]*)` \\| `([0-9A-F ]*)` \\|(?: (Err[A-Za-z]+) \\| ([0-9]+) \\|)?$")

var (
	specRequest     = Seed{Model: "claude", Messages: []Message{{RoleUser, "Hi"}}, MaxTokens: 1024}
	specRequestWide = Seed{Model: "m", Messages: []Message{
		{RoleSystem, "Be brief."}, {RoleUser, "你好"}, {RoleAssistant, ""},
	}, MaxTokens: 128_000}
	specRequests = map[string]Seed{"request": specRequest, "request-wide": specRequestWide}
)

func mustRequest(r Seed) []byte {
	b, err := Append(nil, r)
	if err != nil {
		panic(err)
	}
	return b
}

var kinds = map[string]error{
	"ErrBadMagic":  ErrBadMagic,
	"ErrTruncated": ErrTruncated,
	"ErrTooLarge":  ErrTooLarge,
	"ErrMalformed": ErrMalformed,
}

func TestSpecVectors(t *testing.T) {
	rows := testdata.SpecRows(t, "9", vectorRow)
	if len(rows) < 9 {
		t.Fatalf("found %d request vectors in SPEC.md §9, want them all", len(rows))
	}
	seen := map[string]bool{}
	for _, m := range rows {
		name, b, kind := m[1], testdata.Hex(t, m[2]), m[3]
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			if kind != "" {
				off, _ := strconv.ParseInt(m[4], 10, 64)
				_, err := Parse(b)
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, kinds[kind]) || e.Offset != off {
					t.Fatalf("error %v (%T): want %s at offset %d", err, err, kind, off)
				}
				return
			}
			want, ok := specRequests[name]
			if !ok {
				t.Fatalf("SPEC.md has vector %q that no test builds", name)
			}
			if got := mustRequest(want); !cmp.Equal(got, b) {
				t.Fatalf("Append gives\n% X\nSPEC.md says\n% X", got, b)
			}
			req, err := Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, req); d != "" {
				t.Fatalf("Parse (-want +got):\n%s", d)
			}
		})
	}
	for name := range specRequests {
		if !seen[name] {
			t.Errorf("vector %q is built by the test but missing from SPEC.md", name)
		}
	}
}
