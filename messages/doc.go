// Package messages bridges the Anthropic Messages API's Server-Sent Events
// and ANTH, both ways, losing nothing an SDK reads. It is the package that
// speaks the API's JSON: the names of stop reasons, error types and delta
// kinds, and the EVENT dictionary, live here, not in package frame. It
// reads events with package sse's Scanner, and knows no HTTP: API is this
// bridge as a bridge.API, which package anthhttp serves over net/http and
// package anthclient reads.
//
// A Decoder reads SSE and gives ANTH: text, tool-input, thinking, signature
// and citation deltas become TEXT and DELTA frames with their block index,
// block starts and stops BLOCK frames, a message_delta's usage USAGE and
// CACHE_USAGE frames, message_stop a DONE frame with the stop reason, an
// error an ERROR frame; everything else (message_start, ping, tool-call
// starts, events that do not exist yet, and any event whose JSON the typed
// frames would not give back exactly) travels whole in an EVENT frame,
// deflated against EventDictionary. An Encoder writes ANTH as the SSE the
// official SDKs accept, including ANTH from a server that never saw SSE.
// Each direction is built on a push core — SSE events in, frames out;
// frames in, SSE events out — that Read, Write and anthhttp's Proxy and
// NewResponseWriter share. SPEC.md §7a gives the mapping.
//
// Both directions hold a response to its grammar (SPEC.md §3.11): a stream
// cut before message_stop, before DONE or ERROR, is ErrTruncated, never a
// shorter message. Both are bounded: a Decoder holds one event of at most
// DecoderOptions.MaxEvent bytes, an Encoder at most
// EncoderOptions.MaxOpenBlocks open blocks with 3 bytes of pending UTF-8
// each, and neither keeps compression state between events.
//
// Whitespace inside the JSON is not kept: real streams pad their JSON with
// random spaces against token-length side channels, and ANTH has PAD frames
// for that (DecoderOptions.Padding).
package messages
