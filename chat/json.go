package chat

import (
	"strconv"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
)

// The chunk JSON the bridge writes from frames, compact, in the API's key
// order. Reading SSE maps a chunk to typed frames only when these give back
// the same JSON value (SPEC.md §7b), so the bridge is lossless by
// construction; both directions call them.

// appendData appends one SSE event of data js, which must hold no line
// break (compact JSON holds none).
func appendData(b, js []byte) []byte {
	b = append(b, "data: "...)
	b = append(b, js...)
	return append(b, "\n\n"...)
}

// appendNamed appends an SSE event with a name.
func appendNamed(b, name, js []byte) []byte {
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, '\n')
	return appendData(b, js)
}

const doneData = "[DONE]"

// appendErrorChunk appends the error chunk the OpenAI API sends.
func appendErrorChunk(b []byte, code frame.ErrorCode, message []byte) []byte {
	b = append(b, `{"error":{"message":`...)
	b = jsonlex.AppendString(b, message)
	b = append(b, `,"type":`...)
	b = jsonlex.AppendString(b, ErrorTypeName(code))
	return append(b, `,"param":null,"code":null}}`...)
}

// appendObject appends the JSON object obj with each member as f appends
// it (nothing, to drop it), keeping the commas right.
func appendObject(dst, obj []byte, f func(dst, k, v []byte) []byte) []byte {
	dst = append(dst, '{')
	first := true
	jsonlex.Members(obj, func(k, v []byte) bool {
		mark := len(dst)
		if !first {
			dst = append(dst, ',')
		}
		n := len(dst)
		if dst = f(dst, k, v); len(dst) == n {
			dst = dst[:mark]
		} else {
			first = false
		}
		return true
	})
	return append(dst, '}')
}

func appendMember(dst, k, v []byte) []byte {
	dst = append(dst, k...)
	dst = append(dst, ':')
	return append(dst, v...)
}

// usageCounts is what USAGE and CACHE_USAGE carry of a usage chunk.
type usageCounts struct {
	prompt, completion uint32
	cached             uint32
	hasCached          bool
}

// stripUsage appends the usage chunk js without what USAGE and
// CACHE_USAGE carry (SPEC.md §7b.3): usage.prompt_tokens,
// usage.completion_tokens, and usage.prompt_tokens_details.cached_tokens.
// It reports false when the chunk is not one they can carry.
func stripUsage(dst, js []byte, usage []byte) ([]byte, usageCounts, bool) {
	var u usageCounts
	var prompt, completion, cached []byte
	nPrompt, nCompletion, nDetails, nCached := 0, 0, 0, 0
	if !jsonlex.Members(usage, func(k, v []byte) bool {
		switch string(k) {
		case `"prompt_tokens"`:
			prompt = v
			nPrompt++
		case `"completion_tokens"`:
			completion = v
			nCompletion++
		case `"prompt_tokens_details"`:
			nDetails++
			jsonlex.Members(v, func(k, v []byte) bool {
				if string(k) == `"cached_tokens"` {
					cached = v
					nCached++
				}
				return true
			})
		}
		return true
	}) || nPrompt != 1 || nCompletion != 1 {
		return dst, u, false
	}
	p, ok1 := parseUint(prompt, 0xFFFFFFFF)
	c, ok2 := parseUint(completion, 0xFFFFFFFF)
	if !ok1 || !ok2 {
		return dst, u, false
	}
	u.prompt, u.completion = uint32(p), uint32(c)
	if n, ok := parseUint(cached, 0xFFFFFFFF); ok && nDetails == 1 && nCached == 1 {
		u.cached, u.hasCached = uint32(n), true
	}
	dst = appendObject(dst, js, func(dst, k, v []byte) []byte {
		if string(k) != `"usage"` {
			return appendMember(dst, k, v)
		}
		dst = append(dst, k...)
		dst = append(dst, ':')
		return appendObject(dst, v, func(dst, k, v []byte) []byte {
			switch string(k) {
			case `"prompt_tokens"`, `"completion_tokens"`:
				return dst
			case `"prompt_tokens_details"`:
				if u.hasCached {
					dst = append(dst, k...)
					dst = append(dst, ':')
					return appendObject(dst, v, func(dst, k, v []byte) []byte {
						if string(k) == `"cached_tokens"` {
							return dst
						}
						return appendMember(dst, k, v)
					})
				}
			}
			return appendMember(dst, k, v)
		})
	})
	return dst, u, true
}

// mergeUsage appends the usage chunk of the EVENT usage ev with what USAGE
// and CACHE_USAGE carry put back: prompt_tokens and completion_tokens first
// in usage, cached_tokens first in prompt_tokens_details (made if ev has
// none). It reports false when ev has no usage object.
func mergeUsage(dst, ev []byte, u usageCounts) ([]byte, bool) {
	found := false
	dst = appendObject(dst, ev, func(dst, k, v []byte) []byte {
		if string(k) != `"usage"` || found || len(v) == 0 || v[0] != '{' {
			return appendMember(dst, k, v)
		}
		found = true
		dst = append(dst, k...)
		dst = append(dst, `:{"prompt_tokens":`...)
		dst = strconv.AppendUint(dst, uint64(u.prompt), 10)
		dst = append(dst, `,"completion_tokens":`...)
		dst = strconv.AppendUint(dst, uint64(u.completion), 10)
		details := false
		jsonlex.Members(v, func(k, v []byte) bool {
			dst = append(dst, ',')
			if string(k) == `"prompt_tokens_details"` && u.hasCached && !details && len(v) > 0 && v[0] == '{' {
				details = true
				dst = append(dst, k...)
				dst = append(dst, `:{"cached_tokens":`...)
				dst = strconv.AppendUint(dst, uint64(u.cached), 10)
				if len(v) > 2 {
					dst = append(dst, ',')
				}
				dst = append(dst, v[1:]...)
				return true
			}
			dst = appendMember(dst, k, v)
			return true
		})
		if u.hasCached && !details {
			dst = append(dst, `,"prompt_tokens_details":{"cached_tokens":`...)
			dst = strconv.AppendUint(dst, uint64(u.cached), 10)
			dst = append(dst, '}')
		}
		return append(dst, '}')
	})
	return dst, found
}

// appendChunkHead appends the envelope of a chunk an Encoder writes for a
// stream with no chunks of its own (SPEC.md §7b.5), up to its choices.
func appendChunkHead(b []byte, o *EncoderOptions, created int64) []byte {
	b = append(b, `{"id":`...)
	b = jsonlex.AppendString(b, o.id())
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"model":`...)
	b = jsonlex.AppendString(b, o.model())
	return append(b, `,"choices":`...)
}
