package messages

import (
	"bytes"
	"slices"

	"github.com/layer0/anth/internal/jsonlex"
)

// A message_delta that its typed frames cannot say all of goes as an EVENT
// too; then the EVENT leaves out the usage counts that the USAGE and
// CACHE_USAGE frames right before it carry, so nothing goes twice (SPEC.md
// §7a, "the rest of a message_delta"): it is the event's rest, and the
// Encoder puts the counts back. The frames' position says which form an
// EVENT is in: a message_delta EVENT right after the USAGE (and
// CACHE_USAGE) of its event is a rest; one that came whole has its USAGE
// after it.

// appendRest appends js, a message_delta's compact JSON, without the usage
// counts the frames of u carry; ok is false if the rest would not give js
// back (appendMerged of it is not the same JSON value), so that js must go
// whole. scratch is a buffer the check may use, returned for reuse.
func appendRest(dst, js []byte, u usageState, startInput uint64, scratch []byte) (out, scratchOut []byte, ok bool) {
	if !u.hasUsage {
		return dst, scratch, false
	}
	keys := usageKeys(u, startInput)
	start := len(dst)
	dst, ok = rebuildUsage(dst, js, func(b, usage []byte) ([]byte, bool) {
		var removed uint
		b = append(b, '{')
		first := true
		all := jsonlex.Members(usage, func(k, v []byte) bool {
			if i := slices.Index(keys, string(k[1:len(k)-1])); i >= 0 && removed&(1<<i) == 0 {
				removed |= 1 << i
				return true
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, k...)
			b = append(b, ':')
			b = append(b, v...)
			return true
		})
		return append(b, '}'), all && removed == 1<<len(keys)-1
	})
	if !ok {
		return dst[:start], scratch, false
	}
	scratch, ok = appendMerged(scratch[:0], dst[start:], u, startInput)
	if !ok || !jsonlex.Same(scratch, js) {
		return dst[:start], scratch, false
	}
	return dst, scratch, true
}

// appendMerged appends rest, a message_delta's rest, with the usage counts
// of u put back at the start of its usage object.
func appendMerged(dst, rest []byte, u usageState, startInput uint64) ([]byte, bool) {
	return rebuildUsage(dst, rest, func(b, usage []byte) ([]byte, bool) {
		b = append(b, '{')
		b = appendUsageCounts(b, u, startInput)
		if inner := bytes.TrimSpace(trimObject(usage)); len(inner) > 0 {
			b = append(b, ',')
			b = append(b, inner...)
		}
		return append(b, '}'), true
	})
}

// rebuildUsage appends the object js with the value of its "usage" member
// replaced by what f appends for it; false if js has no object there.
func rebuildUsage(dst, js []byte, f func(b, usage []byte) ([]byte, bool)) ([]byte, bool) {
	start := len(dst)
	dst = append(dst, '{')
	first, found, ok := true, false, true
	members := jsonlex.Members(js, func(k, v []byte) bool {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, k...)
		dst = append(dst, ':')
		if string(k) == `"usage"` && !found && len(v) > 0 && v[0] == '{' {
			found = true
			dst, ok = f(dst, v)
			return ok
		}
		dst = append(dst, v...)
		return true
	})
	if !members || !found || !ok {
		return dst[:start], false
	}
	return append(dst, '}'), true
}

// trimObject returns the members of a compact JSON object, between its
// braces.
func trimObject(obj []byte) []byte {
	if len(obj) < 2 {
		return nil
	}
	return obj[1 : len(obj)-1]
}
