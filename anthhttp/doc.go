// Package anthhttp serves ANTH over net/http for any streaming API that a
// bridge.API describes (messages.API for the Anthropic Messages API), over
// codecs that know no net/http, as klauspost's gzhttp is over its
// compressors. Its client side, which reads what it serves, is package
// anthclient.
//
// A server negotiates ANTH with the client (Negotiate: Accept names
// ContentType; anth-deflate when Accept-Encoding names AcceptEncoding too,
// or Accept names it as the CodingParam of ContentType) and either writes
// frames itself (NewResponseWriter) or relays an upstream's event stream
// (Proxy), converting it for a client that asked and passing it on for one
// that did not. Gateway is a whole reverse proxy that does this for an
// API's streaming endpoint (anth proxy's handler); it describes each
// request it served in a Record, which it logs (log/slog) and hands an
// Observer for metrics, so that this package imports no metrics library.
//
// Streams end as their grammar says (SPEC.md §3.11): an upstream that
// breaks or ends early gives the client an ERROR frame or the API's error
// event, never a shorter message. A Gateway given a resume.Store keeps
// each stream it serves and names it in ResumeIDHeader (SPEC.md §13), so
// a client whose connection drops asks for the frames after its last
// whole one (ResumeOffsetHeader, or LastEventIDHeader for an event-stream
// client) and reads the response unbroken; anthclient does so by itself.
//
// The names a client shares with the server — ContentType, the headers,
// CodingParam, AcceptEncoding, the error kinds and *Error — are this
// package's, and anthclient imports them; this package imports no client.
package anthhttp
