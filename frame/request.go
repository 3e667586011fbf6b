package frame

import (
	"encoding/binary"
	"io"
	"strconv"
	"unicode/utf8"
)

// Role says who wrote a message of a Request.
type Role uint8

// The roles of SPEC.md §5, with their wire values.
const (
	RoleUser      Role = 0
	RoleAssistant Role = 1
	RoleSystem    Role = 2
)

// String returns the role's API name ("user", …) or "role(N)".
func (r Role) String() string {
	switch r {
	case RoleUser:
		return "user"
	case RoleAssistant:
		return "assistant"
	case RoleSystem:
		return "system"
	}
	return "role(" + strconv.Itoa(int(r)) + ")"
}

// Message is one message of a Request. Content is UTF-8 and may be any
// length: on the wire, content past 65,535 bytes continues in further parts
// (SPEC.md §5.2).
type Message struct {
	Role    Role
	Content string
}

// Request is the binary request of SPEC.md §5: the model, the conversation
// and the output budget.
type Request struct {
	Model     string // UTF-8, at most 255 bytes
	Messages  []Message
	MaxTokens uint32
}

// Wire details of the request (SPEC.md §5).
const (
	maxModel      = 0xFF
	partMax       = 0xFFFF // content bytes in one part
	roleContinued = 0x80   // flag on a part whose content continues in the next
	countEscape   = 0xFF   // u8 part count that announces a u16 count
	tokensEscape  = 0xFFFF // u16 max_tokens that announces a u32
	maxParts      = 0xFFFF
)

// Limits bound what ParseRequest and ReadRequest accept, so a peer cannot
// make them allocate more than the caller allows. A zero field takes the
// default.
type Limits struct {
	// MaxRequestSize is the largest request in bytes. Default 32 MiB, the
	// Anthropic Messages API's own limit.
	MaxRequestSize int
	// MaxMessages is the most parts (messages, counting each continuation
	// part) a request may hold. Default 10,000.
	MaxMessages int
}

const (
	defaultMaxRequestSize = 32 << 20
	defaultMaxMessages    = 10_000
)

func (l Limits) size() int {
	if l.MaxRequestSize > 0 {
		return l.MaxRequestSize
	}
	return defaultMaxRequestSize
}

func (l Limits) messages() int {
	if l.MaxMessages > 0 {
		return l.MaxMessages
	}
	return defaultMaxMessages
}

// SizeRequest returns the number of bytes AppendRequest appends for req, or
// -1 if req does not fit the wire's fields (a model name over 255 bytes, more
// than 65,535 parts). It does not check roles or UTF-8.
func SizeRequest(req Request) int {
	if len(req.Model) > maxModel {
		return -1
	}
	n := len(Magic) + 1 + len(req.Model) + 1
	parts := 0
	for _, m := range req.Messages {
		k := split(len(m.Content), partMax)
		parts += k
		n += k*3 + len(m.Content)
	}
	if parts > maxParts {
		return -1
	}
	if parts >= countEscape {
		n += 2
	}
	n += 2
	if req.MaxTokens >= tokensEscape {
		n += 4
	}
	return n
}

// AppendRequest appends req in the binary request format. It fails, with
// b unchanged, if the model name is longer than 255 bytes, a role is not one
// of the three, a string is not valid UTF-8, or there are more than 65,535
// parts; it never truncates. The error's Offset is where the bad field would
// have been written, counted from the start of the request.
func AppendRequest(b []byte, req Request) ([]byte, error) {
	if len(req.Model) > maxModel {
		return b, errAt(int64(len(Magic)), ErrTooLarge, "model name of "+strconv.Itoa(len(req.Model))+" bytes, want at most 255")
	}
	if !utf8.ValidString(req.Model) {
		return b, errAt(int64(len(Magic)+1), ErrBadPayload, "model name is not valid UTF-8")
	}
	parts := 0
	for _, m := range req.Messages {
		parts += split(len(m.Content), partMax)
	}
	if parts > maxParts {
		return b, errAt(int64(len(Magic)+1+len(req.Model)), ErrTooLarge, strconv.Itoa(parts)+" message parts, want at most 65535")
	}
	off := len(Magic) + 2 + len(req.Model)
	if parts >= countEscape {
		off += 2
	}
	for i, m := range req.Messages {
		if m.Role > RoleSystem {
			return b, errAt(int64(off), ErrBadPayload, "message "+strconv.Itoa(i)+": role "+strconv.Itoa(int(m.Role))+", want 0, 1 or 2")
		}
		if !utf8.ValidString(m.Content) {
			return b, errAt(int64(off+3), ErrBadPayload, "message "+strconv.Itoa(i)+": content is not valid UTF-8")
		}
		off += 3*split(len(m.Content), partMax) + len(m.Content)
	}

	b = AppendMagic(b)
	b = append(b, byte(len(req.Model)))
	b = append(b, req.Model...)
	if parts < countEscape {
		b = append(b, byte(parts))
	} else {
		b = append(b, countEscape, byte(parts>>8), byte(parts))
	}
	for _, m := range req.Messages {
		c := m.Content
		for len(c) > partMax {
			b = append(b, byte(m.Role)|roleContinued, partMax>>8, partMax&0xFF)
			b = append(b, c[:partMax]...)
			c = c[partMax:]
		}
		b = append(b, byte(m.Role), byte(len(c)>>8), byte(len(c)))
		b = append(b, c...)
	}
	if req.MaxTokens < tokensEscape {
		b = binary.BigEndian.AppendUint16(b, uint16(req.MaxTokens))
	} else {
		b = binary.BigEndian.AppendUint16(b, tokensEscape)
		b = binary.BigEndian.AppendUint32(b, req.MaxTokens)
	}
	return b, nil
}

// ParseRequest parses a request that is the whole of b, under the default
// Limits. See Limits.ParseRequest.
func ParseRequest(b []byte) (Request, error) { return Limits{}.ParseRequest(b) }

// ParseRequest parses a request that is the whole of b: bytes after the
// request are an error, as are a request over l.MaxRequestSize, more parts
// than l.MaxMessages, non-canonical encodings (SPEC.md §5.3) and content that
// is not UTF-8. Errors are *Error with the offset in b. The Request's strings
// are copies; b may be reused.
func (l Limits) ParseRequest(b []byte) (Request, error) {
	if len(b) > l.size() {
		return Request{}, errAt(int64(l.size()), ErrTooLarge, "request of "+strconv.Itoa(len(b))+" bytes, limit "+strconv.Itoa(l.size()))
	}
	p := reqParser{b: b}
	if _, err := ParseMagic(b); err != nil {
		return Request{}, err
	}
	p.off = len(Magic)

	var req Request
	n := int(p.u8("model name length"))
	req.Model = p.text(n, "model name")

	parts := int(p.u8("message count"))
	if parts == countEscape {
		at := p.off
		parts = int(p.u16("message count"))
		if p.err == nil && parts < countEscape {
			return Request{}, errAt(int64(at), ErrBadPayload, "escaped message count "+strconv.Itoa(parts)+", want at least 255")
		}
	}
	if p.err != nil {
		return Request{}, p.err
	}
	if parts > l.messages() {
		return Request{}, errAt(int64(p.off-1), ErrTooLarge, strconv.Itoa(parts)+" message parts, limit "+strconv.Itoa(l.messages()))
	}
	// Each part takes at least 3 bytes, so this bounds the allocation by the
	// input, whatever the count claims.
	req.Messages = make([]Message, 0, min(parts, (len(b)-p.off)/3))
	var joined []byte // content of a message whose parts continue
	for i := 0; i < parts && p.err == nil; i++ {
		at := p.off
		role := p.u8("role")
		size := int(p.u16("content length"))
		if p.err != nil {
			break
		}
		r := Role(role &^ roleContinued)
		if r > RoleSystem {
			return Request{}, errAt(int64(at), ErrBadPayload, "role "+strconv.Itoa(int(role&^roleContinued))+", want 0, 1 or 2")
		}
		continued := role&roleContinued != 0
		if len(joined) > 0 || continued {
			// SPEC.md §5.2: a continued message has full parts, then its
			// last part, all with the same role.
			if continued && size != partMax {
				return Request{}, errAt(int64(at+1), ErrBadPayload, "continued part of "+strconv.Itoa(size)+" bytes, want 65535")
			}
			if len(joined) > 0 && Role(joined[0]) != r {
				return Request{}, errAt(int64(at), ErrBadPayload, "continuation part with role "+r.String()+", want "+Role(joined[0]).String())
			}
			if len(joined) == 0 {
				joined = append(joined, byte(r))
			}
			joined = append(joined, p.bytes(size, "message content")...)
			if !continued && size == 0 {
				return Request{}, errAt(int64(at+1), ErrBadPayload, "empty last part after a continued part, want the continued part unflagged")
			}
			if continued {
				if i == parts-1 {
					return Request{}, errAt(int64(at), ErrBadPayload, "last part is marked continued")
				}
				continue
			}
			if !utf8.Valid(joined[1:]) {
				return Request{}, errAt(int64(at+3), ErrBadPayload, "message content is not valid UTF-8")
			}
			req.Messages = append(req.Messages, Message{Role: r, Content: string(joined[1:])})
			joined = joined[:0]
			continue
		}
		req.Messages = append(req.Messages, Message{Role: r, Content: p.text(size, "message content")})
	}

	at := p.off
	req.MaxTokens = uint32(p.u16("max_tokens"))
	if req.MaxTokens == tokensEscape {
		req.MaxTokens = p.u32("max_tokens")
		if p.err == nil && req.MaxTokens < tokensEscape {
			return Request{}, errAt(int64(at), ErrBadPayload, "escaped max_tokens "+strconv.Itoa(int(req.MaxTokens))+", want at least 65535")
		}
	}
	if p.err != nil {
		return Request{}, p.err
	}
	if p.off != len(b) {
		return Request{}, errAt(int64(p.off), ErrBadPayload, strconv.Itoa(len(b)-p.off)+" bytes after the request, want none")
	}
	return req, nil
}

// ReadRequest reads a whole request from r (an http.Request.Body, say) under
// the default Limits. See Limits.ReadRequest.
func ReadRequest(r io.Reader) (Request, error) { return Limits{}.ReadRequest(r) }

// ReadRequest reads r to its end and parses it as one request. It reads at
// most one byte past l.MaxRequestSize, so an oversized body fails with
// ErrTooLarge without being buffered whole.
func (l Limits) ReadRequest(r io.Reader) (Request, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(l.size())+1))
	if err != nil {
		return Request{}, err
	}
	return l.ParseRequest(b)
}

// reqParser reads fields in order, recording the first error; once it has
// one, every read returns zero values.
type reqParser struct {
	b   []byte
	off int
	err *Error
}

func (p *reqParser) need(n int, what string) bool {
	if p.err != nil {
		return false
	}
	if len(p.b)-p.off < n {
		p.err = errAt(int64(len(p.b)), ErrTruncated, what+" needs "+strconv.Itoa(n)+" bytes, have "+strconv.Itoa(len(p.b)-p.off))
		return false
	}
	return true
}

func (p *reqParser) u8(what string) uint8 {
	if !p.need(1, what) {
		return 0
	}
	p.off++
	return p.b[p.off-1]
}

func (p *reqParser) u16(what string) uint16 {
	if !p.need(2, what) {
		return 0
	}
	p.off += 2
	return binary.BigEndian.Uint16(p.b[p.off-2:])
}

func (p *reqParser) u32(what string) uint32 {
	if !p.need(4, what) {
		return 0
	}
	p.off += 4
	return binary.BigEndian.Uint32(p.b[p.off-4:])
}

func (p *reqParser) bytes(n int, what string) []byte {
	if !p.need(n, what) {
		return nil
	}
	p.off += n
	return p.b[p.off-n : p.off]
}

func (p *reqParser) text(n int, what string) string {
	at := p.off
	s := p.bytes(n, what)
	if p.err == nil && !utf8.Valid(s) {
		p.err = errAt(int64(at), ErrBadPayload, what+" is not valid UTF-8")
	}
	return string(s)
}
