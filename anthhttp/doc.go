// Package anthhttp serves and reads ANTH over net/http for any streaming
// API that a bridge.API describes (messages.API for the Anthropic Messages
// API): it is the module's one HTTP package, over codecs that know no
// net/http, as klauspost's gzhttp is over its compressors.
//
// A server negotiates ANTH with the client (Negotiate: Accept names
// ContentType; anth-deflate when Accept-Encoding names it too) and either
// writes frames itself (NewResponseWriter) or relays an upstream's event
// stream (Proxy), converting it for a client that asked and passing it on
// for one that did not. Gateway is a whole reverse proxy that does this for
// an API's streaming endpoint (anth proxy's handler); it describes each
// request it served in a Record, which it logs (log/slog) and hands an
// Observer for metrics, so that this package imports no metrics library.
// A client reads a response as frames whichever kind it is (NewFrameReader), or hands code
// written for the API its own event stream from an ANTH response
// (Transport, an http.RoundTripper; its Middleware for the official
// Anthropic Go SDK).
//
// Streams end as their grammar says (SPEC.md §3.11): an upstream that breaks
// or ends early gives the client an ERROR frame or the API's error event,
// never a shorter message, and a client reading a cut stream gets
// ErrTruncated — unless the server kept the stream (SPEC.md §13: a
// Gateway given a resume.Store names it in ResumeIDHeader), when the
// client resumes it from its last whole frame by itself and reads it
// unbroken (ResumeOptions).
package anthhttp
