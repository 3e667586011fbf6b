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
	"strconv"
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

// Message is the text of a package's typed error, the one form every
// package's Error method returns: "pkg: offset N: kind: detail", without
// the offset when it is negative (not known, or not about input) and
// without the detail when it is empty.
func Message(pkg string, offset int64, kind error, detail string) string {
	s := pkg + ": "
	if offset >= 0 {
		s += "offset " + strconv.FormatInt(offset, 10) + ": "
	}
	s += kind.Error()
	if detail != "" {
		s += ": " + detail
	}
	return s
}
