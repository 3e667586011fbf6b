package request

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/layer0/anth/internal/jsonlex"

	"github.com/layer0/anth/frame"
)

// AppendJSON appends the JSON of an ANTH request, of either form,
// to dst, under the default Limits. See
// Limits.AppendJSON.
func AppendJSON(dst, anth []byte) ([]byte, error) {
	return Limits{}.AppendJSON(dst, anth)
}

// AppendJSON appends the JSON of anth, a request in the seed form of
// SPEC.md §5 or the extended form of §5.4: compact, the extended form's keys
// in the order they were sent. It checks the whole of §5.3 and §5.4's
// canonical form: bad or non-canonical input is an *frame.Error or *Error
// with its offset in anth, wrapping ErrMalformed, ErrTruncated or
// ErrTooLarge. On error dst is unchanged.
func (l Limits) AppendJSON(dst, anth []byte) ([]byte, error) {
	if len(anth) > l.size() {
		return dst, &Error{Offset: int64(l.size()), Err: ErrTooLarge, Detail: "request of " + strconv.Itoa(len(anth)) + " bytes, limit " + strconv.Itoa(l.size())}
	}
	if len(anth) < len(requestMagic) || string(anth[:len(requestMagic)]) != requestMagic {
		req, err := Limits{MaxSize: l.size()}.Parse(anth)
		var e *Error
		if errors.Is(err, ErrBadMagic) && errors.As(err, &e) {
			e.Detail = "request must start with \"ANTH\" (41 4E 54 48, the seed form) or \"ANTX\" (41 4E 54 58, the extended form)"
		}
		if err != nil {
			return dst, err
		}
		// SPEC.md §5.4: a system prompt is "sent as a leading system
		// message"; one elsewhere has no JSON that comes back to it.
		for i, m := range req.Messages {
			if m.Role == RoleSystem && i > 0 {
				return dst, &frame.Error{Offset: int64(seedPartAt(req, i)), Err: frame.ErrMalformed, Detail: "a system message after the first, which no JSON request makes"}
			}
		}
		if n, at := seedJSONSize(req, l.output()); n > l.output() {
			return dst, &Error{Offset: int64(at), Err: ErrTooLarge, Detail: "the request's JSON would pass " + strconv.Itoa(l.output()) + " bytes"}
		}
		return appendSeedJSON(dst, req), nil
	}
	out, err := l.appendExtendedJSON(dst, anth, messagesDict)
	if err != nil {
		return dst, err
	}
	// SPEC.md §5.4, "seed form first": what the seed form carries is not
	// sent extended.
	if req, ok := seedRequest(anth[len(requestMagic)+1:]); ok && seedParts(req) <= seedMaxParts {
		if _, err := Size(req); err == nil {
			return dst, &Error{Offset: int64(len(requestMagic)), Err: ErrMalformed, Detail: "an extended request the seed form carries"}
		}
	}
	return out, nil
}

// appendExtendedJSON appends the JSON of anth, an extended request that
// starts with the magic "ANTX", which must be of dict's version: a
// request of another version is ErrMalformed at its version byte, offset
// 4, and is never read with the wrong dictionary (SPEC.md §5.5). On error
// dst is unchanged.
func (l Limits) appendExtendedJSON(dst, anth []byte, dict *dictionary) ([]byte, error) {
	d := antxToJSON{src: anth, dst: dst, i: len(requestMagic), maxDepth: l.depth(), base: len(dst), maxOut: l.output(), dict: dict}
	if v, ok := d.byte(); ok && v != dict.version {
		d.i--
		want := "want " + strconv.Itoa(int(dict.version)) + ", a " + dict.api + " request"
		if other := dictionaryOf(v); other != nil {
			d.fail(ErrMalformed, "extended request version "+strconv.Itoa(int(v))+" is a "+other.api+" request, which "+other.reader+" reads; "+want)
		} else {
			d.fail(ErrMalformed, "extended request version "+strconv.Itoa(int(v))+", "+want)
		}
	} else if ok {
		if t, ok := d.peek(); ok && t != tagObject {
			d.fail(ErrMalformed, "a request is an object")
		} else if ok && d.value(0, placeValue, 0) && d.i != len(anth) {
			d.fail(ErrMalformed, strconv.Itoa(len(anth)-d.i)+" bytes after the request")
		}
	}
	if d.err != nil {
		return dst, d.err
	}
	return d.dst, nil
}

// seedPartAt returns the offset of message i's first part in req's seed
// form.
func seedPartAt(req Seed, i int) int {
	at := len(requestMagic) + 2 + len(req.Model)
	if seedParts(req) >= 255 {
		at += 2
	}
	for _, m := range req.Messages[:i] {
		at += 3*max(1, (len(m.Content)+0xFFFE)/0xFFFF) + len(m.Content)
	}
	return at
}

// appendSeedJSON writes a seed request as the Messages API's JSON: a system
// message first becomes the system prompt.
func appendSeedJSON(b []byte, req Seed) []byte {
	b = append(b, `{"model":`...)
	b = jsonlex.AppendString(b, []byte(req.Model))
	msgs := req.Messages
	if len(msgs) > 0 && msgs[0].Role == RoleSystem {
		b = append(b, `,"system":`...)
		b = jsonlex.AppendString(b, []byte(msgs[0].Content))
		msgs = msgs[1:]
	}
	b = append(b, `,"messages":[`...)
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b = jsonlex.AppendString(b, []byte(roleNames[m.Role]))
		b = append(b, `,"content":`...)
		b = jsonlex.AppendString(b, []byte(m.Content))
		b = append(b, '}')
	}
	b = append(b, `],"max_tokens":`...)
	b = strconv.AppendUint(b, uint64(req.MaxTokens), 10)
	return append(b, '}')
}

var roleNames = [...]string{RoleUser: "user", RoleAssistant: "assistant", RoleSystem: "system"}

// antxToJSON writes an extended request's values as JSON, checking that
// they are canonical.
type antxToJSON struct {
	src, dst []byte
	i        int
	maxDepth int
	err      error
	base     int       // where the JSON starts in dst
	maxOut   int       // Limits.MaxOutputSize
	keys     []keySpan // the keys of the objects open, each in src
	compares int       // key comparisons, as jsonToANTH's
	dict     *dictionary
}

func (d *antxToJSON) fail(kind error, detail string) bool {
	if d.err == nil {
		d.err = &Error{Offset: int64(d.i), Err: kind, Detail: detail}
	}
	return false
}

// room reports whether n more bytes of JSON, and the separator pre (','
// or ':', or 0 for none), stay within maxOut, and if they do writes pre.
// Every byte is counted before it is written, so the JSON held is never
// more than the limit and JSON of exactly the limit passes (SPEC.md §5.4's
// limits; Limits.MaxOutputSize). Over it, ErrTooLarge at at, the offset of
// the tag the bytes come from.
func (d *antxToJSON) room(at int, pre byte, n int) bool {
	if pre != 0 {
		n++
	}
	if len(d.dst)-d.base+n > d.maxOut {
		d.i = at
		return d.fail(ErrTooLarge, "the request's JSON would pass "+strconv.Itoa(d.maxOut)+" bytes")
	}
	if pre != 0 {
		d.dst = append(d.dst, pre)
	}
	return true
}

func (d *antxToJSON) peek() (byte, bool) {
	if d.i >= len(d.src) {
		return 0, d.fail(ErrTruncated, "the request ends where a value should be")
	}
	return d.src[d.i], true
}

func (d *antxToJSON) byte() (byte, bool) {
	b, ok := d.peek()
	if ok {
		d.i++
	}
	return b, ok
}

// bytes reads a uv length and that many bytes.
func (d *antxToJSON) bytes() ([]byte, bool) {
	n, k := binary.Uvarint(d.src[d.i:])
	if k == 0 {
		return nil, d.fail(ErrTruncated, "the request ends inside a length")
	}
	if k < 0 || k != uvarintLen(n) {
		return nil, d.fail(ErrMalformed, "a length that is not a minimal uvarint")
	}
	if n > uint64(len(d.src)-d.i-k) {
		return nil, d.fail(ErrTruncated, "the request ends inside a value of "+strconv.FormatUint(n, 10)+" bytes")
	}
	d.i += k
	d.i += int(n)
	return d.src[d.i-int(n) : d.i], true
}

// value writes the value at d.i, which stands at p (placeValue, or
// placeData for the value of a "data" key), after the separator pre (',',
// ':' or 0 for none).
func (d *antxToJSON) value(depth int, p place, pre byte) bool {
	at := d.i
	tag, ok := d.byte()
	if !ok {
		return false
	}
	var lit string
	switch tag {
	case tagNull:
		lit = "null"
	case tagFalse:
		lit = "false"
	case tagTrue:
		lit = "true"
	case tagInteger:
		v, k := binary.Uvarint(d.src[d.i:])
		if k == 0 {
			return d.fail(ErrTruncated, "the request ends inside an integer")
		}
		if k < 0 || k != uvarintLen(v) {
			return d.fail(ErrMalformed, "a bad integer")
		}
		var buf [20]byte
		text := strconv.AppendInt(buf[:0], int64(v>>1)^-int64(v&1), 10)
		if !d.room(at, pre, len(text)) {
			return false
		}
		d.i += k
		d.dst = append(d.dst, text...)
		return true
	case tagNumber:
		return d.number(at, pre)
	case tagString, tagDict, tagBase64:
		d.i = at
		return d.string(p, pre)
	case tagDataURL:
		if !d.dict.dataURL {
			break
		}
		return d.dataURL(at, pre)
	case tagArray, tagObject:
		if depth >= d.maxDepth {
			d.i = at
			return d.fail(ErrTooLarge, "nested deeper than "+strconv.Itoa(d.maxDepth))
		}
		if tag == tagArray {
			return d.list(at, pre, ']', func(first bool) bool { return d.value(depth+1, placeValue, sep(first, ',')) })
		}
		return d.object(at, pre, depth)
	}
	if lit == "" {
		d.i = at
		return d.fail(ErrMalformed, "value tag "+strconv.Itoa(int(tag)))
	}
	if !d.room(at, pre, len(lit)) {
		return false
	}
	d.dst = append(d.dst, lit...)
	return true
}

// sep is the separator before an element: none before the first.
func sep(first bool, c byte) byte {
	if first {
		return 0
	}
	return c
}

// string writes the string at d.i, standing at p (literal, from the
// dictionary or base64), as JSON, checking that it takes its canonical
// form: equal strings have equal encodings. pre is the separator before
// it, as value's.
func (d *antxToJSON) string(p place, pre byte) bool {
	at := d.i
	tag, _ := d.byte()
	switch tag {
	case tagDict:
		w, ok := d.word()
		if !ok {
			return false
		}
		if !d.room(at, pre, escapedLen(w)+2) {
			return false
		}
		d.dst = jsonlex.AppendString(d.dst, w)
		return true
	case tagBase64:
		raw, ok := d.bytes()
		if !ok {
			return false
		}
		if p != placeData || len(raw) == 0 {
			d.i = at
			return d.fail(ErrMalformed, "base64 bytes outside a \"data\" value")
		}
		if !d.room(at, pre, base64.StdEncoding.EncodedLen(len(raw))+2) {
			return false
		}
		d.dst = append(d.dst, '"')
		d.dst = base64.StdEncoding.AppendEncode(d.dst, raw)
		d.dst = append(d.dst, '"')
		return true
	case tagString:
		s, ok := d.bytes()
		if !ok {
			return false
		}
		switch {
		case !utf8.Valid(s):
			d.i = at
			return d.fail(ErrMalformed, "a string that is not UTF-8")
		case canonicalElsewhere(s, p, d.dict):
			// SPEC.md §5.4: each string has one encoding.
			d.i = at
			return d.fail(ErrMalformed, "a string sent literally that has a shorter canonical form")
		}
		if !d.room(at, pre, escapedLen(s)+2) {
			return false
		}
		d.dst = jsonlex.AppendString(d.dst, s)
		return true
	}
	d.i = at
	return d.fail(ErrMalformed, "value tag "+strconv.Itoa(int(tag))+", want a string")
}

// word reads a dictionary index, after its tag 06, and returns its string.
func (d *antxToJSON) word() (string, bool) {
	i, ok := d.byte()
	if !ok {
		return "", false
	}
	if int(i) >= len(d.dict.words) {
		d.i--
		return "", d.fail(ErrMalformed, "dictionary index "+strconv.Itoa(int(i)))
	}
	return d.dict.words[i], true
}

// dataURL writes the data URL whose tag 0B is at at (SPEC.md §5.5): its
// prefix, a string of the dictionary or a literal one that is not, then
// at least one byte, whose base64 follows the prefix. pre is the separator
// before it, as value's.
func (d *antxToJSON) dataURL(at int, pre byte) bool {
	pat := d.i
	tag, ok := d.byte()
	if !ok {
		return false
	}
	var prefix []byte
	switch tag {
	case tagDict:
		w, ok := d.word()
		if !ok {
			return false
		}
		prefix = []byte(w) // at most maxChatDictString bytes
	case tagString:
		if prefix, ok = d.bytes(); !ok {
			return false
		}
		if !utf8.Valid(prefix) {
			d.i = pat
			return d.fail(ErrMalformed, "a data URL's prefix that is not UTF-8")
		}
		if _, in := d.dict.lookup(prefix); in {
			d.i = pat
			return d.fail(ErrMalformed, "a data URL's prefix sent literally that is in the dictionary")
		}
	default:
		d.i = pat
		return d.fail(ErrMalformed, "value tag "+strconv.Itoa(int(tag))+", want a data URL's prefix (05 or 06)")
	}
	if !dataURLPrefix(prefix) {
		d.i = pat
		return d.fail(ErrMalformed, "a data URL's prefix must start with \"data:\", end with \";base64,\" and have no other comma")
	}
	raw, ok := d.bytes()
	if !ok {
		return false
	}
	if len(raw) == 0 {
		d.i = at
		return d.fail(ErrMalformed, "a data URL of no bytes")
	}
	if !d.room(at, pre, escapedLen(prefix)+base64.StdEncoding.EncodedLen(len(raw))+2) {
		return false
	}
	d.dst = append(d.dst, '"')
	d.dst = jsonlex.AppendEscaped(d.dst, prefix)
	d.dst = base64.StdEncoding.AppendEncode(d.dst, raw)
	d.dst = append(d.dst, '"')
	return true
}

// canonicalElsewhere reports whether a string's canonical encoding in dict
// is not the literal one: it is in the dictionary; it is a "data" value
// that is canonical base64; or, in a version with data URLs, it is a value
// that is a data URL of canonical base64.
func canonicalElsewhere(s []byte, p place, dict *dictionary) bool {
	if _, ok := dict.lookup(s); ok {
		return true
	}
	if p != placeKey && dict.dataURL {
		if _, data, ok := dataURLSplit(s); ok && canonicalBase64(data) {
			return true
		}
	}
	return p == placeData && canonicalBase64(s)
}

// canonicalBase64 reports whether s is standard padded base64 of at least
// one byte that encodes back to exactly s.
func canonicalBase64(s []byte) bool {
	if len(s) == 0 || len(s)%4 != 0 {
		return false
	}
	raw, err := base64.StdEncoding.AppendDecode(nil, s)
	return err == nil && encodesTo(raw, s)
}

// number writes a number sent as text, which must be a JSON number that is
// not a canonical int64. pre is the separator before it, as value's.
func (d *antxToJSON) number(at int, pre byte) bool {
	text, ok := d.bytes()
	if !ok {
		return false
	}
	if n, ok := jsonlex.Number(text); !ok || n != len(text) {
		d.i = at
		return d.fail(ErrMalformed, "a number that is not a JSON number")
	}
	if _, isInt := canonicalInt(text); isInt {
		d.i = at
		return d.fail(ErrMalformed, "an integer sent as text")
	}
	if !d.room(at, pre, len(text)) {
		return false
	}
	d.dst = append(d.dst, text...)
	return true
}

// object writes the object whose tag is at at, after the separator pre.
func (d *antxToJSON) object(at int, pre byte, depth int) bool {
	keysAt := len(d.keys)
	defer func() { d.keys = d.keys[:keysAt] }()
	ok := d.list(at, pre, '}', func(first bool) bool {
		at := d.i
		if !d.string(placeKey, sep(first, ',')) {
			return false
		}
		d.keys = append(d.keys, keySpan{at: uint32(at), start: uint32(at)})
		// "data" is in the dictionary: its one encoding is its index.
		p := placeValue
		if d.src[at] == tagDict && d.dict.words[d.src[at+1]] == "data" {
			p = placeData
		}
		return d.value(depth+1, p, ':')
	})
	// SPEC.md §5.4: "an object has no two equal keys"; equal strings have
	// equal encodings. As in jsonToANTH.object, a repeat is found when the
	// object ends, or fails after it.
	before := len(d.src) + 1
	if !ok {
		before = errOffset(d.err)
	}
	if k, dup := firstRepeat(d.keys[keysAt:], d.src, before, &d.compares); dup {
		d.err = &Error{Offset: int64(k.at), Err: ErrMalformed, Detail: "duplicate key " + string(jsonlex.AppendString(nil, keyText(d.src[k.start:], d.dict)))}
		return false
	}
	return ok
}

// list writes the array or object whose tag is at at, after the separator
// pre: its elements up to its end tag, each writing the comma before it.
// The opening bracket counts at the tag, the closing one at the end tag.
func (d *antxToJSON) list(at int, pre byte, end byte, elem func(first bool) bool) bool {
	if !d.room(at, pre, 1) {
		return false
	}
	d.dst = append(d.dst, end-2) // '[' or '{'
	for first := true; ; first = false {
		t, ok := d.peek()
		if !ok {
			return false
		}
		if t == tagEnd {
			if !d.room(d.i, 0, 1) {
				return false
			}
			d.i++
			d.dst = append(d.dst, end)
			return true
		}
		if !elem(first) {
			return false
		}
	}
}

// escapedLen returns the length of valid UTF-8 s escaped as jsonlex.AppendEscaped
// escapes it.
func escapedLen[T string | []byte](s T) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// seedJSONSize returns the length of appendSeedJSON's JSON for req or, once
// it passes limit, more than limit and the offset in the seed request of the
// field whose JSON takes it past (Limits.MaxOutputSize): the model, a
// message's first part or max_tokens, each with the punctuation before it.
func seedJSONSize(req Seed, limit int) (n, at int) {
	n = len(`{"model":""`) + escapedLen(req.Model)
	if n > limit {
		return n, len(requestMagic)
	}
	at = len(requestMagic) + 2 + len(req.Model)
	if seedParts(req) >= countEscape {
		at += 2 // the escaped part count (SPEC.md §5.2): FF, then a u16
	}
	open := `,"messages":[`
	for i, m := range req.Messages {
		if i == 0 && m.Role == RoleSystem {
			n += len(`,"system":""`) + escapedLen(m.Content)
		} else {
			n += len(open) + len(`{"role":"","content":""}`) + len(roleNames[m.Role]) + escapedLen(m.Content)
			open = ","
		}
		if n > limit {
			return n, at
		}
		at += 3*split(len(m.Content), partMax) + len(m.Content)
	}
	if open == "," {
		open = ""
	}
	var buf [10]byte
	return n + len(open) + len(`],"max_tokens":}`) + len(strconv.AppendUint(buf[:0], uint64(req.MaxTokens), 10)), at
}
