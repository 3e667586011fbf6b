package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
)

// The kinds of failure, matched with errors.Is.
var (
	// ErrTruncated means the input ended inside an event, or before the
	// stream's end (message_stop, or an error event). It is
	// io.ErrUnexpectedEOF.
	ErrTruncated = io.ErrUnexpectedEOF
	// ErrTooLarge means a line or an event over the configured limit.
	ErrTooLarge = errors.New("too large")
	// ErrMalformed means an event whose data is not JSON, or ANTH that
	// cannot be a Messages stream (a delta for a block that never started,
	// token frames with no vocabulary to spell them).
	ErrMalformed = errors.New("malformed")
)

// Error says where the input went wrong.
type Error struct {
	Offset int64 // byte offset in the input
	Err    error
	Detail string
}

func (e *Error) Error() string {
	s := "sse: offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the kind.
func (e *Error) Unwrap() error { return e.Err }

// DefaultMaxEvent bounds an event's data, and a line, unless configured.
const DefaultMaxEvent = 1 << 20

// scanner splits SSE into events (the HTML Living Standard's
// event-stream parsing), never buffering more than max bytes of one event.
type scanner struct {
	r       *bufio.Reader
	max     int
	off     int64 // bytes consumed
	at      int64 // offset where the current event started
	name    []byte
	data    []byte
	line    []byte
	afterCR bool // the last line ended in CR: skip an LF that follows
}

func newScanner(r io.Reader, max int) *scanner {
	if max <= 0 {
		max = DefaultMaxEvent
	}
	return &scanner{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next event's name and data, valid until the next call.
// It returns io.EOF at a clean end, and ErrTruncated inside an event.
func (s *scanner) next() (name, data []byte, err error) {
	s.name, s.data = s.name[:0], s.data[:0]
	fields := false
	for {
		line, err := s.nextLine()
		if err == io.EOF {
			if fields {
				return nil, nil, &Error{Offset: s.off, Err: ErrTruncated, Detail: "input ends inside an event (no blank line after it)"}
			}
			return nil, nil, io.EOF
		}
		if err != nil {
			return nil, nil, err
		}
		if len(line) == 0 {
			if !fields {
				continue
			}
			return s.name, s.data, nil
		}
		if !fields {
			s.at = s.off - int64(len(line)) - 1
		}
		fields = true
		if line[0] == ':' {
			continue // a comment
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			s.name = append(s.name[:0], value...)
		case "data":
			if len(s.data) > 0 {
				s.data = append(s.data, '\n')
			}
			if len(s.data)+len(value) > s.max {
				return nil, nil, &Error{Offset: s.off, Err: ErrTooLarge, Detail: "event data over " + strconv.Itoa(s.max) + " bytes"}
			}
			s.data = append(s.data, value...)
		}
	}
}

// nextLine returns the next line without its end. Lines end in LF, CRLF or
// a lone CR, as the standard has it: "a\rb\r\n" is two lines.
func (s *scanner) nextLine() ([]byte, error) {
	s.line = s.line[:0]
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
		if len(s.line)+end > s.max+2 {
			return nil, &Error{Offset: s.off, Err: ErrTooLarge, Detail: "line over " + strconv.Itoa(s.max) + " bytes"}
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
