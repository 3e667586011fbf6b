// Package frame encodes and decodes ANTH streams: the compact binary frames
// that carry an LLM's streamed response (tokens, text, usage, errors, end of
// response), and the binary request format. SPEC.md at the module root is
// the normative description; this package implements it.
//
// A stream is the magic "ANTH" followed by frames, each a 1-byte Type, a
// 2-byte big-endian payload length and the payload:
//
//	41 4E 54 48             magic
//	00 00 02 00 2A          TOKEN 42
//	05 00 04 00 00 48 69    TEXT block 0 "Hi"
//	03 00 01 01             DONE, reason 1 (end of turn)
//
// The package has two layers. The slice layer, AppendToken, AppendText, …
// with Parse and the Size… functions, keeps no state and allocates nothing.
// The streaming layer, Reader and Writer, sits on an io.Reader or io.Writer
// (or, for a Reader, on bytes pushed to it): Reader buffers and returns
// frames that borrow its buffer, Writer hands each call's frames to the
// underlying writer in one Write, without delay.
//
// A Reader reads a response: a stream that ends with DONE or ERROR (SPEC.md
// §3.11). A response cut before that — even on a frame boundary — is
// ErrTruncated, so half an answer never reads as a shorter whole one;
// ReaderOptions.RawFrames reads any stream frame by frame instead.
//
// Types 0x00–0x7F must be understood and types 0x80–0xFF may be skipped
// (Type.Ignorable), so a stream can grow new frames without breaking old
// readers. Bad input is reported as an *Error with the byte offset and the
// kind (ErrTruncated, ErrMalformed, …), never by a panic or a silently
// altered frame.
package frame
