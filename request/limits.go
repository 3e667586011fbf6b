package request

// Limits bound what a request's readers and converters accept, so that a
// peer cannot make them allocate more than the caller allows (SPEC.md §5.3,
// §5.4 and §12). A zero or negative field takes the default; any positive
// value, math.MaxInt included, is a limit. One Limits serves every entry
// point: Parse and Read use MaxSize and MaxMessages; AppendANTH,
// AppendJSON, AppendChatANTH and AppendChatJSON MaxSize, MaxDepth and
// MaxOutputSize.
type Limits struct {
	// MaxSize is the largest request in bytes, JSON or ANTH. Default 32
	// MiB, the Messages API's own limit. The converters hold offsets as
	// uint32, so they take at most 4 GiB whatever it is set to.
	MaxSize int
	// MaxMessages is the most parts (messages, counting each continuation
	// part) a seed request may hold. Default 10,000.
	MaxMessages int
	// MaxDepth bounds the nesting of arrays and objects. Default 128.
	MaxDepth int
	// MaxOutputSize bounds the JSON AppendJSON writes, exactly: JSON of
	// MaxOutputSize bytes passes, a byte more does not. Each byte is counted
	// before it is written, so no more than the limit is held, and the first
	// that would pass it fails with ErrTooLarge at the offset in the request
	// of what it comes from: in the extended form, the tag of the value or
	// key (counting the comma or colon before it) or the end tag of the "]"
	// or "}"; in the seed form, the model (its length byte), a message's
	// first part or max_tokens (each counting the punctuation before it,
	// a leading system message as the "system" field). Default 32 MiB, the
	// Messages API's own limit, so nothing is forwarded that the API would
	// refuse (or MaxSize, if that is set larger). ANTX expands to at most
	// 14 bytes of JSON a byte (a dictionary string of 25 bytes, tag and
	// index: "disable_parallel_tool_use", 28 bytes with its quotes and
	// comma; 13 in version 2, the Chat Completions form, whose longest
	// string is 23 bytes), the seed form to at most 34/3 (an empty part:
	// {"role":"assistant","content":""},), so without this bound a 32 MiB
	// request became 470 MB of JSON.
	MaxOutputSize int
}

const (
	defaultMaxSize     = 32 << 20
	defaultMaxMessages = 10_000
	defaultMaxDepth    = 128
)

// seedSize is the bound of Parse and Read, compared by subtraction (never
// seedSize()+1), so math.MaxInt is a limit like any other.
func (l Limits) seedSize() int {
	if l.MaxSize > 0 {
		return l.MaxSize
	}
	return defaultMaxSize
}

// size is the bound of the converters.
func (l Limits) size() int {
	if l.MaxSize > 0 {
		// Offsets are held as uint32 (keySpan): 4 GiB at most.
		return min(l.MaxSize, 1<<32-1)
	}
	return defaultMaxSize
}

func (l Limits) messages() int {
	if l.MaxMessages > 0 {
		return l.MaxMessages
	}
	return defaultMaxMessages
}

func (l Limits) depth() int {
	if l.MaxDepth > 0 {
		return l.MaxDepth
	}
	return defaultMaxDepth
}

func (l Limits) output() int {
	if l.MaxOutputSize > 0 {
		return l.MaxOutputSize
	}
	return min(max(l.size(), defaultMaxSize), 1<<32-1)
}
