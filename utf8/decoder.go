package utf8

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
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

// Error says where and what: "utf8: offset 14: ill-formed UTF-8: ed".
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

	tail    [4]byte // held bytes; 3 at most, the 4th slot spares a bounds check
	n       uint8   // bytes held in tail
	state   uint8   // the DFA's state after the held bytes
	started bool    // whether a character has been emitted (for StripBOM)
	off     int64   // stream offset of the next byte given to Append
	err     *Error
}

// Append decodes p, appends the text it completes to dst and returns the
// extended slice. Bytes that may still become a character are held for the
// next call.
func (d *Decoder) Append(dst, p []byte) []byte {
	if len(p) <= smallInput && d.err == nil {
		if out, ok := d.appendSmall(dst, p); ok {
			return out
		}
	}
	return d.appendAny(dst, p)
}

// Text returns the text completed by p, like Append, but without copying
// when it can: if the Decoder holds no bytes and p needs no replacement, the
// result is a prefix of p itself (valid until the caller reuses p), and only
// an incomplete tail is kept. Otherwise it appends to dst as Append does.
// For ASCII and other clean text this costs no more than validating it.
func (d *Decoder) Text(dst, p []byte) []byte {
	if d.n != 0 || d.err != nil || d.StripBOM && !d.started {
		return d.Append(dst, p)
	}
	k, s := validPrefix(p)
	if s == sReject {
		return d.Append(dst, p)
	}
	d.off += int64(len(p))
	for _, c := range p[k:] {
		d.tail[d.n&3] = c
		d.n++
	}
	d.state = uint8(s)
	if k > 0 {
		d.started = true
	}
	return p[:k:k]
}

// appendSmall is Append for token-sized pieces, the common case in a token
// stream, kept apart so that its frame stays small: one walk of the DFA from
// the held state. Reject is a sink, so one check after the loop finds any
// ill-formed byte; it then reports false and appendAny does the work.
func (d *Decoder) appendSmall(dst, p []byte) ([]byte, bool) {
	s := uint64(d.state)
	if d.n == 0 {
		s = sAccept
	}
	for _, c := range p {
		s = dfa[c] >> (s & 63)
	}
	if s &= 63; s == sReject {
		return dst, false
	}
	d.off += int64(len(p))
	start := len(dst)
	// All valid: what is complete ends where the last incomplete character
	// starts, at most 3 bytes back; if p holds no lead byte there, p only
	// continued the held character.
	end := len(p)
	if s != sAccept {
		end = -1
		for j := len(p) - 1; j >= 0 && j >= len(p)-3; j-- {
			if p[j]&0xC0 != 0x80 {
				end = j
				break
			}
		}
	}
	if end >= 0 {
		// The guard is for speed, not behaviour: an append of nothing
		// still calls memmove, and most pieces find no held bytes (without
		// it Append on token-sized pieces took 1.05-1.22x its time at
		// 0d2be57, paired runs, issue 26).
		if d.n > 0 {
			dst = append(dst, d.tail[:d.n]...)
			d.n = 0
		}
		dst = append(dst, p[:end]...)
		p = p[end:]
	}
	for _, c := range p { // at most 3 bytes: cheaper than a copy call
		d.tail[d.n&3] = c
		d.n++
	}
	d.state = uint8(s)
	if !d.started && len(dst) > start {
		dst = d.stripBOM(dst, start)
	}
	return dst, true
}

// appendAny is Append for input of any length and content.
func (d *Decoder) appendAny(dst, p []byte) []byte {
	if d.err != nil {
		return dst
	}
	start := len(dst)
	// From here d.off is where p ends, so p[i] is at d.off-len(p)+i
	// whatever has been cut from p's front.
	d.off += int64(len(p))
	if d.n > 0 {
		var used int
		dst, used = d.continueTail(dst, p, d.off-int64(len(p)))
		p = p[used:]
	}
	afterError := false
	// An empty p would stop the loop at k == len(p) too, but a piece that
	// ends in an ill-formed byte leaves p empty, and the pass that finds it
	// so cost token-sized pieces of continuation bytes 7.8% (issue 26).
	for len(p) > 0 && d.err == nil {
		var k int
		var s uint64
		switch {
		case len(p) <= smallInput:
			k, s = smallPrefix(p)
		case afterError:
			// Errors come in runs; see errorWindow.
			k, s = smallPrefix(p[:min(len(p), errorWindow)])
			if s != sReject {
				// No error in the window: the block pass takes over from
				// its last character boundary (an incomplete character at
				// the end of p is then held as usual).
				dst = append(dst, p[:k]...)
				p = p[k:]
				afterError = false
				continue
			}
		default:
			k, s = validPrefix(p)
		}
		dst = append(dst, p[:k]...)
		if k == len(p) {
			break
		}
		if s != sReject {
			// p[k:] is a proper prefix of a character: hold it.
			d.n, d.state = uint8(copy(d.tail[:], p[k:])), uint8(s)
			break
		}
		m := subpart(p[k:])
		if d.Strict {
			d.err = &Error{Offset: d.off - int64(len(p)-k), Bytes: append([]byte(nil), p[k:k+m]...)}
			break
		}
		dst = append(dst, "\uFFFD"...)
		p = p[k+m:]
		afterError = true
	}
	if !d.started && len(dst) > start {
		dst = d.stripBOM(dst, start)
	}
	return dst
}

// byteOrderMark is U+FEFF in UTF-8, which StripBOM removes from the start
// of a stream.
var byteOrderMark = []byte{0xEF, 0xBB, 0xBF}

// stripBOM handles the first text of a stream, dst[start:].
func (d *Decoder) stripBOM(dst []byte, start int) []byte {
	d.started = true
	if d.StripBOM && bytes.HasPrefix(dst[start:], byteOrderMark) {
		dst = append(dst[:start], dst[start+len(byteOrderMark):]...)
	}
	return dst
}

// continueTail feeds the start of p to the held character. It returns how
// many bytes of p it used: up to the end of the character, or up to the byte
// that proves it ill-formed (that byte then starts what follows).
func (d *Decoder) continueTail(dst, p []byte, off int64) ([]byte, int) {
	s := uint64(d.state)
	for i, c := range p {
		s = dfa[c] >> (s & 63) & 63
		switch s {
		case sAccept:
			dst = append(dst, d.tail[:d.n]...)
			d.n = 0
			return append(dst, p[:i+1]...), i + 1
		case sReject:
			// The maximal subpart is the held bytes and p[:i].
			if d.Strict {
				b := append(append([]byte(nil), d.tail[:d.n]...), p[:i]...)
				d.err = &Error{Offset: off - int64(d.n), Bytes: b}
				d.n = 0
				return dst, i
			}
			d.n = 0
			return append(dst, "\uFFFD"...), i
		}
	}
	// Still incomplete: a character has at most 4 bytes, so this is at
	// most 3 in all.
	d.n += uint8(copy(d.tail[d.n:], p))
	d.state = uint8(s)
	return dst, len(p)
}

// subpart returns the length of the maximal subpart of the ill-formed
// sequence at the start of p: the bytes before the one that broke it, or
// the first byte alone if it cannot start a character.
func subpart(p []byte) int {
	s := uint64(sAccept)
	for i, c := range p {
		if s = dfa[c] >> (s & 63) & 63; s == sReject {
			return max(i, 1)
		}
	}
	return len(p)
}

// smallInput is the input length up to which Append walks the DFA one step
// at a time: token-sized pieces, where setting up the block loop costs more
// than it saves.
const smallInput = 32

// errorWindow is how many bytes after an ill-formed sequence appendAny
// checks one step at a time before it goes back to validPrefix. Errors come
// in runs (binary data, another charset, a run of continuation bytes), and
// validPrefix's block pass would scan a whole block past each error only to
// find it was there and fall back to the exact pass: 2*half steps for every
// byte replaced. This way each byte is stepped over about once.
const errorWindow = 2 * half

// smallPrefix is validPrefix one step at a time: for short input, and for
// the stretch after an ill-formed sequence.
func smallPrefix(p []byte) (int, uint64) {
	s := uint64(sAccept)
	last := 0
	for i, c := range p {
		s = dfa[c] >> (s & 63) & 63
		if s == sAccept {
			last = i + 1
		} else if s == sReject {
			return last, sReject
		}
	}
	return last, s
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

// half is the length of each of the two streams the validator runs side by
// side over a block of 2*half bytes. A shift DFA's steps form one chain of
// dependent shifts; two chains over two halves keep two steps in flight.
const half = 128

// validPrefix returns the length of the longest prefix of p made of whole,
// well-formed characters, and the DFA's state after it: sAccept when that is
// all of p, sReject when an ill-formed byte follows, and otherwise the state
// of the proper prefix of a character that ends p. p starts at a character
// boundary.
func validPrefix(p []byte) (int, uint64) {
	i := 0
	st := uint64(sAccept) // state at p[i]
	for {
		if st == sAccept {
			if j := skipSimple(p, i); j != i {
				i = j
				continue
			}
		}
		if len(p)-i < 2*half {
			break
		}
		// The second stream starts at the character that starts at or
		// just before the middle; the first must end exactly there, at a
		// boundary. A run of more than 3 continuation bytes is ill-formed,
		// which the exact pass finds.
		mid := i + half
		for k := 0; k < 3 && p[mid]&0xC0 == 0x80; k++ {
			mid--
		}
		a, b := p[i:mid], p[mid:i+2*half]
		sa, sb := run2(a, b, st, sAccept)
		sb = run1(b[len(a):], sb)
		if sa&63 != sAccept || sb&63 == sReject {
			return exactPrefix(p, i, st)
		}
		st, i = sb&63, i+2*half
	}
	s := run1(p[i:], st) & 63
	if s == sReject {
		return exactPrefix(p, i, st)
	}
	return boundary(p, len(p), s), s
}

// run1 runs the DFA over p from state s. The result's low 6 bits are the
// state (higher bits are left over from the shift, so mask before comparing).
//
// run1 and run2 are small functions of their own so that their states stay
// in registers; inlined into validPrefix, the compiler spills one to the
// stack, which puts a store and a load on the dependency chain.
//
//go:noinline
func run1(p []byte, s uint64) uint64 {
	for _, c := range p {
		s = dfa[c] >> (s & 63)
	}
	return s
}

// run2 runs the DFA over a and the first len(a) bytes of b side by side.
//
//go:noinline
func run2(a, b []byte, sa, sb uint64) (uint64, uint64) {
	b = b[:len(a)]
	for i := range a {
		sa = dfa[a[i]] >> (sa & 63)
		sb = dfa[b[i]] >> (sb & 63)
	}
	return sa, sb
}

// skipSimple returns how far from p[i] (a character boundary) the text is
// made of the characters that fill most text: ASCII, 2-byte characters, and
// 3-byte characters other than the E0 and ED rows (whose second byte has a
// narrower range). It checks a whole character, or two 3-byte ones, with a
// few masks on one 8-byte load; the DFA takes over where it stops. Mostly
// CJK or mostly ASCII text runs here with well-predicted branches.
func skipSimple(p []byte, i int) int {
	i = skipASCII(p, i)
	for len(p)-i >= 8 {
		w := binary.LittleEndian.Uint64(p[i:])
		if n := bits.TrailingZeros64(w&0x8080808080808080) >> 3; n > 0 {
			i += n // the ASCII bytes before the first non-ASCII one
			continue
		}
		if w&0xC0C0F0C0C0F0 == 0x8080E08080E0 && simpleLead3(w) && simpleLead3(w>>24) {
			i += 6
			continue
		}
		if w&0xC0C0F0 == 0x8080E0 && simpleLead3(w) {
			i += 3
			continue
		}
		if w&0xC0E0 == 0x80C0 && w&0x1E != 0 { // C2..DF, then 80..BF
			i += 2
			continue
		}
		break
	}
	return i
}

// simpleLead3 reports whether the low byte of w, a lead byte E1..EF, is
// one whose second byte may be any of 80..BF: not E0, not ED.
func simpleLead3(w uint64) bool {
	n := w & 0xF
	return n != 0 && n != 0xD
}

// skipASCII returns the end of the ASCII run at p[i:], 32 bytes a step.
func skipASCII(p []byte, i int) int {
	for len(p)-i >= 32 {
		q := p[i : i+32]
		w := binary.LittleEndian.Uint64(q) | binary.LittleEndian.Uint64(q[8:]) |
			binary.LittleEndian.Uint64(q[16:]) | binary.LittleEndian.Uint64(q[24:])
		if w&0x8080808080808080 != 0 {
			break
		}
		i += 32
	}
	for len(p)-i >= 8 && binary.LittleEndian.Uint64(p[i:])&0x8080808080808080 == 0 {
		i += 8
	}
	return i
}

// exactPrefix is validPrefix's careful pass, from i in state st, for input
// known to hold an ill-formed byte (or a run of continuation bytes): one
// step at a time, tracking the last boundary.
func exactPrefix(p []byte, i int, st uint64) (int, uint64) {
	last := boundary(p, i, st)
	s := st
	for j, c := range p[i:] {
		s = dfa[c] >> (s & 63) & 63
		if s == sReject {
			return last, sReject
		}
		if s == sAccept {
			last = i + j + 1
		}
	}
	return boundary(p, len(p), s), s
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
