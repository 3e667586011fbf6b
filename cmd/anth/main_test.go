package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
)

func TestDemo(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"demo"}, nil, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"decode to the same response", "DONE              1  end_turn", "the size of SSE"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
	// anth alone prints the usage (exit 2), which names anth demo.
	if err := run(nil, nil, &bytes.Buffer{}); !errors.Is(err, errUsage) {
		t.Errorf("anth with no arguments: %v, want the usage", err)
	}
}

// TestSamplePieces: the demo's deltas join back to the sample, each valid
// UTF-8 (SSE JSON cannot carry a split character).
func TestSamplePieces(t *testing.T) {
	ps := samplePieces(sampleText)
	if strings.Join(ps, "") != sampleText || len(ps) < 50 {
		t.Fatalf("%d pieces joining to %q", len(ps), strings.Join(ps, ""))
	}
}

func TestDump(t *testing.T) {
	b := frame.AppendMagic(nil)
	b = frame.AppendToken(b, 42, 100276)
	b = frame.AppendShortToken(b, 7)
	b = frame.AppendShortToken(b, 200018)
	b = frame.AppendText(b, 2, []byte("hi"))
	b = frame.Frame{Type: 0x99, Payload: []byte{1, 2}}.Append(b)
	b = frame.AppendError(b, frame.CodeOverloaded, "Overloaded")
	b = frame.AppendDone(b, frame.StopSequence, "END")
	var out bytes.Buffer
	if err := run([]string{"dump"}, bytes.NewReader(b), &out); err != nil {
		t.Fatal(err)
	}
	want := `     4  TOKEN32           8  42 100276
    15  SHORT_TOKEN       2  7
    18  SHORT_TOKEN24     3  200018
    22  TEXT              4  block 2 "hi"
    29  TYPE(0x99)        2  skipped ignorable type: 01 02
    34  ERROR            12  529 overloaded_error "Overloaded"
    49  DONE              4  stop_sequence "END"
`
	if out.String() != want {
		t.Fatalf("dump printed\n%s\nwant\n%s", out.String(), want)
	}

	// From a file, and a bad stream names the offset.
	path := filepath.Join(t.TempDir(), "bad.anth")
	if err := os.WriteFile(path, append(b, 0x01, 0x00), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run([]string{"dump", path}, nil, &bytes.Buffer{})
	if !errors.Is(err, frame.ErrTruncated) || !strings.Contains(err.Error(), "offset 58") {
		t.Fatalf("dump of a cut stream: %v", err)
	}
}

// TestDumpPacked: dump and decode --to jsonl show a PACKED_TOKEN frame's
// IDs, read with the PACKED_TOKEN frames before it (SPEC.md §3.1.1).
func TestDumpPacked(t *testing.T) {
	var e frame.TokenEncoder
	b := e.AppendPackedToken(frame.AppendMagic(nil), 42, 42, 100276, 42)
	b = frame.AppendDone(e.AppendPackedToken(b, 100276, 7), frame.StopEndTurn, "")
	var out bytes.Buffer
	if err := run([]string{"dump"}, bytes.NewReader(b), &out); err != nil {
		t.Fatal(err)
	}
	want := `     4  PACKED_TOKEN      8  42 42 100276 42
    15  PACKED_TOKEN      3  100276 7
    21  DONE              1  end_turn
`
	if out.String() != want {
		t.Fatalf("dump printed\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := run([]string{"decode", "--to", "jsonl"}, bytes.NewReader(b), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"tokens":[42,42,100276,42]`) || !strings.Contains(out.String(), `"tokens":[100276,7]`) {
		t.Fatalf("decode --to jsonl printed\n%s", out.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"nope"}, {"demo", "x"}, {"dump", "a", "b"}} {
		if err := run(args, nil, &bytes.Buffer{}); !errors.Is(err, errUsage) {
			t.Errorf("anth %v: %v, want a usage error", args, err)
		}
	}
}

// TestDumpEventsAfter: dump and decode --to jsonl show an EVENT of encoding
// 3 inflated after the event before it (SPEC.md §3.10), as one reader of
// the stream's EVENTs reads them, the Messages API's here.
func TestDumpEventsAfter(t *testing.T) {
	a, c := []byte(`{"type":"ping","n":1}`), []byte(`{"type":"ping","n":2}`)
	b := frame.AppendMagic(nil)
	b = frame.AppendEvent(b, frame.EventJSON, []byte("ping"), a)
	b = frame.AppendEvent(b, frame.EventDeflateAfter, []byte("ping"), deflate.AppendBlockAfter(nil, c, messages.API{}.Dictionary(), a))
	b = frame.AppendDone(b, frame.StopEndTurn, "")
	var out bytes.Buffer
	if err := run([]string{"dump", "--api", "messages"}, bytes.NewReader(b), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `ping (deflate-after, 6 bytes) {"type":"ping","n":2}`) {
		t.Errorf("dump printed\n%s", out.String())
	}
	out.Reset()
	if err := run([]string{"decode", "--to", "jsonl", "--api", "messages"}, bytes.NewReader(b), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"data":{"type":"ping","n":2},"encoding":"deflate-after"`) {
		t.Errorf("decode --to jsonl printed\n%s", out.String())
	}
}
