// Package errkind holds the kinds of failure that several packages of the
// module report, each one value, so that errors.Is(err, frame.ErrMalformed)
// holds whichever package found the fault. Each package exports them under
// the names of its own doc (frame.ErrMalformed, deflate.ErrMalformed, …),
// bound to these values, as snappy.ErrCorrupt is s2.ErrCorrupt; the typed
// error of each package says where.
package errkind

import (
	"errors"
	"io"
)

var (
	// Truncated: the input ended early. It is io.ErrUnexpectedEOF, so code
	// written for the io conventions sees it.
	Truncated = io.ErrUnexpectedEOF
	// TooLarge: a value over a wire field's width or a configured limit.
	TooLarge = errors.New("too large")
	// Malformed: input that breaks the format's rules.
	Malformed = errors.New("malformed")
)
