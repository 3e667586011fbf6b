package chat

import (
	"github.com/layer0/anth/internal/errkind"
)

// The kinds of failure, matched with errors.Is. They are the module's, the
// same values as frame's and messages' (SPEC.md §6): errors.Is(err,
// frame.ErrMalformed) holds for a chat Decoder's error too.
var (
	// ErrTruncated means the input ended inside an event or a frame, or
	// before the end of the response (data: [DONE] or an error chunk; DONE
	// or ERROR). It is io.ErrUnexpectedEOF.
	ErrTruncated = errkind.Truncated
	// ErrTooLarge means a line, an event or a name over a configured limit
	// or a wire field's width.
	ErrTooLarge = errkind.TooLarge
	// ErrMalformed means event data that is not JSON, or ANTH that cannot
	// be a Chat Completions stream (hole frames for a block with no
	// template, a template that does not fit SPEC.md §7b.2).
	ErrMalformed = errkind.Malformed
)

// Error says where the input went wrong.
type Error struct {
	// Offset is the byte offset in the input: the SSE stream for a
	// Decoder, the ANTH stream for an Encoder; -1 where it is not known.
	Offset int64
	// Err is the kind (ErrTruncated, ErrTooLarge, ErrMalformed), or the
	// error an underlying reader or writer returned.
	Err error
	// Detail says what was wrong, for people.
	Detail string
}

// Error returns "chat: offset N: kind: detail", as the module's other
// packages write theirs.
func (e *Error) Error() string { return errkind.Message("chat", e.Offset, e.Err, e.Detail) }

// Unwrap returns the kind, or the underlying reader's error.
func (e *Error) Unwrap() error { return e.Err }
