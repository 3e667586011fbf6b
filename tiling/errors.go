package tiling

import (
	"errors"
	"strconv"
)

// The kinds of failure, matched with errors.Is. Functions that take sizes or
// IDs from outside return them wrapped in an *Error; the arithmetic of
// Layout panics instead, where indexing a slice would (see each method).
var (
	// ErrRange means a size, shift, position or ID outside what is allowed.
	ErrRange = errors.New("out of range")
	// ErrExhausted means the pool has fewer free tiles than asked for.
	// Nothing was allocated.
	ErrExhausted = errors.New("pool exhausted")
	// ErrNullTile means tile 0, the null tile, was passed where a real tile
	// is needed. It is never allocated and cannot be freed.
	ErrNullTile = errors.New("null tile")
	// ErrNotAllocated means a free or retain of a tile nobody holds: a
	// double free, or an ID never handed out.
	ErrNotAllocated = errors.New("tile not allocated")
	// ErrChunk means a chunk size that is not a multiple of the tile size.
	ErrChunk = errors.New("chunk size not a multiple of the tile size")
	// ErrEmpty means a table with no tokens where one is needed (a page
	// table row needs 1 ≤ last_page_len).
	ErrEmpty = errors.New("empty table")
)

// Error reports what went wrong, in which operation, with which value.
type Error struct {
	Op    string // the method, e.g. "Pool.Free"
	Value int64  // the offending size, position or tile ID
	Err   error  // the kind
}

func (e *Error) Error() string {
	return "tiling: " + e.Op + ": " + e.Err.Error() + ": " + strconv.FormatInt(e.Value, 10)
}

// Unwrap returns the kind.
func (e *Error) Unwrap() error { return e.Err }

func errf(op string, v int64, kind error) error { return &Error{Op: op, Value: v, Err: kind} }
