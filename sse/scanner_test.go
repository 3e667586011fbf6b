package sse

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
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

// TestReady: whenever Ready says the next event is read, Next returns one
// without reading the stream again, however the stream arrives; and once
// a whole event has arrived, Ready says so.
func TestReady(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var stream []byte
		for range rapid.IntRange(0, 6).Draw(t, "events") {
			for range rapid.IntRange(0, 3).Draw(t, "lines") {
				stream = append(stream, rapid.SampledFrom([]string{"data: x", "data", "data:", "event: e", ": comment", "id: 1", "datum: y", "\uFEFFdata: z"}).Draw(t, "line")...)
				stream = append(stream, rapid.SampledFrom([]string{"\n", "\r\n", "\r"}).Draw(t, "end")...)
			}
			stream = append(stream, rapid.SampledFrom([]string{"\n", "\r\n", "\r"}).Draw(t, "blank")...)
		}
		var cuts []int
		every := rapid.IntRange(0, 8).Draw(t, "cut every") // 0: the stream in one piece
		for i := range stream {
			if every > 0 && rapid.IntRange(0, every).Draw(t, "cut") == 0 {
				cuts = append(cuts, i)
			}
		}
		src := &pieces{b: stream, cuts: cuts}
		s := NewScanner(src, 0)
		for {
			ready := s.Ready()
			reads, arrived := src.reads, src.off == len(src.b)
			_, _, err := s.Next()
			if ready && (err != nil || src.reads != reads) {
				t.Fatalf("Ready, then Next read %d more times and returned %v", src.reads-reads, err)
			}
			if arrived && !ready && err == nil {
				t.Fatalf("the whole stream read, and Ready did not see the event Next returned")
			}
			if err != nil {
				break
			}
		}
	})
}

// pieces reads b in pieces cut at cuts, counting its Reads.
type pieces struct {
	b     []byte
	cuts  []int
	off   int
	reads int
}

func (p *pieces) Read(out []byte) (int, error) {
	p.reads++
	if p.off == len(p.b) {
		return 0, io.EOF
	}
	end := len(p.b)
	for _, c := range p.cuts {
		if c > p.off {
			end = c
			break
		}
	}
	n := copy(out, p.b[p.off:end])
	p.off += n
	return n, nil
}
