package testdata

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/layer0/anth/sse"
)

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

// EventReader reads an event stream an event (up to its blank line, LF
// line ends) a Read, as a network gives a stream whose server flushes after
// each event; read whole at once, a relay would write it in one go.
type EventReader struct{ Rest []byte }

func (e *EventReader) Read(p []byte) (int, error) {
	if len(e.Rest) == 0 {
		return 0, io.EOF
	}
	n := len(e.Rest)
	if i := bytes.Index(e.Rest, []byte("\n\n")); i >= 0 {
		n = i + 2
	}
	n = copy(p, e.Rest[:n])
	e.Rest = e.Rest[n:]
	return n, nil
}

// Close does nothing: an EventReader serves as a response body.
func (e *EventReader) Close() error { return nil }

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

// Events splits an event stream into its events' names and data, failing
// the test on a stream the standard's parser refuses.
func Events(t interface {
	Helper()
	Fatal(...any)
}, stream []byte) [][2]string {
	t.Helper()
	sc := sse.NewScanner(bytes.NewReader(stream), 0)
	var evs [][2]string
	for {
		name, data, err := sc.Next()
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, [2]string{string(name), string(data)})
	}
}

// EventsJSON is Events with each event's data as its JSON value,
// re-marshalled: events compared as values, whatever their spacing and key
// order.
func EventsJSON(t interface {
	Helper()
	Fatal(...any)
}, stream []byte) [][2]string {
	t.Helper()
	evs := Events(t, stream)
	for i := range evs {
		var v any
		json.Unmarshal([]byte(evs[i][1]), &v)
		b, _ := json.Marshal(v)
		evs[i][1] = string(b)
	}
	return evs
}
