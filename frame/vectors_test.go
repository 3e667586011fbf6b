package frame

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/internal/testdata"
)

// specVector is one row of SPEC.md §9.
type specVector struct {
	name   string
	bytes  []byte
	kind   string // "" for valid vectors
	offset int64
}

var vectorRow = regexp.MustCompile("^\\| `([a-z0-9-]+)` \\| (?:`([0-9A-F ]*)`|\\(empty\\)) \\|(?: (Err[A-Za-z]+) \\| ([0-9]+) \\|)?$")

// readSpecVectors reads the vector tables of SPEC.md, so the document and
// the code cannot drift apart.
func readSpecVectors(t *testing.T) []specVector {
	t.Helper()
	var vs []specVector
	for _, m := range testdata.SpecRows(t, "9", vectorRow) {
		v := specVector{name: m[1], bytes: testdata.Hex(t, m[2]), kind: m[3]}
		if m[4] != "" {
			v.offset, _ = strconv.ParseInt(m[4], 10, 64)
		}
		vs = append(vs, v)
	}
	if len(vs) < 30 {
		t.Fatalf("found %d vectors in SPEC.md, want the whole §9", len(vs))
	}
	return vs
}

// validVectors builds each valid vector of SPEC.md §9 from its value.
var validVectors = map[string]func() []byte{
	"token":         func() []byte { return AppendToken(nil, 42) },
	"token-multi":   func() []byte { return AppendToken(nil, 1, 2, 65535) },
	"token32":       func() []byte { return AppendToken(nil, 100276) },
	"token32-multi": func() []byte { return AppendToken(nil, 42, 200018) },
	"short-token":   func() []byte { return AppendShortToken(nil, 42) },
	"short-token24": func() []byte { return AppendShortToken(nil, 200018) },
	"packed-token":  func() []byte { return new(TokenEncoder).AppendPackedToken(nil, 42, 42, 100276, 42) },
	"packed-token-stream": func() []byte {
		var e TokenEncoder
		b := e.AppendPackedToken(AppendMagic(nil), 42, 42, 100276, 42)
		return AppendDone(e.AppendPackedToken(b, 100276, 7), StopUnspecified, "")
	},
	"usage":              func() []byte { return AppendUsage(nil, Usage{25, 1, 250_000}) },
	"error":              func() []byte { return AppendError(nil, CodeOverloaded, "Overloaded") },
	"done":               func() []byte { return AppendDone(nil, StopUnspecified, "") },
	"done-end-turn":      func() []byte { return AppendDone(nil, StopEndTurn, "") },
	"done-stop-sequence": func() []byte { return AppendDone(nil, StopSequence, "\n\nHuman:") },
	"text":               func() []byte { return AppendText(nil, 0, []byte("Hi 你")) },
	"text-split":         func() []byte { return AppendText(nil, 1, []byte("好")[:2]) },
	"pad":                func() []byte { return AppendPad(nil, 4) },
	"cache-usage":        func() []byte { return AppendCacheUsage(nil, CacheUsage{1000, 200}) },
	"delta":              func() []byte { return AppendDelta(nil, 1, DeltaInputJSON, []byte(`{"city": `)) },
	"block-start":        func() []byte { return AppendBlock(nil, 2, BlockStartThinking) },
	"block-stop":         func() []byte { return AppendBlock(nil, 2, BlockStop) },
	"event":              func() []byte { return AppendEvent(nil, EventJSON, []byte("ping"), []byte(`{"type":"ping"}`)) },
	"event-binary32": func() []byte {
		return AppendEvent(nil, EventBinary32, []byte("logprob"), binary.LittleEndian.AppendUint32(nil, math.Float32bits(-2.3433902)))
	},
	"stream": func() []byte {
		b := AppendMagic(nil)
		b = AppendText(b, 0, []byte("Hi"))
		b = AppendUsage(b, Usage{InputTokens: 12, OutputTokens: 1})
		return AppendDone(b, StopEndTurn, "")
	},
}

var kinds = map[string]error{
	"ErrBadMagic":    ErrBadMagic,
	"ErrTruncated":   ErrTruncated,
	"ErrTooLarge":    ErrTooLarge,
	"ErrUnknownType": ErrUnknownType,
	"ErrMalformed":   ErrMalformed,
}

func TestSpecVectors(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range readSpecVectors(t) {
		if strings.HasPrefix(v.name, "request") {
			continue // package request's (request/vectors_test.go)
		}
		seen[v.name] = true
		t.Run(v.name, func(t *testing.T) {
			if v.kind != "" {
				checkInvalidVector(t, v)
				return
			}
			enc, ok := validVectors[v.name]
			if !ok {
				t.Fatalf("SPEC.md has vector %q that no test builds", v.name)
			}
			if got := enc(); !cmp.Equal(got, v.bytes) {
				t.Fatalf("encoder gives\n% X\nSPEC.md says\n% X", got, v.bytes)
			}
			checkValidVector(t, v)
		})
	}
	for name := range validVectors {
		if !seen[name] {
			t.Errorf("vector %q is built by the test but missing from SPEC.md", name)
		}
	}
}

// checkValidVector parses a valid vector back and re-encodes it.
func checkValidVector(t *testing.T, v specVector) {
	switch {
	case v.name == "packed-token-stream":
		frames, err := readAll(NewReader(strings.NewReader(string(v.bytes)), ReaderOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		var d TokenDecoder
		var got [][]uint32
		for _, f := range frames[:2] {
			ids, err := d.Tokens(nil, f)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ids)
		}
		if diff := cmp.Diff([][]uint32{{42, 42, 100276, 42}, {100276, 7}}, got); diff != "" {
			t.Fatalf("IDs (-want +got):\n%s", diff)
		}
	case v.name == "stream":
		frames, err := readAll(NewReader(strings.NewReader(string(v.bytes)), ReaderOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendFrames(AppendMagic(nil), frames); !cmp.Equal(got, v.bytes) {
			t.Fatalf("re-encoded stream\n% X", got)
		}
	default:
		f, n, err := Parse(v.bytes)
		if err != nil || n != len(v.bytes) {
			t.Fatalf("Parse = %v, %d, %v; want the whole vector", f, n, err)
		}
		if got := f.Append(nil); !cmp.Equal(got, v.bytes) {
			t.Fatalf("Frame.Append gives % X", got)
		}
	}
}

func checkInvalidVector(t *testing.T, v specVector) {
	var err error
	_, err = readAll(NewReader(strings.NewReader(string(v.bytes)), ReaderOptions{}))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want *Error", err, err)
	}
	if !errors.Is(err, kinds[v.kind]) || e.Offset != v.offset {
		t.Fatalf("error %q: want %s at offset %d", err, v.kind, v.offset)
	}
}

// readAll reads frames until the end of the stream, copying payloads.
func readAll(r *Reader) ([]Frame, error) {
	var fs []Frame
	for {
		f, err := r.Next()
		if err == io.EOF {
			return fs, nil
		}
		if err != nil {
			return fs, err
		}
		f.Payload = append([]byte{}, f.Payload...)
		fs = append(fs, f)
	}
}

func appendFrames(b []byte, fs []Frame) []byte {
	for _, f := range fs {
		b = f.Append(b)
	}
	return b
}

func TestIgnorableSkipped(t *testing.T) {
	in := "ANTH\x90\x00\x01\x07\x00\x00\x02\x00\x2A"
	var skipped []Frame
	r := NewReader(strings.NewReader(in), ReaderOptions{RawFrames: true, OnSkip: func(f Frame) { skipped = append(skipped, Frame{f.Type, append([]byte{}, f.Payload...)}) }})
	got, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	want := []Frame{{TypeToken, []byte{0, 42}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("frames (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]Frame{{0x90, []byte{7}}}, skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
}
