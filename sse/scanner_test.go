package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// decodeAll reads r through a Decoder and returns the ANTH and the error
// that ended it (nil at a clean end).
func decodeAll(r io.Reader, opts DecoderOptions) ([]byte, error) {
	b, err := io.ReadAll(NewDecoder(r, opts))
	return b, err
}

// TestScannerChunking: how the input arrives — whole, a byte at a time,
// in halves — changes nothing: the same ANTH, the same error at the same
// offset, for any mix of line ends, comments, long lines and bad events
// around the event limit.
func TestScannerChunking(t *testing.T) {
	pieces := []string{
		"event: message_start\n", "data: {\"type\":\"message_start\",\"message\":{}}\n",
		"event: message_stop\n", "data: {\"type\":\"message_stop\"}\n",
		"event: ping\n", "data: {\"type\":\"ping\"}\n", "data: {}\n", "data: [1,\n", "data: 2]\n",
		"data: {nope}\n", "data:" + strings.Repeat("7", 30) + "\n", "data: \"" + strings.Repeat("x", 20) + "\"\n",
		"event: " + strings.Repeat("n", 40) + "\n", ": comment\n", "id: 3\n", "retry: 9\n", "data\n",
		"\n", "\r", "\r\n", "\n\n", "\uFEFF", "event: error\n",
		"data: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"x\"}}\n",
	}
	rapid.Check(t, func(t *rapid.T) {
		var in []byte
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 20).Draw(t, "pieces") {
			in = append(in, p...)
		}
		if rapid.Bool().Draw(t, "CR line ends") {
			in = bytes.ReplaceAll(in, []byte("\n"), []byte("\r"))
		}
		opts := DecoderOptions{MaxEvent: rapid.IntRange(1, 40).Draw(t, "max event")}
		want, werr := decodeAll(bytes.NewReader(in), opts)
		for name, r := range map[string]io.Reader{
			"a byte at a time": iotest.OneByteReader(bytes.NewReader(in)),
			"in halves":        iotest.HalfReader(bytes.NewReader(in)),
			"with its EOF":     iotest.DataErrReader(bytes.NewReader(in)),
		} {
			got, gerr := decodeAll(r, opts)
			if !bytes.Equal(got, want) || errString(gerr) != errString(werr) {
				t.Fatalf("%q read %s: % X, %v; read whole: % X, %v", in, name, got, gerr, want, werr)
			}
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestScannerBounds: an event's data may be exactly DecoderOptions.MaxEvent
// bytes, over one or more data lines, and a line exactly that and its
// "data: "; a byte more is ErrTooLarge, at the start of the line that is
// too long or the end of the data line that makes the event so.
func TestScannerBounds(t *testing.T) {
	const max = 10
	a := func(n int) string { return strings.Repeat("a", n) }
	for _, c := range []struct {
		name string
		in   string
		want [][2]string // the events, or
		kind error       // the error that ends them,
		at   int64       // at this offset
	}{
		{name: "data of max bytes", in: "data: " + a(max) + "\n\n", want: [][2]string{{"", a(max)}}},
		{name: "no space after the colon", in: "data:" + a(max) + "\n\n", want: [][2]string{{"", a(max)}}},
		{name: "two data lines of max bytes", in: "data: " + a(4) + "\ndata: " + a(5) + "\n\n", want: [][2]string{{"", a(4) + "\n" + a(5)}}},
		{name: "data of max+1 bytes", in: "data: " + a(max+1) + "\n\n", kind: ErrTooLarge, at: 0},
		{name: "two data lines of max+1 bytes", in: "data: " + a(5) + "\ndata: " + a(5) + "\n\n", kind: ErrTooLarge, at: 24},
		{name: "a long line after an event", in: "data: x\n\n: " + a(max+5) + "\n\n", want: [][2]string{{"", "x"}}, kind: ErrTooLarge, at: 9},
		{name: "a comment of max+6 bytes", in: ": " + a(max+4) + "\ndata: x\n\n", want: [][2]string{{"", "x"}}},
		{name: "a name of max-1 bytes", in: "event: " + a(max-1) + "\ndata: x\n\n", want: [][2]string{{a(max - 1), "x"}}},
		{name: "a name of max bytes", in: "event: " + a(max) + "\ndata: x\n\n", kind: ErrTooLarge, at: 0},
		{name: "a data line with no colon", in: "data\ndata\n\n", want: [][2]string{{"", "\n"}}},
		{name: "a field with no value", in: "event\ndata: x\n\n", want: [][2]string{{"", "x"}}},
		{name: "a name forgotten with its event", in: "event: a\n\ndata: x\n\n", want: [][2]string{{"", "x"}}},
		{name: "CR LF after CR", in: "data: x\r\r\ndata: y\r\n\r\n", want: [][2]string{{"", "x"}, {"", "y"}}},
		{name: "a byte order mark only first", in: "\uFEFFdata: x\n\n\uFEFFdata: y\n\n", want: [][2]string{{"", "x"}}},
		{name: "a cut line", in: "data: x\n\ndata: y", want: [][2]string{{"", "x"}}, kind: ErrTruncated, at: 16},
		{name: "a cut event", in: "data: x\n\ndata: y\n", want: [][2]string{{"", "x"}}, kind: ErrTruncated, at: 17},
		{name: "a cut byte order mark", in: "\xEF\xBB", kind: ErrTruncated, at: 2},
	} {
		sc := newScanner(strings.NewReader(c.in), max)
		var got [][2]string
		var err error
		for {
			var name, data []byte
			if name, data, err = sc.next(); err != nil {
				break
			}
			got = append(got, [2]string{string(name), string(data)})
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s: events (-want +got):\n%s", c.name, d)
		}
		var e *Error
		switch {
		case c.kind == nil && err != io.EOF:
			t.Errorf("%s: %v, want the end", c.name, err)
		case c.kind != nil && (!errors.Is(err, c.kind) || !errors.As(err, &e) || e.Offset != c.at):
			t.Errorf("%s: %v, want %v at %d", c.name, err, c.kind, c.at)
		}
	}
}

// TestDecoderOffsets: an event that is not JSON, or that the core refuses,
// is reported at the offset of its first line, whatever the line ends,
// comments and byte order mark before it.
func TestDecoderOffsets(t *testing.T) {
	start := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
	bad := ": note\nevent: x\ndata: {nope}\n\n"
	for _, eol := range []string{"\n", "\r", "\r\n"} {
		for _, lead := range []string{"", "\uFEFF", ": keep-alive\n\n", "\n\n"} {
			in := strings.ReplaceAll(lead+start+"\n"+bad, "\n", eol)
			want := int64(strings.Index(in, ": note"))
			_, err := decodeAll(strings.NewReader(in), DecoderOptions{})
			var e *Error
			if !errors.Is(err, ErrMalformed) || !errors.As(err, &e) || e.Offset != want {
				t.Errorf("%q: %v, want ErrMalformed at %d", in, err, want)
			}
		}
	}
}
