package anthhttp

import (
	"errors"

	"github.com/layer0/anth/internal/errkind"
)

// The kinds of failure, matched with errors.Is. ErrTruncated, ErrTooLarge
// and ErrMalformed are the module's, the same values as frame's.
var (
	// ErrTruncated means an upstream stream that ended before its response
	// did. It is io.ErrUnexpectedEOF.
	ErrTruncated = errkind.Truncated
	// ErrTooLarge means a request body over its limit.
	ErrTooLarge = errkind.TooLarge
	// ErrMalformed means an upstream stream that its API's bridge refuses.
	ErrMalformed = errkind.Malformed
	// ErrMediaType means an HTTP message that is neither ANTH nor the
	// API's own: a Content-Type or Content-Encoding this package, or
	// anthclient reading a response, does not read.
	ErrMediaType = errors.New("unsupported media type")
	// ErrShutdown is the cause a draining server cancels its requests'
	// base context with (context.WithCancelCause, http.Server.BaseContext)
	// when its drain time is up: Proxy then ends each stream in flight with
	// an ERROR frame, or an error event, of overloaded_error saying so, and
	// returns an *Error of this kind, rather than the stream being cut with
	// nothing said. Writes through NewResponseWriter go on after it, so a
	// handler that watches its context can end its response the same way.
	ErrShutdown = errors.New("the server is shutting down")
	// ErrUpstreamIdle is the cause with which a Gateway ends a stream
	// whose upstream sent no event for GatewayOptions.UpstreamIdleTimeout:
	// its client gets an ERROR frame, or error event, of timeout_error
	// saying so.
	ErrUpstreamIdle = errors.New("upstream idle")
)

// Error says what went wrong with a stream or a request, and where.
type Error struct {
	// Offset is the byte offset in the stream or body; -1 where it is not
	// known or not about input (the client left).
	Offset int64
	// Err is the kind, or the error it wraps (a read error, a context's).
	Err    error
	Detail string
}

func (e *Error) Error() string { return errkind.Message("anthhttp", e.Offset, e.Err, e.Detail) }

// Unwrap returns the kind, or the underlying error.
func (e *Error) Unwrap() error { return e.Err }
