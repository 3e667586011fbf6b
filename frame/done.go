package frame

const maxStopSequencePerFrame = MaxPayload - 1 // after the u8 reason

// AppendDone appends a DONE frame with the stop reason and, for
// StopSequence, the stop sequence that matched. StopUnspecified with no stop
// sequence is the seed's empty DONE. A stop sequence longer than fits in one
// frame continues in further DONE frames with the same reason (SPEC.md §4).
func AppendDone(b []byte, reason StopReason, stopSequence string) []byte {
	if reason == StopUnspecified && stopSequence == "" {
		return appendHeader(b, TypeDone, 0)
	}
	for {
		k := min(len(stopSequence), maxStopSequencePerFrame)
		b = appendHeader(b, TypeDone, 1+k)
		b = append(b, byte(reason))
		b = append(b, stopSequence[:k]...)
		stopSequence = stopSequence[k:]
		if len(stopSequence) == 0 {
			return b
		}
	}
}

// SizeDone returns the number of bytes AppendDone appends for reason and a
// stop sequence of n bytes.
func SizeDone(reason StopReason, n int) int {
	if reason == StopUnspecified && n == 0 {
		return HeaderSize
	}
	return split(n, maxStopSequencePerFrame)*(HeaderSize+1) + n
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
