package request

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/iox"
)

// Parse parses a request that is the whole of b, under the default
// Limits. See Limits.Parse.
func Parse(b []byte) (Seed, error) { return Limits{}.Parse(b) }

// Parse parses a request that is the whole of b: bytes after the
// request are an error, as are a request over l.MaxSize, more parts
// than l.MaxMessages, non-canonical encodings (SPEC.md §5.3) and content that
// is not UTF-8. Errors are *Error with the offset in b. The Request's strings
// are copies; b may be reused. It allocates at most 8 bytes per byte of b,
// and the allocator's rounding (the worst is many empty parts: 3 bytes
// each, a 24-byte Message; TestRequestManyEmptyParts measures 8.19).
func (l Limits) Parse(b []byte) (Seed, error) {
	if len(b) > l.seedSize() {
		return Seed{}, errAt(int64(l.seedSize()), ErrTooLarge, "request of "+strconv.Itoa(len(b))+" bytes, limit "+strconv.Itoa(l.seedSize()))
	}
	return l.parse(&sliceSource{b: b})
}

// Read reads a whole request from r (an http.Request.Body, say) under
// the default Limits. See Limits.Read.
func Read(r io.Reader) (Seed, error) { return Limits{}.Read(r) }

// Read reads one request from r, to r's end, as Parse parses
// one. It reads field by field and never holds the request whole: what it
// allocates is the request's strings, each made once at its exact size,
// except that a message sent in continued parts (SPEC.md §5.2) is held part
// by part until its last part arrives and then joined. So it allocates
// about 2 bytes per byte of content, and at most one part (64 KiB) ahead of
// the bytes received; but its Messages grow with the parts that arrive, so
// many empty parts cost up to 35 bytes per byte (10,000 empty parts:
// 34.5), where Parse, which sees the input's length, makes them
// once. It stops with ErrTooLarge as soon as the input
// passes l.MaxSize. An error from r is returned as is.
func (l Limits) Read(r io.Reader) (Seed, error) {
	return l.parse(&readerSource{r: bufio.NewReaderSize(iox.Checked(r), 4096), limit: l.seedSize()})
}

// source is where the request parser takes bytes from: a slice, or a
// buffered io.Reader. off counts the bytes taken.
type source interface {
	// take returns the next n bytes, or fewer (and an error) at the end of
	// the input. The bytes are valid until the next call.
	take(n int) ([]byte, error)
	offset() int
	// atEnd reports whether the input has nothing after what was taken.
	atEnd() (bool, error)
	// joinedLen returns the length of a message whose first part, of size
	// bytes, has just been announced, when the source can see its later
	// parts' headers without taking them, else 0.
	joinedLen(size int) int
}

type sliceSource struct {
	b   []byte
	off int
}

func (s *sliceSource) take(n int) ([]byte, error) {
	k := min(n, len(s.b)-s.off)
	s.off += k
	if k < n {
		return s.b[s.off-k : s.off], io.ErrUnexpectedEOF
	}
	return s.b[s.off-k : s.off], nil
}

func (s *sliceSource) offset() int          { return s.off }
func (s *sliceSource) atEnd() (bool, error) { return s.off == len(s.b), nil }

func (s *sliceSource) joinedLen(size int) int {
	total, at := 0, s.off
	for {
		total += size
		at += size // the next part's header
		if at+3 > len(s.b) {
			return 0 // cut: the parser reports it
		}
		role, n := s.b[at], int(binary.BigEndian.Uint16(s.b[at+1:]))
		at += 3
		if role&roleContinued == 0 {
			return total + n
		}
		size = n
	}
}

type readerSource struct {
	r     *bufio.Reader
	off   int
	limit int
}

func (s *readerSource) take(n int) ([]byte, error) {
	if n > s.limit-s.off {
		return nil, errAt(int64(s.limit), ErrTooLarge, "request over "+strconv.Itoa(s.limit)+" bytes")
	}
	// n is at most the bufio.Reader's size, so Peek gives fewer than n bytes
	// only at the end of the input or at an error of r's. bufio returns that
	// error once: it is the request's, not a reason to peek again, as a
	// reader that goes on after an error (a deadline that passes) would
	// have it lost.
	b, err := s.r.Peek(n)
	s.r.Discard(len(b))
	s.off += len(b)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}

func (s *readerSource) offset() int { return s.off }

// joinedLen is 0: a reader's later parts are not in sight.
func (s *readerSource) joinedLen(int) int { return 0 }

func (s *readerSource) atEnd() (bool, error) {
	_, err := s.r.Peek(1)
	if err == io.EOF {
		return true, nil
	}
	return false, err
}

// reqParser reads a request's fields in order from a source.
type reqParser struct {
	src source
	// A message that continues is assembled in msg when the source knows
	// its length ahead (one allocation), else kept part by part in parts
	// and joined at its last part (two).
	msg   strings.Builder
	parts []string
}

// field takes n bytes of the field what. A short input is ErrTruncated at
// the input's end; any other error of the source is returned as is.
func (p *reqParser) field(n int, what string) ([]byte, error) {
	b, err := p.src.take(n)
	if err == io.ErrUnexpectedEOF {
		return nil, errAt(int64(p.src.offset()), ErrTruncated, what+" needs "+strconv.Itoa(n)+" bytes, have "+strconv.Itoa(len(b)))
	}
	return b, err
}

func (p *reqParser) u8(what string) (int, error) {
	b, err := p.field(1, what)
	if err != nil {
		return 0, err
	}
	return int(b[0]), nil
}

func (p *reqParser) u16(what string) (int, error) {
	b, err := p.field(2, what)
	if err != nil {
		return 0, err
	}
	return int(binary.BigEndian.Uint16(b)), nil
}

// text takes n bytes as a string, made once at its exact size.
func (p *reqParser) text(n int, what string) (string, error) {
	var sb strings.Builder
	sb.Grow(n)
	err := p.write(&sb, n, what)
	return sb.String(), err
}

// write takes n bytes into sb.
func (p *reqParser) write(sb *strings.Builder, n int, what string) error {
	for ; n > 0; n -= 4096 {
		// At most what a bufio.Reader holds at once, so nothing is copied
		// twice.
		b, err := p.field(min(n, 4096), what)
		if err != nil {
			return err
		}
		sb.Write(b)
	}
	return nil
}

func (l Limits) parse(src source) (Seed, error) {
	p := &reqParser{src: src}
	if b, err := src.take(len(frame.Magic)); err != nil || string(b) != frame.Magic {
		// A wrong byte, or input that ends inside the magic; else the
		// source's own error.
		if _, merr := frame.ParseMagic(b); merr != nil && (err == nil || err == io.ErrUnexpectedEOF || errors.Is(merr, ErrBadMagic)) {
			// ParseMagic speaks of a stream; this is a request.
			var e *frame.Error
			if errors.As(merr, &e) {
				return Seed{}, errAt(e.Offset, e.Err, "request must start with \"ANTH\" (41 4E 54 48)")
			}
			return Seed{}, merr
		}
		return Seed{}, err
	}
	var req Seed
	n, err := p.u8("model name length")
	if err == nil {
		req.Model, err = p.text(n, "model name")
	}
	if err != nil {
		return Seed{}, err
	}
	if !utf8.ValidString(req.Model) {
		return Seed{}, errAt(int64(len(frame.Magic)+1), ErrMalformed, "model name is not valid UTF-8")
	}
	parts, err := l.partCount(p)
	if err != nil {
		return Seed{}, err
	}
	// Room for the messages the count claims, made once. From a slice, as
	// many as its bytes can hold (a part is at least 3 bytes, a Message
	// 24: at most 8 bytes allocated per byte of input); from a reader, up
	// to 48 KiB ahead of the parts that arrive, past that the slice grows
	// with them.
	ahead := messagesAhead
	if s, ok := src.(*sliceSource); ok {
		ahead = (len(s.b) - s.off) / 3
	}
	req.Messages = make([]Message, 0, min(parts, ahead))
	for i := 0; i < parts; i++ {
		if req.Messages, err = p.part(req.Messages, i == parts-1); err != nil {
			return Seed{}, err
		}
	}
	if req.MaxTokens, err = p.maxTokens(); err != nil {
		return Seed{}, err
	}
	if end, err := src.atEnd(); err != nil {
		return Seed{}, err
	} else if !end {
		return Seed{}, errAt(int64(src.offset()), ErrMalformed, "bytes after the request, want none")
	}
	return req, nil
}

// messagesAhead is how many Messages (24 bytes each) Parse makes
// room for before their parts arrive: 48 KiB.
const messagesAhead = 2048

// partCount reads the part count, escaped or not (SPEC.md §5.2).
func (l Limits) partCount(p *reqParser) (int, error) {
	parts, err := p.u8("message count")
	if err == nil && parts == countEscape {
		at := p.src.offset()
		if parts, err = p.u16("message count"); err == nil && parts < countEscape {
			// SPEC.md §5.3: "an escaped count below 255" is not canonical.
			return 0, errAt(int64(at), ErrMalformed, "escaped message count "+strconv.Itoa(parts)+", want at least 255")
		}
	}
	if err != nil {
		return 0, err
	}
	if parts > l.messages() {
		return 0, errAt(int64(p.src.offset()-1), ErrTooLarge, strconv.Itoa(parts)+" message parts, limit "+strconv.Itoa(l.messages()))
	}
	return parts, nil
}

// part reads one part and appends the message it completes, if any.
func (p *reqParser) part(msgs []Message, last bool) ([]Message, error) {
	at := p.src.offset()
	role, err := p.u8("role")
	if err != nil {
		return nil, err
	}
	size, err := p.u16("content length")
	if err != nil {
		return nil, err
	}
	r, continued := Role(role&^roleContinued), role&roleContinued != 0
	if r > RoleSystem {
		return nil, errAt(int64(at), ErrMalformed, "role "+strconv.Itoa(int(r))+", want 0, 1 or 2")
	}
	joining := len(p.parts) > 0 || p.msg.Cap() > 0
	// SPEC.md §5.3: a continued message has full parts, then a non-empty
	// last part, all of the same role.
	switch {
	case continued && size != partMax:
		return nil, errAt(int64(at+1), ErrMalformed, "continued part of "+strconv.Itoa(size)+" bytes, want 65535")
	case continued && last:
		return nil, errAt(int64(at), ErrMalformed, "last part is marked continued")
	case joining && Role(msgs[len(msgs)-1].Role) != r:
		return nil, errAt(int64(at), ErrMalformed, "continuation part with role "+r.String()+", want "+msgs[len(msgs)-1].Role.String())
	case joining && !continued && size == 0:
		return nil, errAt(int64(at+1), ErrMalformed, "empty last part after a continued part, want the continued part unflagged")
	}
	if continued && !joining {
		msgs = append(msgs, Message{Role: r})
		if n := p.src.joinedLen(size); n > 0 {
			p.msg.Grow(n)
		}
	} else if !joining {
		msgs = append(msgs, Message{Role: r})
	}
	var content string
	if p.msg.Cap() > 0 {
		if err := p.write(&p.msg, size, "message content"); err != nil {
			return nil, err
		}
		if continued {
			return msgs, nil
		}
		content = p.msg.String()
		p.msg = strings.Builder{}
	} else {
		if content, err = p.text(size, "message content"); err != nil {
			return nil, err
		}
		if continued || joining {
			p.parts = append(p.parts, content)
			if continued {
				return msgs, nil
			}
			content = strings.Join(p.parts, "")
			clear(p.parts)
			p.parts = p.parts[:0]
		}
	}
	if !utf8.ValidString(content) {
		return nil, errAt(int64(at+3), ErrMalformed, "message content is not valid UTF-8")
	}
	msgs[len(msgs)-1].Content = content
	return msgs, nil
}

// maxTokens reads max_tokens, escaped or not (SPEC.md §5.2).
func (p *reqParser) maxTokens() (uint32, error) {
	at := p.src.offset()
	v, err := p.u16("max_tokens")
	if err != nil || v != tokensEscape {
		return uint32(v), err
	}
	b, err := p.field(4, "max_tokens")
	if err != nil {
		return 0, err
	}
	if t := binary.BigEndian.Uint32(b); t >= tokensEscape {
		return t, nil
	} else {
		return 0, errAt(int64(at), ErrMalformed, "escaped max_tokens "+strconv.FormatUint(uint64(t), 10)+", want at least 65535")
	}
}
