// Package sse bridges the Anthropic Messages API's Server-Sent Events and
// ANTH streams, both ways, losing nothing an SDK reads.
//
// An Encoder reads SSE and produces ANTH: text, tool-input, thinking and
// signature deltas become TEXT and DELTA frames with their block index,
// block starts and stops BLOCK frames, an error an ERROR frame and
// message_stop a DONE frame with the stop reason; everything else
// (message_start, message_delta, tool-call starts, events that do not exist
// yet) travels whole as an EVENT frame, deflated against a dictionary of the
// API's own JSON. A Decoder turns ANTH back into SSE the official SDKs
// accept, and also turns ANTH from a server that never saw SSE (TEXT,
// USAGE, DONE) into a well-formed Messages stream.
//
// Whitespace inside the JSON is not kept: real streams pad their JSON with
// random spaces against token-length side channels, and ANTH has PAD frames
// for that (EncoderOptions.Padding).
package sse
