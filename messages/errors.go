package messages

import (
	"github.com/layer0/anth/internal/errkind"
)

// The kinds of failure, matched with errors.Is. ErrTruncated, ErrTooLarge
// and ErrMalformed are the module's, the same values as frame's (SPEC.md
// §6): errors.Is(err, messages.ErrMalformed) holds for a frame error the
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

func (e *Error) Error() string { return errkind.Message("messages", e.Offset, e.Err, e.Detail) }

// Unwrap returns the kind, or the underlying reader's error.
func (e *Error) Unwrap() error { return e.Err }
