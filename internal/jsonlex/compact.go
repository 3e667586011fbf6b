package jsonlex

// AppendCompact appends src, one JSON value, with the insignificant
// whitespace removed, and reports whether src is one well-formed JSON value
// (RFC 8259), exactly as encoding/json.Compact decides (it does not check
// the UTF-8 inside strings either). The bridge compacts every event it
// reads; encoding/json's state machine, a function call a byte, took most
// of the time a text delta costs, where this costs a byte comparison for
// most bytes of a string.
func AppendCompact(dst, src []byte) ([]byte, bool) {
	out, ok, _ := AppendCompactWatch(dst, src, nil)
	return out, ok
}

// Valid reports whether src is one well-formed JSON value, as AppendCompact
// (and encoding/json.Valid) decides, without writing anything: a relay that
// passes events on as they are checks them with it (BenchmarkValid sets it
// beside encoding/json.Valid).
func Valid(src []byte) bool {
	c := compactor{src: src, check: true}
	c.skipSpace()
	if !c.value(0) {
		return false
	}
	c.skipSpace() // RFC 8259 §2: whitespace is allowed after the value too
	return c.i == len(src)
}

// AppendCompactWatch is AppendCompact that also returns the raw value at
// path (object keys from the top, at most 3), if src has one: what
// Field(src, path...) returns, found in the same pass.
func AppendCompactWatch(dst, src []byte, path []string) ([]byte, bool, []byte) {
	c := compactor{src: src, dst: dst, path: path}
	c.skipSpace()
	if !c.value(0) {
		return dst, false, nil
	}
	c.skipSpace()
	return append(c.dst, src[c.mark:c.i]...), c.i == len(src), c.found
}

// MaxDepth bounds nesting as encoding/json does, so hostile input cannot
// make the recursion deep.
const MaxDepth = 10000

// compactor reads one JSON value from src at i. Compacting, it copies
// src to dst a run at a time: only whitespace is left out, and all of it
// is where skipSpace skips it, so src[mark:i] is owed to dst until the
// next run of whitespace, or the end, flushes it. A value the API wrote
// compact already is one copy, not an append for every token (the bridge
// compacts every event it reads: issue 26).
type compactor struct {
	src, dst []byte
	check    bool // Valid: read, write nothing
	i        int
	mark     int // src[mark:i] is owed to dst
	path     []string
	keys     [3][]byte // the raw key being read at each depth of path
	found    []byte
}

// watched reports whether the value about to be read at depth is at path.
func (c *compactor) watched(depth int) bool {
	if depth != len(c.path) || c.found != nil || depth == 0 {
		return false
	}
	for d, key := range c.path {
		if !sameKey(c.keys[d], key) {
			return false
		}
	}
	return true
}

// skipSpace skips whitespace, flushing what is owed to dst before it.
func (c *compactor) skipSpace() {
	j := SkipSpace(c.src, c.i)
	if j == c.i {
		return
	}
	if !c.check {
		c.dst = append(c.dst, c.src[c.mark:c.i]...)
		c.mark = j
	}
	c.i = j
}

func (c *compactor) value(depth int) bool {
	if c.i >= len(c.src) || depth >= MaxDepth {
		return false
	}
	if c.watched(depth) {
		start := c.i
		ok := c.parse(depth)
		if ok {
			c.found = c.src[start:c.i]
		}
		return ok
	}
	return c.parse(depth)
}

func (c *compactor) parse(depth int) bool {
	switch b := c.src[c.i]; {
	case b == '"':
		return c.string()
	case b == '{':
		return c.object(depth)
	case b == '[':
		return c.array(depth)
	case b == '-' || b >= '0' && b <= '9':
		return c.number()
	case b == 't':
		return c.literal("true")
	case b == 'f':
		return c.literal("false")
	case b == 'n':
		return c.literal("null")
	}
	return false
}

func (c *compactor) literal(lit string) bool {
	if len(c.src)-c.i < len(lit) || string(c.src[c.i:c.i+len(lit)]) != lit {
		return false
	}
	c.i += len(lit)
	return true
}

func (c *compactor) object(depth int) bool { return c.list('}', depth) }

func (c *compactor) array(depth int) bool { return c.list(']', depth) }

// list reads an object or array, whose opening byte is at c.i: its
// elements (an object's each after its key), with commas between, up to
// end: one loop for both, with no closure called an element.
func (c *compactor) list(end byte, depth int) bool {
	c.i++
	c.skipSpace()
	if c.i < len(c.src) && c.src[c.i] == end {
		c.i++
		return true
	}
	for {
		if end == '}' && !c.key(depth) || !c.value(depth+1) {
			return false
		}
		c.skipSpace()
		if c.i >= len(c.src) {
			return false
		}
		switch c.src[c.i] {
		case ',':
			c.i++
			c.skipSpace()
		case end:
			c.i++
			return true
		default:
			return false
		}
	}
}

// key reads an object member's key and its colon, and the whitespace
// after them, keeping the key when path looks at this depth.
func (c *compactor) key(depth int) bool {
	keyAt := c.i
	if c.i >= len(c.src) || c.src[c.i] != '"' || !c.string() {
		return false
	}
	if depth < len(c.path) {
		c.keys[depth] = c.src[keyAt+1 : c.i-1]
	}
	c.skipSpace()
	if c.i >= len(c.src) || c.src[c.i] != ':' {
		return false
	}
	c.i++
	c.skipSpace()
	return true
}

// string reads a string, checking its escapes; control characters must
// be escaped. Its bytes are most of what an event's JSON is: each costs a
// look in plainByte, and the index is a local, as through c every byte
// would be a store.
func (c *compactor) string() bool {
	src := c.src
	for i := c.i + 1; i < len(src); i++ {
		b := src[i]
		if plainByte[b] {
			continue // the common case, first
		}
		switch {
		case b == '"':
			c.i = i + 1
			return true
		case b == '\\':
			if i+1 >= len(src) {
				return false
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+5 >= len(src) {
					return false
				}
				for _, h := range src[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				i += 5
			default:
				return false
			}
		case b < 0x20:
			return false
		}
	}
	return false
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (c *compactor) number() bool {
	n, ok := Number(c.src[c.i:])
	if !ok {
		return false
	}
	c.i += n
	return true
}

// Number reads the JSON number (RFC 8259 §6) that b starts with, the
// longest the grammar allows, and returns its length; if b does not start
// with one, it returns false and the index of the first byte that breaks the
// grammar. It is the module's one reading of the number grammar.
func Number(b []byte) (n int, ok bool) {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if !digits() {
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}

// plainByte says which bytes a string holds as they are: all but the
// quote, the backslash and the control characters.
var plainByte = func() (t [256]bool) {
	for b := range t {
		t[b] = b >= 0x20 && b != '"' && b != '\\'
	}
	return t
}()
