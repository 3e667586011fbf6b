package utf8

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// ErrInvalid is the kind of error a strict Decoder reports: input that is
// not well-formed UTF-8.
var ErrInvalid = errors.New("ill-formed UTF-8")

// Error says where a strict Decoder met ill-formed input.
type Error struct {
	// Offset is the absolute offset, counted from the first byte the Decoder
	// was given after it was made or Reset, of the first byte of the
	// ill-formed sequence.
	Offset int64
	// Bytes is that ill-formed sequence (its maximal subpart: at most 3
	// bytes; a held tail cut off by Flush is included as it stood).
	Bytes []byte
}

func (e *Error) Error() string {
	s := "utf8: offset " + strconv.FormatInt(e.Offset, 10) + ": ill-formed UTF-8:"
	for _, b := range e.Bytes {
		s += " " + strconv.FormatUint(uint64(b)|0x100, 16)[1:]
	}
	return s
}

// Unwrap returns ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

// Decoder reassembles UTF-8 text that arrives in pieces split anywhere. It
// emits only complete characters and holds back at most an incomplete tail
// of 3 bytes: a tail is held exactly when more input could still make it a
// valid character. Ill-formed input becomes one U+FFFD per maximal subpart
// (Unicode ch. 3; the WHATWG Encoding Standard; what Python's
// decode("utf-8", "replace") and JavaScript's TextDecoder do), as early as
// it is known to be ill-formed. Valid input comes out byte for byte.
//
// How the input is split never changes the output: any split gives the same
// text as one piece, and each call emits what a WHATWG streaming decoder
// emits for the same call.
//
// The zero value is ready to use. A Decoder allocates nothing of its own;
// Append and Flush grow dst as append does. A byte order mark passes through
// as text (U+FEFF) unless StripBOM is set.
type Decoder struct {
	// Strict makes the Decoder stop at the first ill-formed sequence
	// instead of replacing it: Append and Flush emit the text before it
	// and nothing after, and Err reports an *Error with its offset.
	Strict bool
	// StripBOM drops a byte order mark (EF BB BF) at the start of the
	// stream, as TextDecoder does by default. Only the first character can
	// be one.
	StripBOM bool

	tail    [3]byte
	n       uint8 // bytes held in tail
	started bool  // whether a character has been emitted (for StripBOM)
	off     int64 // stream offset of the next byte given to Append
	err     *Error
}

// Append decodes p, appends the text it completes to dst and returns the
// extended slice. Bytes that may still become a character are held for the
// next call.
func (d *Decoder) Append(dst, p []byte) []byte {
	if d.err != nil {
		return dst
	}
	start := len(dst)
	base := d.off
	d.off += int64(len(p))
	if d.n > 0 {
		var used int
		if dst, used = d.completeTail(dst, p, base); d.err != nil {
			return dst
		}
		p = p[used:]
		base += int64(used)
	}
	for len(p) > 0 {
		k := validPrefix(p)
		dst = append(dst, p[:k]...)
		if k == len(p) {
			break
		}
		var used int
		if dst, used = d.handle(dst, p[k:], base+int64(k)); d.err != nil {
			break
		}
		p = p[k+used:]
		base += int64(k + used)
	}
	if !d.started && len(dst) > start {
		d.started = true
		if d.StripBOM && len(dst)-start >= 3 && dst[start] == 0xEF && dst[start+1] == 0xBB && dst[start+2] == 0xBF {
			dst = append(dst[:start], dst[start+3:]...)
		}
	}
	return dst
}

// Flush ends the stream: a held incomplete tail becomes one U+FFFD (or, in
// strict mode, an error). The Decoder is then ready for a new stream at the
// same offset count; use Reset to start the count again.
func (d *Decoder) Flush(dst []byte) []byte {
	if d.err == nil && d.n > 0 {
		if d.Strict {
			d.err = &Error{Offset: d.off - int64(d.n), Bytes: append([]byte(nil), d.tail[:d.n]...)}
		} else {
			dst = append(dst, "\uFFFD"...)
		}
	}
	d.n = 0
	d.started = false
	return dst
}

// Pending returns how many bytes the Decoder holds: 0 to 3.
func (d *Decoder) Pending() int { return int(d.n) }

// Err returns the error a strict Decoder stopped at, or nil.
func (d *Decoder) Err() error {
	if d.err == nil {
		return nil
	}
	return d.err
}

// Reset discards held bytes and any error and starts a new stream at
// offset 0, keeping Strict and StripBOM.
func (d *Decoder) Reset() { *d = Decoder{Strict: d.Strict, StripBOM: d.StripBOM} }

// block is how many bytes the validator runs between checks for the reject
// state, which is a sink: long enough to keep the loop branch-free, short
// enough that an error costs little to locate.
const block = 64

// validPrefix returns the length of the longest prefix of p made of whole,
// well-formed characters. p starts at a character boundary. The result stops
// at the first ill-formed byte or at an incomplete character at the end.
func validPrefix(p []byte) int {
	i := 0
	st := uint64(sAccept)
	for i < len(p) {
		if st == sAccept {
			// ASCII runs, 8 bytes a step.
			for i+8 <= len(p) && binary.LittleEndian.Uint64(p[i:])&0x8080808080808080 == 0 {
				i += 8
			}
			if i == len(p) {
				break
			}
		}
		end := min(i+block, len(p))
		s := st
		for _, b := range p[i:end] {
			s = dfa[b] >> (s & 63)
		}
		s &= 63
		if s == sReject {
			// Find the last boundary before the ill-formed byte.
			last := boundary(p, i, st)
			s = st
			for j, b := range p[i:end] {
				s = dfa[b] >> (s & 63) & 63
				if s == sReject {
					return last
				}
				if s == sAccept {
					last = i + j + 1
				}
			}
		}
		st, i = s, end
	}
	return boundary(p, i, st)
}

// boundary returns the start of the character that is incomplete at i in
// state st: i itself at a boundary, else the lead byte at most 3 back.
func boundary(p []byte, i int, st uint64) int {
	if st == sAccept {
		return i
	}
	j := i - 1
	for j > i-3 && p[j]&0xC0 == 0x80 {
		j--
	}
	return j
}

// seqRange gives, for a lead byte, how many continuation bytes it needs and
// the range of the first one (the others are always 80..BF). need 0 means
// the byte cannot start a character.
func seqRange(b byte) (need int, lo, hi byte) {
	switch {
	case b >= 0xC2 && b <= 0xDF:
		return 1, 0x80, 0xBF
	case b == 0xE0:
		return 2, 0xA0, 0xBF
	case b == 0xED:
		return 2, 0x80, 0x9F
	case b >= 0xE1 && b <= 0xEF:
		return 2, 0x80, 0xBF
	case b == 0xF0:
		return 3, 0x90, 0xBF
	case b >= 0xF1 && b <= 0xF3:
		return 3, 0x80, 0xBF
	case b == 0xF4:
		return 3, 0x80, 0x8F
	}
	return 0, 0, 0
}

// scan classifies the sequence at the start of p: complete (a whole valid
// character of length k), incomplete (all of p, k bytes, a valid beginning),
// or ill-formed (its maximal subpart is p[:k]).
func scan(p []byte) (k int, complete, incomplete bool) {
	need, lo, hi := seqRange(p[0])
	if need == 0 {
		return 1, false, false
	}
	for k = 1; k <= need; k++ {
		if k == len(p) {
			return k, false, true
		}
		if c := p[k]; c < lo || c > hi {
			return k, false, false
		}
		lo, hi = 0x80, 0xBF
	}
	return k, true, false
}

// handle deals with the sequence at the start of p, where validPrefix
// stopped: it holds an incomplete tail, or replaces (or, strict, reports) an
// ill-formed sequence. It returns how many bytes of p it used.
func (d *Decoder) handle(dst, p []byte, off int64) ([]byte, int) {
	k, _, incomplete := scan(p)
	if incomplete {
		d.n = uint8(copy(d.tail[:], p))
		return dst, len(p)
	}
	if d.Strict {
		d.err = &Error{Offset: off, Bytes: append([]byte(nil), p[:k]...)}
		return dst, k
	}
	return append(dst, "\uFFFD"...), k
}

// completeTail continues the held tail with the start of p. It returns how
// many bytes of p it used.
func (d *Decoder) completeTail(dst, p []byte, off int64) ([]byte, int) {
	var buf [4]byte
	held := int(d.n)
	copy(buf[:], d.tail[:held])
	m := held + copy(buf[held:], p)
	k, complete, incomplete := scan(buf[:m])
	switch {
	case complete:
		d.n = 0
		return append(dst, buf[:k]...), k - held
	case incomplete:
		d.n = uint8(copy(d.tail[:], buf[:m]))
		return dst, m - held
	}
	// Ill-formed: the held bytes were a valid beginning, so the maximal
	// subpart is at least the held tail (k ≥ held); the byte that broke it
	// is read again as the start of what follows.
	d.n = 0
	if d.Strict {
		d.err = &Error{Offset: off - int64(held), Bytes: append([]byte(nil), buf[:k]...)}
		return dst, 0
	}
	return append(dst, "\uFFFD"...), k - held
}
