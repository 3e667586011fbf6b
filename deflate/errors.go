package deflate

import (
	"github.com/layer0/anth/internal/errkind"
)

// The kinds of failure, matched with errors.Is: the module's, the same
// values as frame's.
var (
	// ErrTruncated means the input ended inside a record. It is
	// io.ErrUnexpectedEOF.
	ErrTruncated = errkind.Truncated
	// ErrMalformed means a DICTID that is not the reader's dictionary's,
	// a record length that is zero, over MaxRecord or not minimal, or
	// bytes that are not DEFLATE.
	ErrMalformed = errkind.Malformed
	// ErrTooLarge means a value that inflates to more than its reader
	// allows (Inflater.Inflate).
	ErrTooLarge = errkind.TooLarge
)

// Error says where the coded input went wrong.
type Error struct {
	Offset int64 // the byte offset in the coded input; -1 for a value
	Err    error // ErrTruncated or ErrMalformed
	Detail string
}

func (e *Error) Error() string { return errkind.Message("deflate", e.Offset, e.Err, e.Detail) }

// Unwrap returns the kind.
func (e *Error) Unwrap() error { return e.Err }
