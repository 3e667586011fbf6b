package utf8

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	stdutf8 "unicode/utf8"

	"github.com/layer0/anth/internal/iox"

	"github.com/google/go-cmp/cmp"
)

// stallReader returns no bytes and no error stalls times before each byte
// of r: a slow network body, which a Reader must wait for, not fail.
type stallReader struct {
	r         io.Reader
	stalls, k int
}

func (s *stallReader) Read(p []byte) (int, error) {
	if s.k < s.stalls {
		s.k++
		return 0, nil
	}
	s.k = 0
	return s.r.Read(p[:1])
}

// stuckReader returns no bytes and no error forever, and counts its calls.
type stuckReader struct{ calls int }

func (s *stuckReader) Read([]byte) (int, error) {
	s.calls++
	return 0, nil
}

// readAll reads tr to its end in Reads of size bytes, within a deadline so
// that a Reader that loops fails the test instead of hanging it.
func readAll(t *testing.T, tr io.Reader, size int) ([]byte, error) {
	t.Helper()
	type result struct {
		text []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var got []byte
		buf := make([]byte, size)
		for {
			n, err := tr.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				done <- result{got, err}
				return
			}
		}
	}()
	select {
	case r := <-done:
		return r.text, r.err
	case <-time.After(20 * time.Second):
		t.Fatal("Read did not return: the Reader loops")
		return nil, nil
	}
}

func TestReader(t *testing.T) {
	in := []byte(strings.Repeat("汉字 and text, \xF0\x9F\x98\x80 \xC3A ", 500) + "\xE4\xBD")
	want := decodeAll(in)
	for name, r := range map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(in) },
		"one-byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(in)) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(in)) },
		"data-err": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(in)) },
		// Short of the limit before every byte, and one empty read
		// between bytes: neither is a run long enough to fail.
		"stalling":    func() io.Reader { return &stallReader{r: bytes.NewReader(in), stalls: iox.MaxEmptyReads - 1} },
		"alternating": func() io.Reader { return &stallReader{r: bytes.NewReader(in), stalls: 1} },
	} {
		// Read in sizes down to one byte, which must take a character
		// a byte at a time; the joined text must be the Decoder's.
		for _, size := range []int{1, 7, readSize + 1} {
			got, err := readAll(t, NewReader(r()), size)
			if err != io.EOF {
				t.Fatalf("%s, %d-byte reads: %v", name, size, err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%s, %d-byte reads: text differs from the Decoder's (-want +got):\n%s", name, size, d)
			}
		}
	}
}

// TestReaderNoProgress: an underlying reader that returns no bytes and no
// error forever makes Read fail with io.ErrNoProgress after the text read
// before it, once a bounded run of calls has shown it makes no progress.
func TestReaderNoProgress(t *testing.T) {
	stuck := &stuckReader{}
	tr := NewReader(io.MultiReader(strings.NewReader("ok\xE4"), stuck))
	got, err := readAll(t, tr, 64)
	if !errors.Is(err, io.ErrNoProgress) || string(got) != "ok" {
		t.Fatalf("got %q, %v; want \"ok\", io.ErrNoProgress", got, err)
	}
	if stuck.calls != iox.MaxEmptyReads {
		t.Fatalf("%d calls to the stuck reader, want %d", stuck.calls, iox.MaxEmptyReads)
	}
	if n, err := tr.Read(make([]byte, 8)); n != 0 || !errors.Is(err, io.ErrNoProgress) || stuck.calls != iox.MaxEmptyReads {
		t.Fatalf("Read after the error: %d, %v, %d calls; want the error again without a call", n, err, stuck.calls)
	}
}

// TestReaderWholeCharacters: a Read given room for the text never returns
// part of a character, however the underlying reader splits it.
func TestReaderWholeCharacters(t *testing.T) {
	in := []byte(strings.Repeat("你好世界", 100))
	tr := NewReader(iotest.OneByteReader(bytes.NewReader(in)))
	buf := make([]byte, 64)
	total := 0
	for {
		n, err := tr.Read(buf)
		if !stdutf8.Valid(buf[:n]) {
			t.Fatalf("Read returned a cut character: % X", buf[:n])
		}
		total += n
		if err != nil {
			break
		}
	}
	if total != len(in) {
		t.Fatalf("read %d bytes, want %d", total, len(in))
	}
}

func TestReaderError(t *testing.T) {
	boom := errors.New("reset")
	r := NewReader(io.MultiReader(strings.NewReader("ok\xE4"), iotest.ErrReader(boom)))
	got, err := readAll(t, r, 64)
	if !errors.Is(err, boom) || string(got) != "ok" {
		t.Fatalf("got %q, %v", got, err)
	}
}
