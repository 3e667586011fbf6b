package testdata

import "io"

// StutterReader returns Empties empty reads before each byte of R, as a
// slow network with spurious wakeups might.
type StutterReader struct {
	R       io.Reader
	Empties int // empty reads before each byte
	n       int
}

func (s *StutterReader) Read(p []byte) (int, error) {
	if s.n < s.Empties {
		s.n++
		return 0, nil
	}
	s.n = 0
	return s.R.Read(p[:min(len(p), 1)])
}

// CountReader claims to have read its value's bytes, and never fills p:
// a reader that breaks io.Reader's contract.
type CountReader int

func (c CountReader) Read([]byte) (int, error) { return int(c), nil }

// ReaderFunc is a function as an io.Reader.
type ReaderFunc func([]byte) (int, error)

func (f ReaderFunc) Read(p []byte) (int, error) { return f(p) }

// EmptyReader returns no bytes and no error, forever.
type EmptyReader struct{}

func (EmptyReader) Read([]byte) (int, error) { return 0, nil }
