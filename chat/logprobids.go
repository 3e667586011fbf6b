package chat

import (
	"strconv"

	"github.com/layer0/anth/internal/jsonlex"
)

// logprobIDs adds token IDs to the chunks of an API that reports each
// token's bytes but not its ID: the OpenAI API's logprobs carry every
// token's UTF-8 "bytes", which a vocabulary the gateway holds maps back to
// IDs (o200k_base maps all of a recorded gpt-4o stream's tokens exactly).
// The IDs go where vLLM's return_token_ids puts them, "token_ids" last in
// the choice, so that the bridge carries them as any upstream's IDs: hole 3
// of §7b.2, TOKEN and TOKEN32 frames, and a client that writes the stream
// back as SSE sees vLLM's field (SPEC.md §3.14).
//
// A choice gets "token_ids" only when it has none, its logprobs.content
// and logprobs.refusal arrays (in the order they come) hold at least one
// entry between them, and
// every entry's "bytes" is an array of integers 0–255 that lookup maps to
// an ID; otherwise it is left as it is, logprobs and text and all (the
// text wins: an ID is never guessed).
//
// Bound: the chunk grows by at most 15 bytes a choice changed
// (`,"token_ids":[]`) and 11 an ID (10 digits and a comma); a changed
// choice holds at least `{"logprobs":{"content":[]}}` and each entry at
// least `{"bytes":[0]},`, 27 and 14 bytes, so the output is under twice the
// input (TestLogprobIDsBound). The buffers are reused: no allocation a
// chunk once they have grown.
type logprobIDs struct {
	lookup func(b []byte) (id uint32, ok bool)
	ids    []uint32 // the IDs of the choices changed, in order
	at     []idsAt  // where each changed choice's IDs go
	tok    []byte   // one entry's bytes
	out    []byte   // the chunk rewritten
}

// idsAt is one changed choice: the offset of its closing brace in the
// chunk, and how many of logprobIDs.ids are its.
type idsAt struct{ pos, n int }

// tokenIDsMember is what a changed choice gains before its IDs.
const tokenIDsMember = `,"token_ids":[`

// appendChunk appends chunk with the IDs added and reports true, or
// reports false and appends nothing when no choice of it changes. chunk
// is the data of one event, compact or not; JSON that is not well formed
// may come out changed, and the Decoder then refuses it as it would have
// refused the chunk, at the event's offset.
func (x *logprobIDs) appendChunk(dst, chunk []byte) ([]byte, bool) {
	x.ids, x.at = x.ids[:0], x.at[:0]
	choices, ok := jsonlex.Field(chunk, "choices")
	if !ok {
		return dst, false
	}
	jsonlex.Elements(choices, func(c []byte) bool {
		start := len(x.ids)
		if x.choice(c) {
			// c is a subslice of chunk (jsonlex's values are), ending in
			// its closing brace.
			x.at = append(x.at, idsAt{pos: cap(chunk) - cap(c) + len(c) - 1, n: len(x.ids) - start})
		} else {
			x.ids = x.ids[:start]
		}
		return true
	})
	if len(x.at) == 0 {
		return dst, false
	}
	prev, k := 0, 0
	for _, a := range x.at {
		dst = append(dst, chunk[prev:a.pos]...)
		dst = append(dst, tokenIDsMember...)
		for i, id := range x.ids[k : k+a.n] {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendUint(dst, uint64(id), 10)
		}
		dst = append(dst, ']')
		k += a.n
		prev = a.pos
	}
	return append(dst, chunk[prev:]...), true
}

// choice appends to x.ids the IDs of choice c's logprobs entries and
// reports whether c gets them. One pass over c's members, one over its
// logprobs': a chunk is read about twice.
func (x *logprobIDs) choice(c []byte) bool {
	var lp []byte
	own := false
	if !jsonlex.Members(c, func(k, v []byte) bool {
		switch string(k) {
		case `"token_ids"`:
			own = true // the upstream's own IDs (vLLM's): they stand
			return false
		case `"logprobs"`:
			lp = v
		}
		return true
	}) || own || len(lp) == 0 || lp[0] != '{' {
		return false
	}
	start := len(x.ids)
	return jsonlex.Members(lp, func(k, v []byte) bool {
		switch string(k) {
		case `"content"`, `"refusal"`:
			return string(v) == "null" || jsonlex.Elements(v, x.entry)
		}
		return true
	}) && len(x.ids) > start
}

// entry appends the ID of one logprobs entry, {"token":…,"bytes":[…],…},
// and reports whether its bytes name a token.
func (x *logprobIDs) entry(e []byte) bool {
	arr, ok := jsonlex.Field(e, "bytes")
	if !ok {
		return false
	}
	x.tok = x.tok[:0]
	if !jsonlex.Elements(arr, x.byteValue) {
		return false
	}
	id, ok := x.lookup(x.tok)
	if ok {
		x.ids = append(x.ids, id)
	}
	return ok
}

// byteValue appends one element of a "bytes" array: an integer 0–255
// written minimally, as the API writes them.
func (x *logprobIDs) byteValue(v []byte) bool {
	if len(v) == 0 || len(v) > 3 || v[0] == '0' && len(v) > 1 {
		return false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
	}
	if n > 255 {
		return false
	}
	x.tok = append(x.tok, byte(n))
	return true
}
