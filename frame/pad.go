package frame

import "strconv"

// MaxPadBlock is the largest block WriterOptions.Padding and AppendPadTo accept: one
// PAD frame then always suffices.
const MaxPadBlock = MaxPayload

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

// AppendPadTo appends the PAD frame, if any, that makes the frames in
// b[start:] a multiple of block bytes long, and returns the extended slice.
// A PAD frame is at least 3 bytes, so when the shortfall is 1 or 2 bytes it
// pads to the next multiple. block must be 0 to MaxPadBlock (CheckPadBlock);
// 0 and 1 append nothing. Writer and anthhttp.Proxy pad with it.
func AppendPadTo(b []byte, start, block int) []byte {
	if block <= 1 || block > MaxPadBlock {
		return b
	}
	x := (block - (len(b)-start)%block) % block
	if x == 0 {
		return b
	}
	for x < HeaderSize {
		x += block
	}
	b = appendHeader(b, TypePad, x-HeaderSize)
	return append(b, make([]byte, x-HeaderSize)...)
}

// CheckPadBlock reports whether block is a padding block AppendPadTo and
// WriterOptions.Padding accept: 0 (no padding) to MaxPadBlock.
func CheckPadBlock(block int) error {
	if block < 0 || block > MaxPadBlock {
		return errAt(-1, ErrTooLarge, "padding block of "+strconv.Itoa(block)+" bytes, want 0 to 65535")
	}
	return nil
}
