package kvdelta

import (
	"errors"

	"github.com/layer0/anth/internal/errkind"
)

// The kinds of failure, matched with errors.Is. ErrTruncated, ErrTooLarge and
// ErrMalformed are the module's, the same values as frame's; the others are
// kvdelta's own.
var (
	// ErrTruncated means the delta ended early. It is io.ErrUnexpectedEOF.
	ErrTruncated = errkind.Truncated
	// ErrTooLarge means a delta that needs more memory than the Decoder's
	// Limits allow. It is reported before the memory is allocated.
	ErrTooLarge = errkind.TooLarge
	// ErrMalformed means a delta that breaks the wire format (SPEC.md §10).
	ErrMalformed = errkind.Malformed
	// ErrChecksum means a CRC32C mismatch: a tile or the delta is corrupt.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrBase means the delta needs a base the caller did not give: none,
	// or one of another identity.
	ErrBase = errors.New("wrong base")
	// ErrSnapshot means a Snapshot given to Encode is inconsistent: a bad
	// geometry, data of the wrong length, hashes of the wrong count, or a
	// base of another geometry.
	ErrSnapshot = errors.New("invalid snapshot")
)

// Error says where in a delta a problem was found.
type Error struct {
	Offset int64 // byte offset in the delta, or -1 for Encode's input
	Err    error // the kind
	Detail string
}

func (e *Error) Error() string { return errkind.Message("kvdelta", e.Offset, e.Err, e.Detail) }

// Unwrap returns the kind.
func (e *Error) Unwrap() error { return e.Err }

func inputErr(detail string) error { return &Error{Offset: -1, Err: ErrSnapshot, Detail: detail} }
