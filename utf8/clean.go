package utf8

import stdutf8 "unicode/utf8"

// AppendClean appends p to dst as text fit for a prompt: ill-formed UTF-8
// is replaced as a Decoder does, and characters that are invisible yet can
// change what a model or a person reads are removed:
//
//   - byte order marks and zero-width no-break spaces (U+FEFF), zero-width
//     spaces (U+200B), word joiners (U+2060) and the Mongolian vowel
//     separator (U+180E);
//   - bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
//     U+2066–U+2069), the "Trojan Source" characters (CVE-2021-42574);
//   - tag characters (U+E0000–U+E007F), which hide ASCII text from readers
//     but not from models ("ASCII smuggling"). This also drops the tags of
//     subdivision flag emoji, which then show as a plain black flag.
//
// Zero-width joiners and non-joiners (U+200D, U+200C) stay: emoji sequences
// and Persian and Indic scripts need them. No normalization is applied, so
// the text is otherwise byte-identical.
//
// AppendClean is a content policy, not part of SPEC.md §7 (see the package
// documentation). It treats p as whole text: an incomplete character at the
// end of p becomes U+FFFD. To clean a stream, pass it each piece of a
// Decoder's output, which holds only whole characters; the result is then
// the same however the stream was split.
func AppendClean(dst, p []byte) []byte {
	if !stdutf8.Valid(p) {
		var d Decoder
		tmp := d.Flush(d.Append(make([]byte, 0, len(p)+8), p))
		return appendClean(dst, tmp)
	}
	return appendClean(dst, p)
}

// appendClean removes the invisible characters from valid text.
func appendClean(dst, p []byte) []byte {
	start := 0
	for i := 0; i < len(p); {
		if p[i] < 0x80 {
			i++
			continue
		}
		r, n := stdutf8.DecodeRune(p[i:])
		if invisible(r) {
			dst = append(dst, p[start:i]...)
			start = i + n
		}
		i += n
	}
	return append(dst, p[start:]...)
}

// invisible reports whether AppendClean removes r. It is one expression
// rather than a switch so that coverage (and so mutation testing) sees
// each condition: a switch's case expressions are in no coverage block.
func invisible(r rune) bool {
	return r == 0xFEFF || r == 0x200B || r == 0x2060 || r == 0x180E ||
		r == 0x061C || r == 0x200E || r == 0x200F ||
		r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 ||
		r >= 0xE0000 && r <= 0xE007F
}
