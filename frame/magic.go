package frame

// AppendMagic appends the 4-byte Magic that starts a stream.
func AppendMagic(b []byte) []byte { return append(b, Magic...) }

// ParseMagic checks that b starts with Magic and returns its length. A b
// shorter than Magic that agrees with it so far gives ErrTruncated.
func ParseMagic(b []byte) (n int, err error) {
	k := min(len(b), len(Magic))
	for i := 0; i < k; i++ {
		if b[i] != Magic[i] {
			return 0, errAt(int64(i), ErrBadMagic, "stream must start with \"ANTH\" (41 4E 54 48)")
		}
	}
	if k < len(Magic) {
		return 0, errAt(int64(k), ErrTruncated, "stream must start with \"ANTH\" (41 4E 54 48)")
	}
	return len(Magic), nil
}
