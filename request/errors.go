package request

import (
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/errkind"
)

// The kinds of failure, matched with errors.Is: the module's, the same
// values as frame's, so errors.Is(err, frame.ErrMalformed) holds for a
// malformed request too.
var (
	// ErrBadMagic means the bytes start with neither "ANTH" (the seed
	// form) nor "ANTX" (the extended form).
	ErrBadMagic = frame.ErrBadMagic
	// ErrTruncated means the request ended early. It is
	// io.ErrUnexpectedEOF.
	ErrTruncated = errkind.Truncated
	// ErrTooLarge means a request over a Limits bound or a field over its
	// wire width: a model name of 256 bytes, more than 65,535 parts.
	ErrTooLarge = errkind.TooLarge
	// ErrMalformed means bytes or JSON that break the format's rules,
	// non-canonical encodings included (SPEC.md §5.3, §5.4).
	ErrMalformed = errkind.Malformed
)

// Error says where a request went wrong.
type Error struct {
	// Offset is the byte offset of the problem in the input: the ANTH
	// bytes, or the JSON text for AppendANTH; for Append and Size, where the
	// bad field would have been written.
	Offset int64
	// Err is the kind: one of the Err… values above.
	Err error
	// Detail says what was expected.
	Detail string
}

func (e *Error) Error() string { return errkind.Message("request", e.Offset, e.Err, e.Detail) }

// Unwrap returns the kind, so errors.Is(err, ErrTruncated) works.
func (e *Error) Unwrap() error { return e.Err }

func errAt(off int64, kind error, detail string) *Error {
	return &Error{Offset: off, Err: kind, Detail: detail}
}
