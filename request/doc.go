// Package request encodes and decodes request bodies as ANTH (SPEC.md §5):
// a request is one binary message, not a stream.
//
// Two forms share the package. The seed form (magic "ANTH", §5) carries a
// model, text messages, max_tokens and a system prompt: Seed, with Append,
// Size, Parse and Read. The extended form (magic "ANTX", §5.4) carries any
// Messages API request body, every block type and option and fields added
// after this version, as one binary value: AppendANTH turns a JSON body into
// ANTH, choosing the seed form whenever it can carry the request (so seed
// receivers keep working), and AppendJSON turns either form back into JSON,
// the same JSON value with its keys in their order and its numbers as
// written.
//
// OpenAI Chat Completions request bodies take the extended form too, with
// version 2 and a dictionary of their own (SPEC.md §5.5): AppendChatANTH
// and AppendChatJSON, the same codec with the other dictionary, and data
// URLs ("data:image/png;base64,…") sent as their bytes. The version byte
// keeps the two APIs apart: each reader refuses the other's requests.
//
// Every reader is bounded by Limits (32 MiB, 10,000 parts, 128 levels of
// nesting and 32 MiB of JSON out by default) and allocates in proportion to
// the bytes it has, never to a length the input declares (SPEC.md §12).
// Errors are *Error, with the byte offset of the fault and one of the
// module's kinds (ErrMalformed, ErrTruncated, ErrTooLarge, ErrBadMagic),
// which are frame's values too.
//
// Reading a body over HTTP is the HTTP layer's job (anthhttp.ReadRequestBody,
// through messages.API): it bounds its read and hands the bytes here.
package request
