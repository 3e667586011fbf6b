package frame

import (
	"errors"
	"strconv"

	"github.com/layer0/anth/internal/errkind"
)

// The kinds of failure, matched with errors.Is. Every error this package
// returns for bad input is an *Error wrapping one of them. ErrTruncated,
// ErrTooLarge and ErrMalformed are the module's: every package that reports
// one of these kinds exports the same value under the same name, so
// errors.Is(err, frame.ErrMalformed) holds for a malformed request to
// package request or a malformed anth-deflate body as well.
var (
	// ErrBadMagic means the stream or request does not start with Magic.
	ErrBadMagic = errors.New("bad magic")
	// ErrTruncated means the input ended inside a frame or request. It is
	// io.ErrUnexpectedEOF, so code written for the io conventions sees it.
	ErrTruncated = errkind.Truncated
	// ErrTooLarge means a value over a wire field's width or a configured
	// limit: a name of 256 bytes for a u8 length, a request over
	// Limits.MaxRequestSize.
	ErrTooLarge = errkind.TooLarge
	// ErrUnknownType means a must-understand frame type (0x00–0x7F) this
	// package does not know (SPEC.md §3).
	ErrUnknownType = errors.New("unknown must-understand frame type")
	// ErrMalformed means input that breaks the format's rules: a payload
	// that breaks its type's layout, a non-canonical request, a frame the
	// response grammar does not allow where it stands (SPEC.md §3.11).
	ErrMalformed = errkind.Malformed
	// ErrWrongType means a Frame accessor was called on a frame of another
	// type. It is a caller's mistake, never a property of the input.
	ErrWrongType = errors.New("wrong frame type")
)

// Error says where bad input was found and what was expected there.
type Error struct {
	// Offset is the byte offset of the problem: from the start of the stream
	// for a Reader, from the start of the slice for Parse;
	// -1 when the error is not about input (ErrWrongType).
	Offset int64
	// Type is the frame type being read, when there is one.
	Type Type
	// Err is the kind: one of the Err… sentinels above.
	Err error
	// Detail says what was expected, e.g. "payload length 11, want 12".
	Detail string

	hasType bool
}

func (e *Error) Error() string {
	s := "frame: "
	if e.Offset >= 0 {
		s += "offset " + strconv.FormatInt(e.Offset, 10) + ": "
	}
	if e.hasType {
		s += e.Type.String() + " frame: "
	}
	s += e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the kind, so errors.Is(err, ErrTruncated) works.
func (e *Error) Unwrap() error { return e.Err }

// errAt builds an *Error that is not about a particular frame.
func errAt(off int64, kind error, detail string) *Error {
	return &Error{Offset: off, Err: kind, Detail: detail}
}

// frameErr builds an *Error about a frame of type t.
func frameErr(off int64, t Type, kind error, detail string) *Error {
	return &Error{Offset: off, Type: t, Err: kind, Detail: detail, hasType: true}
}
