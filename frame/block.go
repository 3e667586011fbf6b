package frame

import (
	"encoding/binary"
	"strconv"
)

// BlockOp is what a BLOCK frame does to a content block (SPEC.md §3.9).
type BlockOp uint8

// The block operations.
const (
	BlockStop          BlockOp = 0 // the block ends
	BlockStartText     BlockOp = 1 // an empty text block starts
	BlockStartThinking BlockOp = 2 // an empty thinking block starts
)

var blockOpNames = [...]string{BlockStop: "Stop", BlockStartText: "StartText", BlockStartThinking: "StartThinking"}

// String returns the operation's name ("Stop", …), or "BlockOp(N)" for an
// operation SPEC.md does not define.
func (o BlockOp) String() string {
	if int(o) < len(blockOpNames) {
		return blockOpNames[o]
	}
	return "BlockOp(" + strconv.Itoa(int(o)) + ")"
}

// SizeBlock is the size of a BLOCK frame, header included.
const SizeBlock = HeaderSize + 3

// AppendBlock appends a BLOCK frame.
func AppendBlock(b []byte, block uint16, op BlockOp) []byte {
	b = appendHeader(b, TypeBlock, 3)
	return append(b, byte(block>>8), byte(block), byte(op))
}

// Block returns the block index and operation of a BLOCK frame.
func (f Frame) Block() (block uint16, op BlockOp, err error) {
	if f.Type != TypeBlock || len(f.Payload) != 3 {
		return 0, 0, f.wrongType("BLOCK")
	}
	return binary.BigEndian.Uint16(f.Payload), BlockOp(f.Payload[2]), nil
}

// checkBlock: SPEC.md §3.9, "Other ops are malformed".
func checkBlock(p []byte) (int, string, bool) {
	if op := p[2]; int(op) >= len(blockOpNames) {
		return 2, "block op " + strconv.Itoa(int(op)) + ", want 0 to 2", false
	}
	return 0, "", true
}
