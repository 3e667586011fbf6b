package deflate

import (
	"errors"
	"io"
	"strconv"
)

// The kinds of failure, matched with errors.Is.
var (
	// ErrTruncated means the input ended inside a record. It is
	// io.ErrUnexpectedEOF.
	ErrTruncated = io.ErrUnexpectedEOF
	// ErrMalformed means a DICTID that is not the reader's dictionary's,
	// a record length that is zero, over MaxRecord or not minimal, or
	// bytes that are not DEFLATE.
	ErrMalformed = errors.New("malformed")
)

// Error says where the coded input went wrong.
type Error struct {
	Offset int64 // the byte offset in the coded input
	Err    error // ErrTruncated or ErrMalformed
	Detail string
}

func (e *Error) Error() string {
	s := "deflate: offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the kind.
func (e *Error) Unwrap() error { return e.Err }
