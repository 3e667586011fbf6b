// Package deflate implements anth-deflate, the content coding that
// compresses an ANTH stream as a whole (SPEC.md §11): one raw DEFLATE
// stream (RFC 1951) whose window runs across the response, cut into
// records, one per flush, so a reader can inflate each frame the moment its
// record arrives. It is what WebSocket's permessage-deflate does for
// messages (RFC 7692 §7.2.1): each record is what a sync flush writes,
// without the four bytes 00 00 FF FF that every sync flush ends with, nor
// the one or two zero bytes before them (the end of its codes, which the
// Reader gives back as the inflater asks), and with its length in front
// instead.
//
// A token's frame is a dozen bytes, so a per-event compressor pays more to
// flush than it saves; a stream that keeps its window finds each word in
// the text before it. Writer is built for that: a hash-chain matcher over a
// 32 KiB window that writes fixed Huffman codes, which need no table, in a
// few hundred nanoseconds a record and 150 KiB of memory a stream. Reader
// inflates with compress/flate; any DEFLATE encoder's output, sync-flushed
// and cut before 00 00 FF FF, reads as well, with or without its last zero
// bytes.
//
// Both ends start from the same preset dictionary, given to NewWriter and
// NewReader: package messages uses its EventDictionary, so the first
// message_start of a response already compresses. The body starts with the
// dictionary's DICTID, its Adler-32 as RFC 1950 names a zlib stream's
// dictionary: a Reader given another dictionary refuses the body instead of
// inflating it to other text.
package deflate

// Encoding is the content-coding token that names anth-deflate in
// Accept-Encoding and Content-Encoding.
const Encoding = "anth-deflate"
