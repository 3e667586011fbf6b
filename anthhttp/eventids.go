package anthhttp

import (
	"bytes"
	"strconv"
)

// An event-stream client's response is kept as its events, in the
// canonical form sse.AppendEvent writes them (SPEC.md §13.1): each ends
// in a blank line, "\n\n", and nothing inside one does, since every line
// of an event is a field. So the kept bytes split into events at each
// "\n\n", and an event's cursor is the offset after it (§13.3).

// eventEnd ends every kept event.
var eventEnd = []byte("\n\n")

// appendEventIDs appends to dst the events of b, whole kept events of which
// the first starts at offset off, each with its id: field last, "id:N",
// N the offset after the event (4 bytes and the digits an event).
func appendEventIDs(dst, b []byte, off int64) []byte {
	for len(b) > 0 {
		i := bytes.Index(b, eventEnd)
		if i < 0 {
			// Not reached: b is whole events. Given as it is rather than
			// dropped.
			return append(dst, b...)
		}
		off += int64(i + len(eventEnd))
		dst = append(dst, b[:i+1]...)
		dst = append(dst, "id:"...)
		dst = strconv.AppendInt(dst, off, 10)
		dst = append(dst, eventEnd...)
		b = b[i+len(eventEnd):]
	}
	return dst
}
