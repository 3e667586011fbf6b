package utf8

import (
	"io"

	"github.com/layer0/anth/internal/iox"
)

// readSize is how much a Reader asks of the underlying reader at a time.
const readSize = 4 << 10

type reader struct {
	r   io.Reader
	d   Decoder
	in  []byte
	out []byte // decoded text not yet returned: out[nxt:]
	nxt int
	err error // sticky: once set, every Read returns it after the text before it
}

// NewReader returns a reader of the text in r: only complete characters,
// with ill-formed input replaced as a Decoder does, and a character cut off
// by the end of r as one U+FFFD. Wrap an http.Response.Body in it and no
// Read returns half a character, unless its buffer is too small for one.
//
// An error from r is returned as it is (match it with errors.Is), after the
// text decoded before it, and by every Read after; a character it cuts off
// is dropped, not replaced. If r returns no bytes and no error 100 times in
// a row, Read returns io.ErrNoProgress rather than call it forever.
func NewReader(r io.Reader) io.Reader { return &reader{r: r} }

func (r *reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for r.nxt == len(r.out) {
		if r.err != nil {
			return 0, r.err
		}
		if r.in == nil {
			r.in = make([]byte, readSize)
		}
		n, err := iox.Reader{R: r.r}.Read(r.in)
		r.out, r.nxt = r.d.Append(r.out[:0], r.in[:n]), 0
		if err == io.EOF {
			r.out = r.d.Flush(r.out)
		}
		r.err = err
	}
	n := copy(p, r.out[r.nxt:])
	r.nxt += n
	return n, nil
}
