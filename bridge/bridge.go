// Package bridge names what an API bridge provides the layers above it: a
// streaming API's event stream as ANTH frames and back (Decoder, Encoder),
// and what the HTTP layer needs to serve and read it (API). Package
// messages implements it for the Anthropic Messages API; package anthhttp
// serves any implementation, and package anthclient reads it, so a bridge
// for another API is a sibling of messages and needs no edit to either. It is to the bridges what database/sql/driver
// is to SQL drivers: interfaces only.
package bridge

import (
	"io"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
)

// API is one streaming API's side of the HTTP layer: how the API's event
// stream becomes ANTH frames and back, how a request asks for a stream and
// how a stream says it failed. Packages anthhttp and anthclient know HTTP
// and ANTH, never an API's JSON: messages.API is the Anthropic Messages
// API's.
//
// An API's methods are called from many requests at once: it must be safe
// for concurrent use (a value with options and no state is).
type API interface {
	// Path is the API's streaming endpoint, such as "/v1/messages": the
	// one path anthhttp.Gateway converts rather than passes through.
	Path() string
	// Streaming reports whether body, the JSON of a request to Path, asks
	// for a streamed response.
	Streaming(body []byte) bool
	// NewDecoder returns a Decoder of the API's event stream read from r.
	// coded says its frames go into anth-deflate, where EVENT data travels
	// raw (SPEC.md §11.2).
	NewDecoder(r io.Reader, coded bool) Decoder
	// NewEncoder returns an Encoder writing the API's event stream to w.
	// coded says the ANTH it is given came in anth-deflate (so a deflated
	// EVENT is malformed, §11.2); body is the JSON of the request the
	// stream answers, when known (nil otherwise), for what the stream
	// itself may not name, such as the model.
	NewEncoder(w io.Writer, coded bool, body []byte) Encoder
	// RawEvents returns a writer of whole frames to w that writes each
	// deflated EVENT frame raw, for a handler's frames going into
	// anth-deflate (§11.2).
	RawEvents(w io.Writer) io.Writer
	// Dictionary is the preset dictionary of the API's anth-deflate
	// bodies (§11.3).
	Dictionary() *deflate.Dictionary
	// CheckEvent judges an event of the API's stream relayed as it is: an
	// error if its data is not what the API sends (so the same events fail
	// the same way relayed and converted), and whether it ends the
	// response.
	CheckEvent(name, data []byte) (ends bool, err error)
	// AppendRequestANTH appends the ANTH form of body, a request's JSON
	// (package request for the Messages API); AppendRequestJSON turns it
	// back. Errors carry the byte offset of the fault and the module's
	// kinds (frame.ErrMalformed, ErrTruncated, ErrTooLarge).
	AppendRequestANTH(dst, body []byte) ([]byte, error)
	AppendRequestJSON(dst, anth []byte) ([]byte, error)
	// ParseError reads an HTTP error response's body as the API's JSON
	// error, giving its error type and message; ok is false for a body
	// that is not one.
	ParseError(body []byte) (typ, message string, ok bool)
	// AppendError appends the API's JSON error body for an HTTP error
	// response.
	AppendError(b []byte, code frame.ErrorCode, message string) []byte
	// AppendErrorEvent appends the event with which the API ends a stream
	// that failed.
	AppendErrorEvent(b []byte, code frame.ErrorCode, message string) []byte
}

// Usage is an optional interface of an API whose events report token
// counts: a gateway relaying a stream as the API's events, which it does
// not convert to frames, reads them with it as it reads an ANTH stream's
// USAGE frames. EventUsage gives the counts an event reports, ok false for
// an event that reports none; a count of 0 is one the event does not give
// (a later event's counts replace an earlier's, an input count of 0 keeps
// the earlier). It must not keep data, nor allocate: it is called on every
// event.
type Usage interface {
	EventUsage(name, data []byte) (input, output uint64, ok bool)
}

// EndAtEOF is an optional interface of an API whose streams may end with
// their bytes, with no event that ends them (CheckEvent): a Chat
// Completions server that sends no data: [DONE] (SPEC.md §7b.3). EndsAtEOF
// reports whether a stream whose last event, up to the end of its bytes,
// is this one is whole, as the API's Decoder judges it. It is called once,
// at the end.
type EndAtEOF interface {
	EndsAtEOF(name, data []byte) bool
}

// Decoder reads an API's event stream as ANTH. If it has a Release()
// method, the HTTP layer calls it once done with the Decoder, and uses it
// no more: a bridge may keep Decoders for reuse. If it has a Ready() bool
// method, which reports whether Next would return without reading (the
// next event already read, sse.Scanner.Ready), the HTTP layer gives what
// is ready in one write with the event before it, as a plain proxy writes
// whatever it has read: one write, and one flush, rather than one an
// event.
type Decoder interface {
	// Read reads the ANTH stream's bytes, magic first.
	io.Reader
	// Next returns the ANTH bytes of the next event that carries
	// anything, the magic with the first, valid until the next call;
	// io.EOF after the last event of a whole response; an error for a
	// stream that is malformed or ends before the response does.
	Next() ([]byte, error)
	// Offset returns the bytes of the event stream read so far.
	Offset() int64
	// Ended reports whether the response has ended (its DONE or ERROR
	// frame given), so that nothing is to be added to it.
	Ended() bool
}

// Encoder writes an ANTH stream as an API's event stream.
type Encoder interface {
	// Write takes ANTH bytes in any pieces, the magic first.
	io.Writer
	// Flush writes what the frames so far complete.
	Flush() error
	// Close reports a stream that ended before its response did.
	Close() error
}
