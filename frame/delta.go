package frame

import (
	"encoding/binary"
	"strconv"
)

// DeltaKind says what a DELTA frame's bytes extend (SPEC.md §3.8): the
// content of a block other than its text, which has TEXT frames.
type DeltaKind uint8

// The delta kinds. Package sse maps them to the JSON delta types of the
// Anthropic Messages API.
const (
	DeltaInputJSON DeltaKind = 1 // partial JSON of a tool call's input
	DeltaThinking  DeltaKind = 2 // text of a thinking block
	DeltaSignature DeltaKind = 3 // a thinking block's signature
	DeltaCitation  DeltaKind = 4 // one citation, a JSON object, whole in one frame
)

var deltaNames = [...]string{DeltaInputJSON: "InputJSON", DeltaThinking: "Thinking", DeltaSignature: "Signature", DeltaCitation: "Citation"}

// String returns the kind's name ("InputJSON", …), or "DeltaKind(N)" for a
// kind SPEC.md does not define.
func (k DeltaKind) String() string {
	if k.valid() {
		return deltaNames[k]
	}
	return "DeltaKind(" + strconv.Itoa(int(k)) + ")"
}

func (k DeltaKind) valid() bool { return k >= DeltaInputJSON && k <= DeltaCitation }

// maxDeltaPerFrame is the data one DELTA frame carries, after its block
// u16 and kind u8: also the largest citation (SPEC.md §4).
const maxDeltaPerFrame = MaxPayload - 3

// AppendDelta appends data to block's delta of the given kind, as DELTA
// frames: data longer than one frame continues in further DELTA frames of
// the same block and kind, which a receiver joins (SPEC.md §4). A citation
// must fit in one frame (65,532 bytes; Writer.WriteDelta checks): a longer
// one is the caller's to send as an EVENT.
func AppendDelta(b []byte, block uint16, kind DeltaKind, data []byte) []byte {
	for {
		k := min(len(data), maxDeltaPerFrame)
		b = appendHeader(b, TypeDelta, 3+k)
		b = append(b, byte(block>>8), byte(block), byte(kind))
		b = append(b, data[:k]...)
		data = data[k:]
		if len(data) == 0 {
			return b
		}
	}
}

// SizeDelta returns the bytes AppendDelta appends for n bytes of data.
func SizeDelta(n int) int { return split(n, maxDeltaPerFrame)*(HeaderSize+3) + n }

// Delta returns the block, kind and bytes of a DELTA frame.
func (f Frame) Delta() (block uint16, kind DeltaKind, data []byte, err error) {
	if f.Type != TypeDelta || len(f.Payload) < 3 {
		return 0, 0, nil, f.wrongType("DELTA")
	}
	return binary.BigEndian.Uint16(f.Payload), DeltaKind(f.Payload[2]), f.Payload[3:], nil
}

// checkDelta: SPEC.md §3.8, "Other kinds are malformed".
func checkDelta(p []byte) (int, string, bool) {
	if k := DeltaKind(p[2]); !k.valid() {
		return 2, "delta kind " + strconv.Itoa(int(k)) + ", want 1 to 4", false
	}
	return 0, "", true
}
