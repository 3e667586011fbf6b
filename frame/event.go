package frame

import (
	"encoding/binary"
	"strconv"
)

// Event encodings (SPEC.md §3.10): the low 7 bits of an EVENT's first byte.
const (
	// EventJSON means the data is JSON text.
	EventJSON = 0
	// EventDeflate means the data is JSON compressed with raw DEFLATE (RFC
	// 1951) against a preset dictionary. The frame layer carries the bytes;
	// the dictionary belongs to the package that speaks the JSON (package
	// sse's EventDictionary, SPEC.md §3.10).
	EventDeflate = 1
	// EventBinary32 means the data is 4 bytes, an IEEE 754 binary32
	// little-endian, standing for the JSON number SPEC.md §3.10's layout
	// rule writes for it (the Chat Completions bridge's EVENT logprob,
	// §7b.2). It never continues, and NaN and infinities are malformed.
	EventBinary32 = 2
	// EventDeflateAfter means the data is JSON compressed with raw DEFLATE
	// whose preset dictionary is the one EventDeflate uses followed by the
	// data of the response's event before this one (SPEC.md §3.10): a
	// bridge's events repeat the one before (a chunk whose template
	// changed), which a dictionary of one API's JSON cannot know.
	EventDeflateAfter = 3
	// eventMore flags an EVENT frame whose data continues in the next.
	eventMore = 0x80
	// MaxEventName is the longest event name: its length is a u8.
	MaxEventName = 0xFF
)

// Event is the payload of an EVENT frame: an event of the stream the ANTH
// stream was bridged from (an SSE event), carried so nothing is lost.
type Event struct {
	Encoding uint8  // EventJSON, EventDeflate, EventBinary32 or EventDeflateAfter
	More     bool   // Data continues in the next EVENT frame (SPEC.md §4)
	Name     []byte // the event's name, at most MaxEventName bytes
	Data     []byte // this frame's part of the data
}

// AppendEvent appends an event as EVENT frames: data too long for one frame
// continues in further EVENT frames, all but the last flagged More (SPEC.md
// §4). name must be at most MaxEventName bytes, encoding EventJSON,
// EventDeflate, EventBinary32 or EventDeflateAfter, and the data of EventBinary32 4 bytes of
// a finite float (Writer.WriteEvent checks; anything else makes frames
// that Parse rejects).
func AppendEvent(b []byte, encoding uint8, name, data []byte) []byte {
	per := MaxPayload - 2 - len(name)
	for {
		k := min(len(data), per)
		enc := encoding
		if k < len(data) {
			enc |= eventMore
		}
		b = appendHeader(b, TypeEvent, 2+len(name)+k)
		b = append(b, enc, byte(len(name)))
		b = append(b, name...)
		b = append(b, data[:k]...)
		data = data[k:]
		if len(data) == 0 {
			return b
		}
	}
}

// SizeEvent returns the bytes AppendEvent appends for a name of nameLen
// bytes and data of dataLen bytes.
func SizeEvent(nameLen, dataLen int) int {
	return split(dataLen, MaxPayload-2-nameLen)*(HeaderSize+2+nameLen) + dataLen
}

// Event returns the payload of an EVENT frame.
func (f Frame) Event() (Event, error) {
	p := f.Payload
	if f.Type != TypeEvent || len(p) < 2 || len(p) < 2+int(p[1]) {
		return Event{}, f.wrongType("EVENT")
	}
	n := 2 + int(p[1])
	return Event{Encoding: p[0] &^ eventMore, More: p[0]&eventMore != 0, Name: p[2:n], Data: p[n:]}, nil
}

// checkEvent: SPEC.md §3.10, "Other encodings are malformed", the name
// lies within the payload, and binary32 data is one finite float in one
// frame.
func checkEvent(p []byte) (int, string, bool) {
	enc := p[0] &^ eventMore
	if enc > EventDeflateAfter {
		return 0, "event encoding " + strconv.Itoa(int(enc)) + ", want 0, 1, 2 or 3", false
	}
	n := 2 + int(p[1])
	if n > len(p) {
		return 1, "event name of " + strconv.Itoa(int(p[1])) + " bytes past the payload", false
	}
	if enc == EventBinary32 {
		return checkBinary32(p[0]&eventMore != 0, p[n:], n)
	}
	return 0, "", true
}

// checkBinary32: SPEC.md §3.10, encoding 2's data is exactly 4 bytes in
// one frame, not a NaN or an infinity (no JSON number stands for them).
// at is the data's offset in the payload.
func checkBinary32(more bool, data []byte, at int) (int, string, bool) {
	switch {
	case more:
		return 0, "binary32 event data continued", false
	case len(data) != 4:
		return at, "binary32 event data of " + strconv.Itoa(len(data)) + " bytes, want 4", false
	case binary.LittleEndian.Uint32(data)&0x7F800000 == 0x7F800000:
		return at, "binary32 event data is NaN or infinite", false
	}
	return 0, "", true
}
