package sse

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScannerBounds: an event's data may be exactly the Scanner's limit
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
		sc := NewScanner(strings.NewReader(c.in), max)
		var got [][2]string
		var err error
		for {
			var name, data []byte
			if name, data, err = sc.Next(); err != nil {
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
