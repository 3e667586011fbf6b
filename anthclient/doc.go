// Package anthclient reads ANTH over net/http, for any streaming API that
// a bridge.API describes (messages.API for the Anthropic Messages API): it
// is the client side of anthhttp, which serves it.
//
// A client reads a streaming response as frames whichever kind it is
// (NewFrameReader: ANTH, anth-deflate or the API's own event stream, the
// same frames either way, SPEC.md §7a), or hands code written for the API
// its own event stream from an ANTH response (Transport, an
// http.RoundTripper; its Middleware for the official Anthropic Go SDK).
// It asks for ANTH with Accept, and for anth-deflate with
// anthhttp.AcceptEncoding.
//
// Streams end as their grammar says (SPEC.md §3.11): a response cut short
// reads as anthhttp.ErrTruncated, never as a shorter message — unless the
// server kept the stream (SPEC.md §13: an anthhttp.Gateway given a
// resume.Store names it in anthhttp.ResumeIDHeader), when the client
// resumes it from its last whole frame by itself and reads it unbroken
// (ResumeOptions).
//
// The names both sides share — the media type (anthhttp.ContentType), the
// headers and the coding parameter, the error kinds and *anthhttp.Error —
// are anthhttp's, so a client and a server check one value: errors.Is(err,
// anthhttp.ErrTruncated) holds for a cut this package reports. A response
// that is not a success is a *StatusError.
package anthclient
