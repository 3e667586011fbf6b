// Package iox holds the io helpers the codecs share.
package iox

import (
	"errors"
	"io"
	"strconv"
)

// Checked wraps r so that a Read count outside 0..len(p) — a broken
// io.Reader — is an error instead of the panic bufio.Reader raises on it.
func Checked(r io.Reader) io.Reader { return checked{r} }

type checked struct{ r io.Reader }

func (c checked) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n < 0 || n > len(p) {
		return 0, errors.New("underlying reader returned an invalid count " + strconv.Itoa(n))
	}
	return n, err
}
