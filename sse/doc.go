// Package sse reads and writes the event-stream format (text/event-stream,
// Server-Sent Events) as the WHATWG HTML standard defines it (§9.2), for
// every API bridge of the module to share: Scanner splits a stream into
// events, with bounded memory and byte offsets; AppendEvent writes one. It
// knows nothing of what an event's data means: the bridges (package
// messages for the Anthropic Messages API) read the JSON.
package sse

// MediaType is the media type of an event stream.
const MediaType = "text/event-stream"
