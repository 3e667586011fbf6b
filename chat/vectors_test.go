package chat

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/layer0/anth/internal/testdata"
)

// unescapeSSE undoes SPEC.md's writing of line feeds as \n in a vector.
func unescapeSSE(s string) []byte { return []byte(strings.ReplaceAll(s, `\n`, "\n")) }

// TestSpecVectors reads SPEC.md §7b's vectors: each SSE stream decodes to
// the ANTH bytes given (EVENTs raw), and those encode back to the same
// chunks.
func TestSpecVectors(t *testing.T) {
	rows := testdata.SpecRows(t, "7b", regexp.MustCompile("^\\| `(chat-[a-z-]+)` \\| `(data: [^`]*)` \\| `([0-9A-F ]+)` \\|$"))
	if len(rows) < 5 {
		t.Fatalf("only %d vectors in SPEC §7b", len(rows))
	}
	for _, r := range rows {
		name, src, want := r[1], unescapeSSE(r[2]), testdata.Hex(t, r[3])
		got := toANTH(t, src, DecoderOptions{RawEvents: true})
		if !bytes.Equal(got, want) {
			t.Errorf("%s: decodes to\n% X\nwant\n% X", name, got, want)
			continue
		}
		back := toSSEBytes(t, got, EncoderOptions{})
		if d := diffEvents(t, src, back); d != "" {
			t.Errorf("%s: encodes back differently:\n%s", name, d)
		}
	}
}

// TestSpecInvalidVectors: each invalid stream of SPEC.md §7b fails with the
// kind and at the offset given.
func TestSpecInvalidVectors(t *testing.T) {
	rows := testdata.SpecRows(t, "7b", regexp.MustCompile("^\\| `(chat-[a-z-]+)` \\| `([^`]*)` \\| (Err[A-Za-z]+) \\| ([0-9]+) \\|$"))
	if len(rows) < 3 {
		t.Fatalf("only %d invalid vectors in SPEC §7b", len(rows))
	}
	kinds := map[string]error{"ErrTruncated": ErrTruncated, "ErrMalformed": ErrMalformed, "ErrTooLarge": ErrTooLarge}
	for _, r := range rows {
		name, src, kind := r[1], unescapeSSE(r[2]), kinds[r[3]]
		off, _ := strconv.ParseInt(r[4], 10, 64)
		_, err := io.ReadAll(NewDecoder(bytes.NewReader(src), DecoderOptions{}))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, kind) || e.Offset != off {
			t.Errorf("%s: got %v, want %s at offset %d", name, err, r[3], off)
		}
	}
}
