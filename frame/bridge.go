package frame

import (
	"encoding/binary"
	"strconv"
)

// DeltaKind says what a DELTA frame's bytes extend (SPEC.md §3.8): the
// content-block deltas of the Anthropic Messages API other than text, which
// has TEXT frames.
type DeltaKind uint8

// The delta kinds.
const (
	DeltaInputJSON DeltaKind = 1 // input_json_delta: partial JSON of a tool call's input
	DeltaThinking  DeltaKind = 2 // thinking_delta: text of a thinking block
	DeltaSignature DeltaKind = 3 // signature_delta: a thinking block's signature
	DeltaCitation  DeltaKind = 4 // citations_delta: one citation, as a JSON object
)

var deltaNames = [...]string{"", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta"}

// String returns the API's name for the delta kind.
func (k DeltaKind) String() string {
	if int(k) < len(deltaNames) && k != 0 {
		return deltaNames[k]
	}
	return "delta(" + strconv.Itoa(int(k)) + ")"
}

// BlockOp is what a BLOCK frame does to a content block (SPEC.md §3.9).
type BlockOp uint8

// The block operations.
const (
	BlockStop          BlockOp = 0 // content_block_stop
	BlockStartText     BlockOp = 1 // content_block_start of an empty text block
	BlockStartThinking BlockOp = 2 // content_block_start of an empty thinking block
)

// String returns the operation's name.
func (o BlockOp) String() string {
	switch o {
	case BlockStop:
		return "stop"
	case BlockStartText:
		return "start text"
	case BlockStartThinking:
		return "start thinking"
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// Event encodings (SPEC.md §3.10).
const (
	EventJSON    = 0    // data is JSON text
	EventDeflate = 1    // data is JSON compressed with raw deflate and the dictionary of SPEC.md §3.10
	eventMore    = 0x80 // flag: the data continues in the next EVENT frame
)

// Event is the payload of an EVENT frame: an event of the stream the ANTH
// stream was bridged from (an SSE event), carried so nothing is lost.
type Event struct {
	Encoding uint8  // EventJSON or EventDeflate
	More     bool   // Data continues in the next EVENT frame (SPEC.md §4)
	Name     []byte // the SSE event name, at most 255 bytes
	Data     []byte // this frame's part of the data
}

const maxDeltaPerFrame = MaxPayload - 3 // after block u16 and kind u8

// AppendDelta appends data to block's delta of the given kind, as DELTA
// frames: data longer than one frame continues in further DELTA frames of
// the same block and kind, which a receiver joins (SPEC.md §4). A citation
// must fit in one frame (65,532 bytes); a longer one is the caller's to send
// as an EVENT.
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

// AppendBlock appends a BLOCK frame.
func AppendBlock(b []byte, block uint16, op BlockOp) []byte {
	b = appendHeader(b, TypeBlock, 3)
	return append(b, byte(block>>8), byte(block), byte(op))
}

// SizeBlock is the size of a BLOCK frame.
const SizeBlock = HeaderSize + 3

// Block returns the block index and operation of a BLOCK frame.
func (f Frame) Block() (block uint16, op BlockOp, err error) {
	if f.Type != TypeBlock || len(f.Payload) != 3 {
		return 0, 0, f.wrongType("BLOCK")
	}
	return binary.BigEndian.Uint16(f.Payload), BlockOp(f.Payload[2]), nil
}

// AppendEvent appends an event as EVENT frames: data too long for one frame
// continues in further EVENT frames, all but the last flagged More (SPEC.md
// §4). name must be at most 255 bytes (Writer.WriteEvent checks; a longer
// one makes frames that Parse rejects).
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

// Event returns the payload of an EVENT frame.
func (f Frame) Event() (Event, error) {
	if f.Type != TypeEvent || len(f.Payload) < 2 || len(f.Payload) < 2+int(f.Payload[1]) {
		return Event{}, f.wrongType("EVENT")
	}
	p := f.Payload
	n := 2 + int(p[1])
	return Event{Encoding: p[0] &^ eventMore, More: p[0]&eventMore != 0, Name: p[2:n], Data: p[n:]}, nil
}
