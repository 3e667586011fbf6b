package sse

import (
	"github.com/layer0/anth/internal/errkind"
)

// The kinds of failure, matched with errors.Is: the module's, the same
// values as frame's.
var (
	// ErrTruncated means the stream ended inside an event or a line. It is
	// io.ErrUnexpectedEOF.
	ErrTruncated = errkind.Truncated
	// ErrTooLarge means a line or an event's data over the Scanner's limit.
	ErrTooLarge = errkind.TooLarge
)

// Error says where in the stream the fault is.
type Error struct {
	Offset int64 // the byte offset in the stream
	Err    error // the kind
	Detail string
}

func (e *Error) Error() string { return errkind.Message("sse", e.Offset, e.Err, e.Detail) }

// Unwrap returns the kind.
func (e *Error) Unwrap() error { return e.Err }
