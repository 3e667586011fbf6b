package frame

import "strconv"

// StopReason says why the model stopped (SPEC.md §3.4). Codes this package
// does not name are carried through unchanged, so a newer server's reasons
// reach the application. Package sse maps them to the stop_reason strings of
// the Anthropic Messages API.
type StopReason uint8

// The stop reasons, with their wire codes.
const (
	StopUnspecified                StopReason = 0 // the seed's empty DONE
	StopEndTurn                    StopReason = 1
	StopMaxTokens                  StopReason = 2
	StopSequence                   StopReason = 3 // a stop sequence matched; DONE carries it
	StopToolUse                    StopReason = 4
	StopPauseTurn                  StopReason = 5
	StopRefusal                    StopReason = 6
	StopModelContextWindowExceeded StopReason = 7
)

var stopNames = [...]string{
	StopUnspecified:                "Unspecified",
	StopEndTurn:                    "EndTurn",
	StopMaxTokens:                  "MaxTokens",
	StopSequence:                   "Sequence",
	StopToolUse:                    "ToolUse",
	StopPauseTurn:                  "PauseTurn",
	StopRefusal:                    "Refusal",
	StopModelContextWindowExceeded: "ModelContextWindowExceeded",
}

// String returns the reason's name ("EndTurn", …), or "StopReason(N)" for a
// code this package does not name.
func (r StopReason) String() string {
	if int(r) < len(stopNames) {
		return stopNames[r]
	}
	return "StopReason(" + strconv.Itoa(int(r)) + ")"
}

// maxStopSequencePerFrame is the stop sequence one DONE frame carries,
// after its reason u8.
const maxStopSequencePerFrame = MaxPayload - 1

// AppendDone appends a DONE frame with the stop reason and, for
// StopSequence, the stop sequence that matched. StopUnspecified with no stop
// sequence is the seed's empty DONE. A stop sequence longer than fits in one
// frame is sent as full DONE frames with the same reason and then one that is
// not full, holding the rest, possibly nothing (SPEC.md §4); a Reader joins
// them. A stop sequence needs a reason: with StopUnspecified it makes frames
// Parse may reject (Writer.WriteDone checks).
func AppendDone(b []byte, reason StopReason, stopSequence string) []byte {
	if reason == StopUnspecified && stopSequence == "" {
		return appendHeader(b, TypeDone, 0)
	}
	for {
		k := min(len(stopSequence), maxStopSequencePerFrame)
		b = appendHeader(b, TypeDone, 1+k)
		b = append(b, byte(reason))
		b = append(b, stopSequence[:k]...)
		if k < maxStopSequencePerFrame {
			return b
		}
		stopSequence = stopSequence[k:]
	}
}

// SizeDone returns the number of bytes AppendDone appends for reason and a
// stop sequence of n bytes.
func SizeDone(reason StopReason, n int) int {
	if reason == StopUnspecified && n == 0 {
		return HeaderSize
	}
	return (n/maxStopSequencePerFrame+1)*(HeaderSize+1) + n
}

// Done returns the stop reason and stop sequence of a DONE frame. An empty
// DONE gives StopUnspecified and no stop sequence.
func (f Frame) Done() (reason StopReason, stopSequence []byte, err error) {
	if f.Type != TypeDone {
		return 0, nil, f.wrongType("DONE")
	}
	if len(f.Payload) == 0 {
		return StopUnspecified, nil, nil
	}
	return StopReason(f.Payload[0]), f.Payload[1:], nil
}

// checkDone: SPEC.md §3.4, "an unspecified reason with no stop sequence is
// the empty payload", so each DONE has one encoding.
func checkDone(p []byte) (int, string, bool) {
	if len(p) == 1 && p[0] == 0 {
		return 0, "reason 0 with no stop sequence, want an empty payload", false
	}
	return 0, "", true
}
