// Package iox holds the io guard the module's readers share: one reading
// of io.Reader's contract for broken and stuck readers.
package iox

import (
	"io"
	"strconv"
)

// MaxEmptyReads is how many reads in a row may return no bytes and no error
// before a reader is taken to be stuck: bufio's figure.
const MaxEmptyReads = 100

// ErrInvalidCount is the kind of a Read count outside 0..len(p): a broken
// io.Reader, on which bufio.Reader panics. It is io.ErrShortBuffer, as a
// count over len(p) claims bytes p had no room for.
var ErrInvalidCount = io.ErrShortBuffer

// Reader reads from R, keeping io.Reader's contract for its caller: a
// count outside 0..len(p) is an error wrapping ErrInvalidCount, never a
// panic or a slice past its end; and a run of MaxEmptyReads reads that
// return no bytes and no error is io.ErrNoProgress, never a loop without
// end. Only a run counts, so a slow reader that makes progress now and then
// is never failed. So a Read of a non-empty p returns bytes or an error. A
// Reader is a value: kept in a struct, it costs no allocation.
type Reader struct{ R io.Reader }

// Read reads into p.
func (r Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for range MaxEmptyReads {
		n, err := r.R.Read(p)
		if n < 0 || n > len(p) {
			return 0, &countError{n}
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}

type countError struct{ n int }

func (e *countError) Error() string {
	return "underlying reader returned an invalid count " + strconv.Itoa(e.n)
}

func (e *countError) Unwrap() error { return ErrInvalidCount }

// Checked returns r as a Reader, an io.Reader, for a bufio.Reader to read.
func Checked(r io.Reader) io.Reader { return Reader{r} }
