// Package utf8 reassembles UTF-8 text that arrives in pieces split
// anywhere: TCP packets, SSE chunks, ANTH TEXT frames, byte-level BPE tokens
// (one Chinese character is often two or three tokens). A Decoder emits only
// complete text and holds back at most an incomplete tail of 3 bytes; bad
// bytes become U+FFFD exactly as the WHATWG Encoding Standard, Python and
// JavaScript's TextDecoder replace them, so a stream decodes the same however
// it was split. SPEC.md §7 is the normative statement.
//
// AppendClean (clean.go) is a separate, optional content policy, not part
// of reassembly: it removes characters that are invisible yet change what a
// model or a person reads, from text bound for a prompt. SPEC.md does not
// ask for it, a Decoder and a Reader never apply it, and which characters it
// removes is a judgement that may change between versions, unlike the
// decoding above, which SPEC.md fixes. Give it whole characters, such as a
// Decoder's output, not raw pieces of a stream.
//
// The package's name is the standard library's; import it under another
// name beside unicode/utf8, which it complements: unicode/utf8 validates
// and decodes whole buffers, this package decodes streams.
package utf8
