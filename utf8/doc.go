// Package utf8 reassembles UTF-8 text that arrives in pieces split
// anywhere: TCP packets, SSE chunks, ANTH TEXT frames, byte-level BPE tokens
// (one Chinese character is often two or three tokens). A Decoder emits only
// complete text and holds back at most an incomplete tail of 3 bytes; bad
// bytes become U+FFFD exactly as the WHATWG Encoding Standard, Python and
// JavaScript's TextDecoder replace them, so a stream decodes the same however
// it was split. SPEC.md §7 is the normative statement.
//
// The package's name is the standard library's; import it under another
// name beside unicode/utf8, which it complements: unicode/utf8 validates
// and decodes whole buffers, this package decodes streams.
package utf8
