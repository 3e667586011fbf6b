package vocab

import (
	"errors"
	"strconv"

	"github.com/layer0/anth/internal/errkind"
)

// The kinds of failure, matched with errors.Is. ErrTruncated, ErrTooLarge
// and ErrMalformed are the module's values (frame.ErrMalformed is
// ErrMalformed).
var (
	// ErrTruncated means a vocabulary file ended inside a record.
	ErrTruncated = errkind.Truncated
	// ErrTooLarge means a length or ID over this package's limits
	// (MaxTokens, MaxTokenLen).
	ErrTooLarge = errkind.TooLarge
	// ErrMalformed means a vocabulary file that breaks its format's rules:
	// bad base64, a rank that is not a number, an ID used twice.
	ErrMalformed = errkind.Malformed
	// ErrUnknownToken means a token ID the vocabulary does not hold
	// (SPEC.md §3.12). A stream that sends one is malformed for the
	// vocabulary it names, so an *Error of this kind also matches
	// ErrMalformed.
	ErrUnknownToken = errors.New("unknown token ID")
	// ErrUnknownVocabulary means a stream names a vocabulary (a VOCAB
	// frame, SPEC.md §3.13) other than the one the reader holds: another
	// hash, kind or special table. Its IDs are never read as text with the
	// wrong one.
	ErrUnknownVocabulary = errors.New("unknown vocabulary")
)

// Error says where a vocabulary file or an ID stream went wrong.
type Error struct {
	// Offset is the byte offset in the vocabulary file (or in an
	// Anth-Vocabularies header's value, ParseHolds), or -1 when the error
	// is not about either.
	Offset int64
	// Index is the position of the ID among those a Detokenizer was given
	// since it was made or Reset, or -1 when the error is not about an ID
	// stream.
	Index int64
	// ID is the token ID concerned, when there is one (ErrUnknownToken).
	ID uint32
	// Err is the kind: one of the Err… sentinels above.
	Err error
	// Detail says what was expected.
	Detail string
}

// Error reads "vocab: offset 12: malformed: rank "x", want a number" or
// "vocab: ID 70000 at index 3: unknown token ID".
func (e *Error) Error() string {
	if e.Index >= 0 {
		s := "vocab: ID " + strconv.FormatUint(uint64(e.ID), 10) + " at index " + strconv.FormatInt(e.Index, 10) + ": " + e.Err.Error()
		if e.Detail != "" {
			s += ": " + e.Detail
		}
		return s
	}
	return errkind.Message("vocab", e.Offset, e.Err, e.Detail)
}

// Unwrap returns the kind, and ErrMalformed beside ErrUnknownToken.
func (e *Error) Unwrap() []error {
	if e.Err == ErrUnknownToken {
		return []error{e.Err, ErrMalformed}
	}
	return []error{e.Err}
}

func fileErr(off int, kind error, detail string) *Error {
	return &Error{Offset: int64(off), Index: -1, Err: kind, Detail: detail}
}
