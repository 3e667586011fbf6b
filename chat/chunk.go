package chat

import (
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
)

// The fields of a choice that are content blocks (SPEC.md §7b.1), in the
// order the open-field rule of §7b.2 reads them.
const (
	fieldContent = iota
	fieldRefusal
	fieldReasoningContent
	fieldReasoning
	fieldArguments
	numFields
)

// fieldNames are the fields' names, which are also the names of the EVENT
// that carries a changed template (§7b.2).
var fieldNames = [numFields]string{"content", "refusal", "reasoning_content", "reasoning", "arguments"}

// fieldKinds are the DELTA kinds of the fields' frames; 0 is a TEXT frame.
var fieldKinds = [numFields]frame.DeltaKind{0, 0, frame.DeltaThinking, frame.DeltaThinking, frame.DeltaInputJSON}

// fieldOf returns the field an EVENT name names, or -1.
func fieldOf(name []byte) int {
	for i, n := range fieldNames {
		if string(name) == n {
			return i
		}
	}
	return -1
}

const (
	// MaxTemplate is the longest template both sides of the bridge keep for
	// a block (SPEC.md §7b.2); a longer one serves its own chunk and is
	// forgotten. It bounds what an Encoder writes per frame it reads.
	MaxTemplate = 2048
	// MaxBlocks is the most blocks a stream numbers (§7b.2); the chunks of
	// further blocks travel whole.
	MaxBlocks = 64
	// maxIDs keeps a token_ids hole to one TOKEN32 frame.
	maxIDs = (frame.MaxPayload) / 4
	// maxHoleText keeps an open field's text to one TEXT or DELTA frame
	// (SPEC.md §4 would split a longer one, and each frame is a chunk).
	maxHoleText = frame.MaxPayload - 3
)

// span is a value's place in a chunk's JSON: js[off : off+n]. n == 0 means
// there is none.
type span struct{ off, n int }

func (s span) in(js []byte) []byte { return js[s.off : s.off+s.n] }

// at returns the span of v, a subslice of js.
func at(js, v []byte) span { return span{off: cap(js) - cap(v), n: len(v)} }

// The kinds of hole (§7b.2), by what fills them.
const (
	holeText = iota
	holeObfuscation
	holeTokens
	holeLogprobs
	// A usage object's counts (§7b.2, item 5), filled from a USAGE frame.
	holePrompt
	holeCompletion
	holeTotal
	// A copy of the text (Together AI's choices[0].text, OpenRouter's
	// reasoning_details[0].text, Writer's choices[0].message), and
	// Together's one token's ID in delta.token_id (§7b.2, item 6).
	holeTextCopy
	holeTokenID
)

// hole is one hole of a template: its place in the chunk and what fills it.
type hole struct {
	kind int
	at   span
}

// shape is what §7b.2 reads of one chunk: whether it is templatable, its
// block, and where its holes are.
type shape struct {
	field  int // the open field, or -1: not templatable
	choice uint16
	tool   uint16
	holes  [10]hole // in order of place
	nholes int
	// What the top level holds, for chunks that are not templatable.
	choices, usage, errv span
	// finish_reason and stop_reason of choices[0], when it has index 0.
	finish, stopReason span
	// strings is how many of the fields of §7b.1 are strings in the delta.
	strings int
}

// reader reads shapes, keeping its buffers: the text of the open field,
// unescaped, and the token IDs.
type reader struct {
	text []byte
	obf  []byte
	ids  []uint32
	lp   span // the logprob number of a logprobs hole
	obfN int  // the obfuscation's length
	// The counts of a usage hole, and its cached_tokens for the ratio.
	usage usageCounts
}

// read reads the shape of js, a chunk's compact JSON, as the Decoder does:
// a hole is made of whatever §7b.2 allows to be one.
func (r *reader) read(js []byte) shape {
	return r.shape(js, -1)
}

// shape reads js. With forced ≥ 0 it reads a template, as the Encoder does:
// the open field is forced, and a hole is where the template is empty
// ("" or []); it returns field -1 when the template does not fit.
func (r *reader) shape(js []byte, forced int) shape {
	sh := shape{field: -1}
	var choices, obf []byte
	dup := false
	ok := jsonlex.Members(js, func(k, v []byte) bool {
		switch string(k) {
		case `"choices"`:
			dup = dup || choices != nil
			choices = v
		case `"obfuscation"`:
			dup = dup || obf != nil
			obf = v
		case `"usage"`:
			dup = dup || sh.usage.n > 0
			sh.usage = at(js, v)
		case `"error"`:
			dup = dup || sh.errv.n > 0
			sh.errv = at(js, v)
		}
		return true
	})
	if !ok || dup || choices == nil {
		return sh
	}
	sh.choices = at(js, choices)
	var choice []byte
	n := 0
	if !jsonlex.Elements(choices, func(v []byte) bool {
		choice = v
		n++
		return n == 1
	}) || n != 1 {
		return sh
	}
	var index, delta, logprobs, ids, copied, message []byte
	if !jsonlex.Members(choice, func(k, v []byte) bool {
		var p *[]byte
		switch string(k) {
		case `"index"`:
			p = &index
		case `"text"`:
			p = &copied
		case `"message"`:
			p = &message
		case `"delta"`:
			p = &delta
		case `"logprobs"`:
			p = &logprobs
		case `"token_ids"`:
			p = &ids
		case `"finish_reason"`:
			if sh.finish.n > 0 {
				return false
			}
			sh.finish = at(js, v)
			return true
		case `"stop_reason"`:
			if sh.stopReason.n > 0 {
				return false
			}
			sh.stopReason = at(js, v)
			return true
		default:
			return true
		}
		if *p != nil {
			return false // a key twice: its value is not plain
		}
		*p = v
		return true
	}) {
		return sh
	}
	i, ok := parseUint(index, 0xFFFF)
	if !ok {
		sh.finish, sh.stopReason = span{}, span{}
		return sh
	}
	sh.choice = uint16(i)
	if i != 0 {
		sh.finish, sh.stopReason = span{}, span{}
	}
	if delta == nil {
		return sh
	}
	var fields [numFields][]byte
	var tool uint64
	var tokenID, details []byte
	if !jsonlex.Members(delta, func(k, v []byte) bool {
		f := -1
		switch string(k) {
		case `"token_id"`:
			if tokenID != nil {
				return false
			}
			tokenID = v
			return true
		case `"reasoning_details"`:
			if details != nil {
				return false
			}
			details = v
			return true
		case `"content"`:
			f = fieldContent
		case `"refusal"`:
			f = fieldRefusal
		case `"reasoning_content"`:
			f = fieldReasoningContent
		case `"reasoning"`:
			f = fieldReasoning
		case `"tool_calls"`:
			f = fieldArguments
			if fields[f] != nil {
				return false
			}
			var ok bool
			if v, tool, ok = toolArguments(v); !ok {
				v = []byte{} // not a string: no open field here
			}
		default:
			return true
		}
		if fields[f] != nil {
			return false
		}
		fields[f] = v
		return true
	}) {
		return sh
	}
	for _, v := range fields {
		if isString(v) {
			sh.strings++
		}
	}
	field := forced
	if field < 0 {
		// The first field whose string is not empty, else the first string.
		for f, v := range fields {
			if isString(v) && len(v) > 2 {
				field = f
				break
			}
		}
		for f, v := range fields {
			if field < 0 && isString(v) {
				field = f
			}
		}
		if field < 0 {
			return sh
		}
	} else if string(fields[field]) != `""` {
		return sh
	}
	raw := fields[field]
	var good bool
	if r.text, good = jsonlex.AppendUnquoted(r.text[:0], raw); !good || len(r.text) > maxHoleText {
		return sh
	}
	sh.add(holeText, at(js, raw))
	sh.tool = uint16(tool)
	if obf != nil && isString(obf) {
		if forced >= 0 {
			if string(obf) == `""` {
				sh.add(holeObfuscation, at(js, obf))
			}
		} else if r.obf, good = jsonlex.AppendUnquoted(r.obf[:0], obf); good && len(r.obf) <= frame.MaxPayload {
			r.obfN = len(r.obf)
			sh.add(holeObfuscation, at(js, obf))
		}
	}
	if ids != nil {
		if forced >= 0 {
			if string(ids) == `[]` {
				sh.add(holeTokens, at(js, ids))
			}
		} else if r.readIDs(ids) {
			sh.add(holeTokens, at(js, ids))
		}
	}
	// Together AI's chunks repeat the text in choices[0].text and give its
	// token's ID in delta.token_id: holes too, or its template would
	// change every chunk (§7b.2, item 6).
	// OpenRouter's reasoning_details[0].text is such a copy of reasoning,
	// and Writer's choices[0].message a copy of the delta.
	for _, c := range [3][]byte{copied, detailText(details), messageText(message, field)} {
		if c != nil && string(c) == string(raw) {
			// The same JSON string: the Encoder writes both from the text.
			sh.add(holeTextCopy, at(js, c))
		} else if string(c) == `""` {
			// An empty text beside other text would read as a hole in the
			// template: the chunk travels whole.
			return sh
		}
	}
	if tokenID != nil && !sh.has(holeTokens) {
		if forced >= 0 {
			if string(tokenID) == "0" {
				sh.add(holeTokenID, at(js, tokenID))
			}
		} else if id, ok := parseUint(tokenID, 0xFFFFFFFF); ok {
			r.ids = append(r.ids[:0], uint32(id))
			sh.add(holeTokenID, at(js, tokenID))
		}
	}
	r.lp = span{}
	if logprobs != nil && (field == fieldContent || field == fieldRefusal) {
		if lp, ok := jsonlex.Field(logprobs, fieldNames[field]); ok {
			if forced >= 0 {
				if string(lp) == `[]` {
					sh.add(holeLogprobs, at(js, lp))
				}
			} else if n, ok := r.logprob(lp); ok {
				r.lp = at(js, n)
				sh.add(holeLogprobs, at(js, lp))
			}
		}
	}
	if sh.usage.n > 0 {
		r.usageHoles(js, &sh, forced >= 0)
	}
	sh.field = field
	return sh
}

// usageHoles adds the holes of a templatable chunk's usage (§7b.2, item 5):
// prompt_tokens and completion_tokens, integers < 2^32 written minimally,
// and total_tokens if it is their sum. Perplexity sends running counts in
// every chunk, vLLM with continuous_usage_stats too, and DeepSeek, Mistral,
// Groq and llama.cpp theirs in the last chunk with text: without the holes
// such a chunk's template changes every time, and a frame client never
// sees its counts. Read as a template (tpl), the holes are where the three
// are 0.
func (r *reader) usageHoles(js []byte, sh *shape, tpl bool) {
	var p, c, t, cached []byte
	np, nc, nt, nd, ncached := 0, 0, 0, 0, 0
	if !jsonlex.Members(sh.usage.in(js), func(k, v []byte) bool {
		switch string(k) {
		case `"prompt_tokens"`:
			p, np = v, np+1
		case `"completion_tokens"`:
			c, nc = v, nc+1
		case `"total_tokens"`:
			t, nt = v, nt+1
		case `"prompt_tokens_details"`:
			nd++
			jsonlex.Members(v, func(k, v []byte) bool {
				if string(k) == `"cached_tokens"` {
					cached, ncached = v, ncached+1
				}
				return true
			})
		}
		return true
	}) || np != 1 || nc != 1 || nt > 1 {
		return
	}
	if tpl {
		if string(p) != "0" || string(c) != "0" || t != nil && string(t) != "0" {
			return
		}
	} else {
		pv, ok1 := parseUint(p, 0xFFFFFFFF)
		cv, ok2 := parseUint(c, 0xFFFFFFFF)
		if !ok1 || !ok2 {
			return
		}
		if t != nil {
			if tv, ok := parseUint(t, 1<<33); !ok || tv != pv+cv {
				return
			}
		}
		r.usage = usageCounts{prompt: uint32(pv), completion: uint32(cv)}
		if n, ok := parseUint(cached, 0xFFFFFFFF); ok && nd == 1 && ncached == 1 {
			r.usage.cached, r.usage.hasCached = uint32(n), true
		}
	}
	sh.add(holePrompt, at(js, p))
	sh.add(holeCompletion, at(js, c))
	if t != nil {
		sh.add(holeTotal, at(js, t))
	}
}

// detailText returns the text member of the one object of an array of one
// (OpenRouter's reasoning_details), or nil.
func detailText(details []byte) []byte {
	var obj, text []byte
	n, nt := 0, 0
	if details == nil || !jsonlex.Elements(details, func(e []byte) bool {
		obj = e
		n++
		return n == 1
	}) || n != 1 || !jsonlex.Members(obj, func(k, v []byte) bool {
		if string(k) == `"text"` {
			text = v
			nt++
		}
		return true
	}) || nt != 1 {
		return nil
	}
	return text
}

// messageText returns the member of a choice's message at the open
// field's place in its delta: Writer's chunks repeat the delta there
// (§7b.2, item 6). It is nil when message has none, or has it twice.
func messageText(message []byte, field int) []byte {
	if message == nil {
		return nil
	}
	key := fieldNames[field]
	if field == fieldArguments {
		key = "tool_calls"
	}
	var v []byte
	n := 0
	if !jsonlex.Members(message, func(k, val []byte) bool {
		if len(k) == len(key)+2 && string(k[1:len(k)-1]) == key {
			v = val
			n++
		}
		return true
	}) || n != 1 {
		return nil
	}
	if field == fieldArguments {
		args, _, ok := toolArguments(v)
		if !ok {
			return nil
		}
		return args
	}
	return v
}

// add records a hole, keeping holes in order of place.
func (sh *shape) add(kind int, s span) {
	i := sh.nholes
	for i > 0 && sh.holes[i-1].at.off > s.off {
		sh.holes[i] = sh.holes[i-1]
		i--
	}
	sh.holes[i] = hole{kind, s}
	sh.nholes++
}

// has reports whether the shape has a hole of kind.
func (sh *shape) has(kind int) bool {
	for _, h := range sh.holes[:sh.nholes] {
		if h.kind == kind {
			return true
		}
	}
	return false
}

// toolArguments reads a tool_calls value that is an array of one object
// with an index and function.arguments: the arguments' raw value and the
// index.
func toolArguments(v []byte) ([]byte, uint64, bool) {
	var call []byte
	n := 0
	if !jsonlex.Elements(v, func(e []byte) bool {
		call = e
		n++
		return n == 1
	}) || n != 1 {
		return nil, 0, false
	}
	var index, fn []byte
	if !jsonlex.Members(call, func(k, v []byte) bool {
		switch string(k) {
		case `"index"`:
			if index != nil {
				return false
			}
			index = v
		case `"function"`:
			if fn != nil {
				return false
			}
			fn = v
		}
		return true
	}) || fn == nil {
		return nil, 0, false
	}
	i, ok := parseUint(index, 0xFFFF)
	if !ok {
		return nil, 0, false
	}
	var args []byte
	if !jsonlex.Members(fn, func(k, v []byte) bool {
		if string(k) == `"arguments"` {
			if args != nil {
				return false
			}
			args = v
		}
		return true
	}) || !isString(args) {
		return nil, 0, false
	}
	return args, i, true
}

// readIDs reads a token_ids array that can be a hole: minimal integers
// below 2^32, as many as one frame holds.
func (r *reader) readIDs(v []byte) bool {
	r.ids = r.ids[:0]
	return jsonlex.Elements(v, func(e []byte) bool {
		id, ok := parseUint(e, 0xFFFFFFFF)
		r.ids = append(r.ids, uint32(id))
		return ok && len(r.ids) <= maxIDs
	})
}

// logprob reads a logprobs.content (or .refusal) array that can be a hole
// (§7b.2, item 4): one object {"token":T,"logprob":L,"bytes":B,
// "top_logprobs":[]}, in that order, T the open field's text (r.text), B its
// bytes. It returns L.
func (r *reader) logprob(v []byte) ([]byte, bool) {
	var obj []byte
	n := 0
	if !jsonlex.Elements(v, func(e []byte) bool {
		obj = e
		n++
		return n == 1
	}) || n != 1 {
		return nil, false
	}
	var num []byte
	i := 0
	ok := jsonlex.Members(obj, func(k, v []byte) bool {
		i++
		switch i {
		case 1:
			if string(k) != `"token"` {
				return false
			}
			r.obf = r.obf[:0] // scratch; the obfuscation's length is kept
			var ok bool
			r.obf, ok = jsonlex.AppendUnquoted(r.obf, v)
			return ok && string(r.obf) == string(r.text)
		case 2:
			if n, ok := jsonlex.Number(v); string(k) != `"logprob"` || !ok || n != len(v) {
				return false
			}
			num = v
			return true
		case 3:
			if string(k) != `"bytes"` {
				return false
			}
			j := 0
			return jsonlex.Elements(v, func(e []byte) bool {
				c, ok := parseUint(e, 0xFF)
				j++
				return ok && j <= len(r.text) && byte(c) == r.text[j-1]
			}) && j == len(r.text)
		case 4:
			return string(k) == `"top_logprobs"` && string(v) == `[]`
		}
		return false
	})
	return num, ok && i == 4
}

// parseUint reads a minimal decimal integer no larger than max.
func parseUint(v []byte, max uint64) (uint64, bool) {
	if len(v) == 0 || len(v) > 20 || (len(v) > 1 && v[0] == '0') {
		return 0, false
	}
	var n uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (max-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

func isString(v []byte) bool { return len(v) >= 2 && v[0] == '"' }

// endsAtEOF reports whether a stream with no [DONE] is whole if its bytes
// end after chunk js (SPEC.md §7b.3): when js finishes every choice it
// holds (each has a finish_reason string), or is the usage chunk (choices
// empty, usage an object). Writer's API sends no [DONE], and the official
// SDKs end at the end of the bytes; a stream that ends after any other
// chunk is truncated. Only the last chunk is asked, once: reading the
// choices of every chunk cost the gateway's relay 12 % of its check.
func endsAtEOF(js []byte) bool {
	var choices, usage []byte
	if !jsonlex.Members(js, func(k, v []byte) bool {
		switch string(k) {
		case `"choices"`:
			if choices != nil {
				return false // a key twice: the Decoder reads no choices
			}
			choices = v
		case `"usage"`:
			if usage != nil {
				return false
			}
			usage = v
		}
		return true
	}) || len(choices) == 0 || choices[0] != '[' {
		return false
	}
	n, all := 0, true
	jsonlex.Elements(choices, func(c []byte) bool {
		n++
		var fin []byte // the first finish_reason, its key as written, as shape reads keys
		jsonlex.Members(c, func(k, v []byte) bool {
			if string(k) == `"finish_reason"` {
				fin = v
				return false
			}
			return true
		})
		all = isString(fin)
		return all
	})
	if n == 0 {
		return len(usage) > 0 && usage[0] == '{'
	}
	return all
}

// errorEnds reports whether a chunk is the stream's error (SPEC.md §7b.3),
// given its top-level error member, if it has one, and whether it has
// choices: a chunk with an error and no choices, or whose error is an
// object with members whatever else it holds (OpenRouter's comes with
// choices and usage). Every official SDK stops at such a chunk.
func errorEnds(errv []byte, hasErr, hasChoices bool) bool {
	if !hasErr || !hasChoices {
		return hasErr
	}
	some := false
	jsonlex.Members(errv, func(_, _ []byte) bool {
		some = true
		return false
	})
	return some
}
