package sse

import (
	"bufio"
	"bytes"
	"io"
	"strconv"

	"github.com/layer0/anth/internal/iox"
)

// DefaultMaxEvent bounds an event's data, and a line, unless configured.
const DefaultMaxEvent = 1 << 20

// scanBufSize is the Scanner's read buffer: a few events of a typical
// stream. Longer lines are assembled in the Scanner's line buffer, up to
// the event limit.
const scanBufSize = 8 << 10

// Scanner splits SSE into events by the event-stream parsing rules of the
// WHATWG HTML standard (§9.2.6), never holding more than max bytes of one
// event: lines end in LF, CRLF or a lone CR; a leading byte order mark is
// skipped; a line that starts with a colon is a comment; "event" sets the
// event's name and each "data" line adds to its data; "id", "retry" and
// unknown fields carry nothing for a Messages stream and are ignored; a
// blank line dispatches the event, unless it has no data, which the
// standard does not dispatch either (a keep-alive comment, a retry-only
// block, an event with no data line).
type Scanner struct {
	r       *bufio.Reader
	src     iox.Reader // the stream, guarded; r reads it through &src, so Reset allocates nothing
	max     int
	off     int64 // bytes consumed
	at      int64 // offset where the current event started
	name    []byte
	data    []byte
	hasData bool
	line    []byte
	started bool // the byte order mark check is done
	afterCR bool // the last line ended in CR: skip an LF that follows
}

// NewScanner returns a Scanner reading r that holds at most max bytes of an
// event's data, and of a line; max <= 0 means DefaultMaxEvent. Past it, Next
// fails with ErrTooLarge.
func NewScanner(r io.Reader, max int) *Scanner {
	if max <= 0 {
		max = DefaultMaxEvent
	}
	s := &Scanner{src: iox.Reader{R: r}, max: max}
	s.r = bufio.NewReaderSize(&s.src, scanBufSize)
	return s
}

// Reset makes s read a new stream from r with the same limit, keeping its
// buffers.
func (s *Scanner) Reset(r io.Reader) {
	*s = Scanner{r: s.r, src: iox.Reader{R: r}, max: s.max, name: s.name[:0], data: s.data[:0], line: s.line[:0]}
	s.r.Reset(&s.src)
}

// SetMaxEvent sets the limit NewScanner took, for the events after it.
func (s *Scanner) SetMaxEvent(max int) {
	if max <= 0 {
		max = DefaultMaxEvent
	}
	s.max = max
}

// Offset returns the number of bytes of the stream consumed so far.
func (s *Scanner) Offset() int64 { return s.off }

// EventOffset returns the offset of the first line of the event Next last
// returned.
func (s *Scanner) EventOffset() int64 { return s.at }

// Next returns the next event's name and data, valid until the next call.
// Data of several lines is joined with LF, as the standard has it. It
// returns io.EOF at a clean end, and an *Error of kind ErrTruncated for a
// stream that ends inside an event or ErrTooLarge for an event over the
// limit; an error of the underlying reader is returned as it is.
func (s *Scanner) Next() (name, data []byte, err error) {
	s.name, s.data, s.hasData = s.name[:0], s.data[:0], false
	fields := false
	for {
		line, err := s.nextLine()
		if err == io.EOF {
			if s.hasData {
				return nil, nil, &Error{Offset: s.off, Err: ErrTruncated, Detail: "input ends inside an event (no blank line after it)"}
			}
			return nil, nil, io.EOF
		}
		if err != nil {
			return nil, nil, err
		}
		if len(line) == 0 {
			if s.hasData {
				return s.name, s.data, nil
			}
			// WHATWG: an event with an empty data buffer is not
			// dispatched; its name is forgotten.
			s.name, fields = s.name[:0], false
			continue
		}
		if !fields {
			s.at = s.off - int64(len(line)) - 1
			fields = true
		}
		if err := s.field(line); err != nil {
			return nil, nil, err
		}
	}
}

// Ready reports whether the next event is already read from the stream, a
// blank line after its data included: whether Next returns an event
// without reading further. A relay that has one event to send and finds
// another ready sends both in one write, as a plain proxy writes whatever
// it has read, and waits for nothing to do so.
func (s *Scanner) Ready() bool {
	buf, _ := s.r.Peek(s.r.Buffered())
	if s.afterCR && len(buf) > 0 && buf[0] == '\n' {
		buf = buf[1:]
	}
	if !s.started && bytes.HasPrefix(buf, []byte("\uFEFF")) {
		buf = buf[3:]
	}
	hasData := false
	for len(buf) > 0 {
		end := lineEnd(buf)
		if end < 0 {
			return false // a line not yet whole
		}
		line := buf[:end]
		if buf[end] == '\r' && end+1 < len(buf) && buf[end+1] == '\n' {
			end++ // CRLF; a CR last ends its line too
		}
		buf = buf[end+1:]
		switch {
		case len(line) == 0:
			if hasData {
				return true
			}
		case bytes.Equal(line, []byte("data")) || bytes.HasPrefix(line, []byte("data:")):
			hasData = true
		}
	}
	return false
}

// field processes one line of an event.
func (s *Scanner) field(line []byte) error {
	if line[0] == ':' {
		return nil // a comment
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "event":
		s.name = append(s.name[:0], value...)
	case "data":
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		if len(s.data)+len(value) > s.max {
			return &Error{Offset: s.off, Err: ErrTooLarge, Detail: "event data over " + strconv.Itoa(s.max) + " bytes"}
		}
		s.data = append(s.data, value...)
		s.hasData = true
	}
	return nil
}

// nextLine returns the next line without its end. Lines end in LF, CRLF or
// a lone CR, as the standard has it: "a\rb\r\n" is two lines.
func (s *Scanner) nextLine() ([]byte, error) {
	s.line = s.line[:0]
	if !s.started {
		s.started = true
		// WHATWG: one leading U+FEFF is stripped.
		if b, err := s.r.Peek(3); err == nil && string(b) == "\uFEFF" {
			s.r.Discard(3)
			s.off += 3
		}
	}
	if s.afterCR {
		// The line before ended in CR: an LF right after it belongs to it.
		s.afterCR = false
		if b, err := s.r.Peek(1); err == nil && b[0] == '\n' {
			s.r.Discard(1)
			s.off++
		}
	}
	for {
		buf, err := s.r.Peek(max(s.r.Buffered(), 1))
		if len(buf) == 0 {
			if err != io.EOF {
				return nil, err
			}
			if len(s.line) == 0 {
				return nil, io.EOF
			}
			// A last line with no line end ends nothing: the event is cut.
			return nil, &Error{Offset: s.off, Err: ErrTruncated, Detail: "input ends inside a line"}
		}
		end := bytes.IndexByte(buf, '\n')
		if end < 0 {
			end = len(buf)
		}
		if cr := bytes.IndexByte(buf[:end], '\r'); cr >= 0 {
			end = cr
		}
		if len(s.line)+end > s.max+len("data: ") {
			// At the line's start, however the reader split it.
			return nil, &Error{Offset: s.off - int64(len(s.line)), Err: ErrTooLarge, Detail: "line over " + strconv.Itoa(s.max) + " bytes"}
		}
		s.line = append(s.line, buf[:end]...)
		if end == len(buf) {
			s.r.Discard(end)
			s.off += int64(end)
			continue
		}
		s.afterCR = buf[end] == '\r'
		s.r.Discard(end + 1)
		s.off += int64(end + 1)
		return s.line, nil
	}
}
