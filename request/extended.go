package request

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/layer0/anth/internal/jsonlex"
)

// The extended request (SPEC.md §5.4): the whole of a request body, any
// JSON, as one binary value: a Messages API request the seed form of §5
// cannot carry (version 1), or a Chat Completions request (version 2,
// §5.5). The version selects the dictionary; the codec is one. A value is
// a tag byte and what the tag says follows.
const (
	requestMagic = "ANTX"

	tagNull    = 0x00
	tagFalse   = 0x01
	tagTrue    = 0x02
	tagInteger = 0x03 // uv, zigzag: a canonical int64 integer
	tagNumber  = 0x04 // uv length, then the JSON number as written
	tagString  = 0x05 // uv length, then UTF-8
	tagDict    = 0x06 // u8: an index in the version's dictionary
	tagBase64  = 0x07 // uv length, then the bytes a base64 "data" string holds
	tagArray   = 0x08 // values, then tagEnd
	tagObject  = 0x09 // key and value pairs, then tagEnd; a key is a string
	tagEnd     = 0x0A
	tagDataURL = 0x0B // version 2 (§5.5): a prefix string (05 or 06), then uv length and the bytes
)

// AppendANTH appends the ANTH form of a Messages API request body,
// json, to dst, under the default Limits: the seed form of SPEC.md §5
// when the request has nothing the seed form cannot carry (a model, text
// messages, max_tokens, a system prompt), byte for byte as a seed sender
// makes it, else the extended form of §5.4, which carries any JSON, fields
// this version does not know included. See Limits.AppendANTH.
func AppendANTH(dst, json []byte) ([]byte, error) {
	return Limits{}.AppendANTH(dst, json)
}

// AppendANTH appends the ANTH form of json. Converted back by
// AppendJSON, the request is the same JSON value, key order aside
// (the extended form keeps it): numbers keep their exact decimal
// spelling, and image and document data travel as the bytes their base64
// stands for. Bad JSON is an *Error wrapping ErrMalformed with its offset
// in json; json over the limits, ErrTooLarge. On error dst is unchanged.
func (l Limits) AppendANTH(dst, json []byte) ([]byte, error) {
	start := len(dst)
	out, err := l.appendExtended(dst, json, messagesDict)
	if err != nil {
		return dst, err
	}
	ext := out[start:]
	if req, ok := seedRequest(ext[len(requestMagic)+1:]); ok && seedParts(req) <= seedMaxParts {
		if seed, err := Append(out[:start], req); err == nil {
			return seed, nil
		}
	}
	return out, nil
}

// appendExtended appends the extended form of json, a JSON object, with
// dict's version byte and dictionary (SPEC.md §5.4, §5.5). On error dst is
// unchanged.
func (l Limits) appendExtended(dst, json []byte, dict *dictionary) ([]byte, error) {
	if len(json) > l.size() {
		return dst, &Error{Offset: int64(l.size()), Err: ErrTooLarge, Detail: "request of " + strconv.Itoa(len(json)) + " bytes, limit " + strconv.Itoa(l.size())}
	}
	start := len(dst)
	dst = append(dst, requestMagic...)
	dst = append(dst, dict.version)
	e := jsonToANTH{src: json, dst: dst, base: start, maxDepth: l.depth(), dict: dict}
	e.space()
	if e.i >= len(json) || json[e.i] != '{' {
		e.fail("a request is a JSON object")
	} else if e.value(0, placeValue) {
		if e.space(); e.i != len(json) {
			e.fail("bytes after the request's JSON")
		}
	}
	if e.err != nil {
		return dst[:start], e.err
	}
	return e.dst, nil
}

// jsonToANTH writes JSON as an extended request's values, in one pass.
type jsonToANTH struct {
	src, dst []byte
	i        int
	maxDepth int
	err      error
	str      []byte    // a decoded string: src's bytes when it has no escape
	buf      []byte    // a string's bytes, escapes decoded
	keys     []keySpan // the keys of the objects open, each in dst[base:]
	base     int       // where the request starts in dst
	dict     *dictionary
	// compares counts key comparisons, so a test can hold the duplicate
	// check to O(n log n) without timing it.
	compares int
}

func (e *jsonToANTH) fail(detail string) bool {
	if e.err == nil {
		e.err = &Error{Offset: int64(e.i), Err: ErrMalformed, Detail: detail}
	}
	return false
}

func (e *jsonToANTH) space() { e.i = jsonlex.SkipSpace(e.src, e.i) }

// value writes the value at e.i, which stands at p: placeValue, or
// placeData for the value of a "data" key.
func (e *jsonToANTH) value(depth int, p place) bool {
	if e.i >= len(e.src) {
		return e.fail("the JSON ends where a value should be")
	}
	switch c := e.src[e.i]; {
	case c == '{' || c == '[':
		if depth >= e.maxDepth {
			e.err = &Error{Offset: int64(e.i), Err: ErrTooLarge, Detail: "nested deeper than " + strconv.Itoa(e.maxDepth)}
			return false
		}
		if c == '{' {
			return e.object(depth)
		}
		return e.array(depth)
	case c == '"':
		if !e.string() {
			return false
		}
		e.writeString(p)
		return true
	case c == '-' || c >= '0' && c <= '9':
		return e.number()
	}
	for _, lit := range [...]struct {
		text string
		tag  byte
	}{{"null", tagNull}, {"false", tagFalse}, {"true", tagTrue}} {
		if len(e.src)-e.i >= len(lit.text) && string(e.src[e.i:e.i+len(lit.text)]) == lit.text {
			e.dst = append(e.dst, lit.tag)
			e.i += len(lit.text)
			return true
		}
	}
	return e.fail("not a JSON value")
}

func (e *jsonToANTH) object(depth int) bool {
	e.dst = append(e.dst, tagObject)
	keysAt := len(e.keys)
	defer func() { e.keys = e.keys[:keysAt] }()
	ok := e.list('}', func() bool {
		at := e.i
		if e.i >= len(e.src) || e.src[e.i] != '"' || !e.string() {
			return e.fail("an object key must be a string")
		}
		p := placeValue
		if string(e.str) == "data" {
			p = placeData
		}
		start := len(e.dst)
		e.writeString(placeKey)
		e.keys = append(e.keys, keySpan{at: uint32(at), start: uint32(start - e.base)})
		if e.space(); e.i >= len(e.src) || e.src[e.i] != ':' {
			return e.fail("want ':' after an object key")
		}
		e.i++
		e.space()
		return e.value(depth+1, p)
	})
	// SPEC.md §5.4: "an object has no two equal keys". Equal strings have
	// one encoding, so the keys are compared as written, all at once when
	// the object ends (or fails: a repeat before the failure is the first
	// error, as a scan key by key would have found it).
	before := len(e.src) + 1
	if !ok {
		before = errOffset(e.err)
	}
	if k, dup := firstRepeat(e.keys[keysAt:], e.dst[e.base:], before, &e.compares); dup {
		e.err = &Error{Offset: int64(k.at), Err: ErrMalformed, Detail: "duplicate key " + strconv.Quote(keyText(e.dst[e.base+int(k.start):], e.dict))}
		return false
	}
	return ok
}

func (e *jsonToANTH) array(depth int) bool {
	e.dst = append(e.dst, tagArray)
	return e.list(']', func() bool { return e.value(depth+1, placeValue) })
}

// list writes an object's or array's elements, each by elem, up to end.
func (e *jsonToANTH) list(end byte, elem func() bool) bool {
	e.i++
	e.space()
	if e.i < len(e.src) && e.src[e.i] == end {
		e.i++
		e.dst = append(e.dst, tagEnd)
		return true
	}
	for {
		if !elem() {
			return false
		}
		e.space()
		if e.i >= len(e.src) {
			return e.fail("the JSON ends inside an object or array")
		}
		switch e.src[e.i] {
		case ',':
			e.i++
			e.space()
		case end:
			e.i++
			e.dst = append(e.dst, tagEnd)
			return true
		default:
			return e.fail("want ',' or '" + string(end) + "'")
		}
	}
}

// string decodes the JSON string at e.i into e.str: the source's own
// bytes when the string has no escape, the common case, else a copy.
func (e *jsonToANTH) string() bool {
	start := e.i
	for e.i++; e.i < len(e.src); e.i++ {
		if c := e.src[e.i]; c == '"' {
			e.str = e.src[start+1 : e.i]
			e.i++
			if !utf8.Valid(e.str) {
				e.i = start
				return e.fail("a string that is not UTF-8")
			}
			return true
		} else if c == '\\' || c < 0x20 {
			break
		}
	}
	e.buf = append(e.buf[:0], e.src[start+1:min(e.i, len(e.src))]...)
	for e.i < len(e.src) {
		c := e.src[e.i]
		switch {
		case c == '"':
			e.i++
			if e.str = e.buf; !utf8.Valid(e.str) {
				e.i = start
				return e.fail("a string that is not UTF-8")
			}
			return true
		case c == '\\':
			n, ok := jsonlex.Unescape(&e.buf, e.src[e.i:])
			if !ok {
				return e.fail("a bad escape, or a lone surrogate")
			}
			e.i += n
		case c < 0x20:
			return e.fail("a control character in a string")
		default:
			e.buf = append(e.buf, c)
			e.i++
		}
	}
	return e.fail("the JSON ends inside a string")
}

// place is where a string stands, which decides the encodings it may take
// (SPEC.md §5.4, §5.5): a key is only ever 05 or 06.
type place uint8

const (
	placeKey   place = iota // an object's key
	placeValue              // any other value
	placeData               // the value of a key "data"
)

// writeString writes e.str, the string at p: from the dictionary if it is
// there; as bytes if it is a value and a data URL of canonical base64
// (version 2), or the canonical base64 of a "data" key; else as it is.
func (e *jsonToANTH) writeString(p place) {
	if i, ok := e.dict.lookup(e.str); ok {
		e.dst = append(e.dst, tagDict, i)
		return
	}
	if p != placeKey && e.dict.dataURL && e.appendDataURL() {
		return
	}
	if p == placeData && e.appendBase64(tagBase64, e.str) {
		return
	}
	e.appendLiteral(e.str)
}

// appendLiteral writes s as tag 05.
func (e *jsonToANTH) appendLiteral(s []byte) {
	e.dst = append(e.dst, tagString)
	e.dst = binary.AppendUvarint(e.dst, uint64(len(s)))
	e.dst = append(e.dst, s...)
}

// appendDataURL writes e.str as tag 0B if it is a data URL whose data is
// canonical base64 (SPEC.md §5.5, dataURLSplit), and reports whether it
// did: the tag, its prefix as a string, then the bytes.
func (e *jsonToANTH) appendDataURL() bool {
	prefix, data, ok := dataURLSplit(e.str)
	if !ok {
		return false
	}
	at := len(e.dst)
	e.dst = append(e.dst, tagDataURL)
	if i, ok := e.dict.lookup(prefix); ok {
		e.dst = append(e.dst, tagDict, i)
	} else {
		e.appendLiteral(prefix)
	}
	if !e.appendBase64(0, data) {
		e.dst = e.dst[:at]
		return false
	}
	return true
}

// appendBase64 writes s as tag (none if 0), its length and its bytes if it
// is standard padded base64 (RFC 4648 §4) of at least one byte whose bytes
// encode back to exactly it (SPEC.md §5.4), and reports whether it did.
func (e *jsonToANTH) appendBase64(tag byte, s []byte) bool {
	if len(s) == 0 || len(s)%4 != 0 {
		return false
	}
	n := len(s) / 4 * 3
	for k := 1; k <= 2 && s[len(s)-k] == '='; k++ {
		n--
	}
	at := len(e.dst)
	if tag != 0 {
		e.dst = append(e.dst, tag)
	}
	e.dst = binary.AppendUvarint(e.dst, uint64(n))
	raw := len(e.dst)
	var err error
	if e.dst, err = base64.StdEncoding.AppendDecode(e.dst, s); err != nil || len(e.dst)-raw != n || !encodesTo(e.dst[raw:], s) {
		e.dst = e.dst[:at]
		return false
	}
	return true
}

// encodesTo reports whether raw's standard base64 is s, encoding a piece at
// a time so nothing is allocated.
func encodesTo(raw, s []byte) bool {
	var buf [4 * 64]byte
	for len(raw) > 0 {
		k := min(len(raw), 3*64)
		n := base64.StdEncoding.EncodedLen(k)
		base64.StdEncoding.Encode(buf[:n], raw[:k])
		if string(buf[:n]) != string(s[:n]) {
			return false
		}
		raw, s = raw[k:], s[n:]
	}
	return len(s) == 0
}

// number writes the JSON number at e.i: as an integer when it is a
// canonical int64, else as its text.
func (e *jsonToANTH) number() bool {
	start := e.i
	n, ok := jsonlex.Number(e.src[e.i:])
	e.i += n
	if !ok {
		return e.fail("a bad number")
	}
	text := e.src[start:e.i]
	if v, ok := canonicalInt(text); ok {
		e.dst = append(e.dst, tagInteger)
		e.dst = binary.AppendUvarint(e.dst, uint64(v<<1^v>>63))
		return true
	}
	e.dst = append(e.dst, tagNumber)
	e.dst = binary.AppendUvarint(e.dst, uint64(len(text)))
	e.dst = append(e.dst, text...)
	return true
}

// canonicalInt returns the value of text if it is an int64 written as
// strconv.FormatInt writes it.
func canonicalInt(text []byte) (int64, bool) {
	v, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil || string(text) == "-0" {
		return 0, false
	}
	var buf [20]byte
	return v, string(strconv.AppendInt(buf[:0], v, 10)) == string(text)
}

// keySpan is one key of an object: at, where it starts in the input, and
// start, where its encoding (tag 05 or 06) starts in the buffer that holds
// it, counted from the conversion's first byte there. Eight bytes a key:
// an object's keys are held until it ends, and a key is 3 bytes of ANTX
// or 5 of JSON at the least, so this holds at most 8/3 bytes per byte of
// input, 16/3 with append's spare capacity. Inputs are under 4 GiB
// (Limits.size).
type keySpan struct{ at, start uint32 }

// keyLen returns the length of the key encoding at the start of enc.
func keyLen(enc []byte) int {
	if enc[0] == tagDict {
		return 2
	}
	n, k := binary.Uvarint(enc[1:])
	return 1 + k + int(n)
}

// firstRepeat returns the first key, in input order, that repeats an
// earlier key of keys (equal encodings in buf) and starts before before.
// It sorts keys in place, by encoding then position, so it makes O(n log n)
// comparisons for n keys where comparing each new key with all the
// earlier ones made n²/2: an object of 64,000 keys took 13 s. It counts
// them in *compares.
func firstRepeat(keys []keySpan, buf []byte, before int, compares *int) (keySpan, bool) {
	if len(keys) < 2 {
		return keySpan{}, false
	}
	key := func(k keySpan) []byte { return buf[k.start : int(k.start)+keyLen(buf[k.start:])] }
	slices.SortFunc(keys, func(a, b keySpan) int {
		*compares++
		if c := bytes.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.at, b.at)
	})
	var first keySpan
	found := false
	for i := 1; i < len(keys); i++ {
		k := keys[i]
		if int(k.at) < before && (!found || k.at < first.at) && bytes.Equal(key(keys[i-1]), key(k)) {
			first, found = k, true
		}
	}
	return first, found
}

// errOffset is where err, a conversion's *Error, says the input is bad.
func errOffset(err error) int {
	if e, ok := err.(*Error); ok {
		return int(e.Offset)
	}
	return -1
}

// keyText returns the string the key encoding at the start of enc stands
// for in dict.
func keyText(enc []byte, dict *dictionary) string {
	if enc[0] == tagDict {
		return dict.words[enc[1]]
	}
	n, k := binary.Uvarint(enc[1:])
	return string(enc[1+k : 1+k+int(n)])
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// seedRequest reads an extended request's values, as jsonToANTH wrote
// them, as a seed request if it is one: a model, messages of a role and a
// string of content, max_tokens, perhaps a system prompt, and nothing else
// (SPEC.md §5.4: such a request is sent in the seed form).
func seedRequest(v []byte) (req Seed, ok bool) {
	r := seedReader{b: v, ok: true}
	if r.tag() != tagObject {
		return req, false
	}
	var system *string
	seen := 0
	for r.ok && r.peek() != tagEnd {
		switch key := r.str(); key {
		case "model":
			req.Model = r.str()
		case "max_tokens":
			n, isInt := r.int()
			if !isInt || n < 0 || n > 1<<32-1 {
				return req, false
			}
			req.MaxTokens = uint32(n)
		case "system":
			s := r.str()
			system = &s
		case "messages":
			req.Messages = r.messages()
		default:
			return req, false
		}
		seen++
	}
	if !r.ok || seen != 3+btoi(system != nil) || req.Messages == nil {
		return req, false
	}
	if system != nil {
		req.Messages = append([]Message{{Role: RoleSystem, Content: *system}}, req.Messages...)
	}
	return req, true
}

// seedMaxParts is Limits' default MaxMessages: a seed request of
// more parts would be refused by a receiver with the default limits, so
// such a request is sent extended, and an extended request of at most
// this many parts that the seed form carries is not canonical.
const seedMaxParts = 10_000

// seedParts returns how many parts req takes in the seed form (SPEC.md
// §5.2: a part per 65,535 bytes of content, at least one a message).
func seedParts(req Seed) int {
	n := 0
	for _, m := range req.Messages {
		n += max(1, (len(m.Content)+0xFFFE)/0xFFFF)
	}
	return n
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// seedReader reads values jsonToANTH wrote; ok turns false at anything a
// seed request cannot hold.
type seedReader struct {
	b  []byte
	ok bool
}

func (r *seedReader) peek() byte {
	if !r.ok || len(r.b) == 0 {
		r.ok = false
		return tagEnd
	}
	return r.b[0]
}

func (r *seedReader) tag() byte {
	t := r.peek()
	if r.ok {
		r.b = r.b[1:]
	}
	return t
}

// str reads a string value, literal or from the dictionary.
func (r *seedReader) str() string {
	switch r.tag() {
	case tagDict:
		if len(r.b) > 0 && int(r.b[0]) < len(requestDictionary) {
			s := requestDictionary[r.b[0]]
			r.b = r.b[1:]
			return s
		}
	case tagString:
		n, k := binary.Uvarint(r.b)
		if k > 0 && n <= uint64(len(r.b)-k) {
			s := string(r.b[k : k+int(n)])
			r.b = r.b[k+int(n):]
			return s
		}
	}
	r.ok = false
	return ""
}

func (r *seedReader) int() (int64, bool) {
	if r.tag() != tagInteger {
		r.ok = false
		return 0, false
	}
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.ok = false
		return 0, false
	}
	r.b = r.b[k:]
	return int64(v>>1) ^ -int64(v&1), true
}

// messages reads an array of {"role": "user"|"assistant", "content": string}.
func (r *seedReader) messages() []Message {
	msgs := []Message{}
	if r.tag() != tagArray {
		r.ok = false
	}
	for r.ok && r.peek() != tagEnd {
		if r.tag() != tagObject {
			r.ok = false
			break
		}
		var m Message
		keys := 0
		for r.ok && r.peek() != tagEnd {
			switch r.str() {
			case "role":
				switch r.str() {
				case "user":
					m.Role = RoleUser
				case "assistant":
					m.Role = RoleAssistant
				default:
					r.ok = false
				}
			case "content":
				m.Content = r.str()
			default:
				r.ok = false
			}
			keys++
		}
		r.tag() // the message's end
		if keys != 2 {
			r.ok = false
		}
		msgs = append(msgs, m)
	}
	r.tag() // the array's end
	return msgs
}
