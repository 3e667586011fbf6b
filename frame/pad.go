package frame

// AppendPad appends PAD frames carrying n zero bytes of payload in all, so
// that the frame sizes an observer sees say less about the text they carry
// (SPEC.md §3.6). n ≤ 0 appends nothing; n > MaxPayload continues in further
// PAD frames.
func AppendPad(b []byte, n int) []byte {
	for n > 0 {
		k := min(n, MaxPayload)
		b = appendHeader(b, TypePad, k)
		b = append(b, make([]byte, k)...)
		n -= k
	}
	return b
}

// SizePad returns the number of bytes AppendPad appends for n.
func SizePad(n int) int {
	if n <= 0 {
		return 0
	}
	return split(n, MaxPayload)*HeaderSize + n
}
