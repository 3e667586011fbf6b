package sse

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/layer0/anth/internal/errkind"
)

// The kinds of failure, matched with errors.Is. ErrTruncated, ErrTooLarge
// and ErrMalformed are the module's, the same values as frame's (SPEC.md
// §6): errors.Is(err, sse.ErrMalformed) holds for a frame error the
// Encoder passes on, and errors.Is(err, frame.ErrMalformed) for the
// Decoder's.
var (
	// ErrTruncated means the input ended inside an event or a frame, or
	// before the end of the response (message_stop, or an error event;
	// DONE or ERROR). It is io.ErrUnexpectedEOF.
	ErrTruncated = errkind.Truncated
	// ErrTooLarge means a line, an event or a name over a configured limit
	// or a wire field's width.
	ErrTooLarge = errkind.TooLarge
	// ErrMalformed means an event whose data is not JSON, or ANTH that
	// cannot be a Messages stream (a delta for a block that never started,
	// token frames with no vocabulary to spell them).
	ErrMalformed = errkind.Malformed
	// ErrMediaType means an HTTP response that is neither ANTH nor SSE.
	ErrMediaType = errors.New("unsupported media type")
	// ErrShutdown is the cause a draining server cancels its requests'
	// base context with (context.WithCancelCause, http.Server.BaseContext)
	// when its drain time is up: Proxy then ends each stream in flight with
	// an ERROR frame, or an error event, of overloaded_error saying so, and
	// returns an *Error of this kind, rather than the stream being cut with
	// nothing said. Writes through NewResponseWriter go on after it, so a
	// handler that watches its context can end its response the same way.
	ErrShutdown = errors.New("the server is shutting down")
)

// Error says where the input went wrong.
type Error struct {
	// Offset is the byte offset in the input: the SSE stream for a
	// Decoder, the ANTH stream for an Encoder; -1 where it is not known.
	Offset int64
	// Err is the kind (ErrTruncated, ErrTooLarge, ErrMalformed), or the
	// error an underlying reader or writer returned.
	Err    error
	Detail string
}

func (e *Error) Error() string {
	s := "sse: "
	if e.Offset >= 0 {
		s += "offset " + strconv.FormatInt(e.Offset, 10) + ": "
	}
	s += e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the kind, or the underlying reader's error.
func (e *Error) Unwrap() error { return e.Err }

// StatusError is an HTTP response that is not a success: the status code
// and, when the body is the API's JSON error
// ({"type":"error","error":{"type":…,"message":…}}), its error type and
// message.
type StatusError struct {
	StatusCode int
	Type       string // the API's error type, "" if the body was not its JSON error
	Message    string
}

func (e *StatusError) Error() string {
	s := "sse: HTTP " + strconv.Itoa(e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		s += " " + t
	}
	if e.Type != "" {
		s += ": " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}
