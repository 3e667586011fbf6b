package chat

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/sse"

	"github.com/layer0/anth/frame"
)

// Event is an event of the stream an ANTH stream was bridged from, as its
// EVENT frames carry it (SPEC.md §3.10, §7b.6): a chunk, a template, the
// rest of a usage chunk, read here.
type Event struct {
	Name []byte // the SSE event name; may be empty
	Data []byte // the event's JSON, compact
}

// EventReader joins a stream's EVENT frames into the events they carry:
// it follows continuation frames, inflates deflated data with this
// package's EventDictionary and checks that the result is JSON. The zero
// value is ready to use; it allocates an inflater on the first deflated
// event.
type EventReader struct {
	// MaxEvent bounds an event's data, joined and inflated; 0 means
	// sse.DefaultMaxEvent.
	MaxEvent int
	// RawOnly refuses deflated EVENT data (ErrMalformed): for a stream
	// that arrived in anth-deflate, whose EVENTs travel raw (SPEC.md
	// §11.2). Without it an EVENT's data inflates to at most MaxEvent.
	RawOnly bool

	name     []byte
	enc      uint8
	data     []byte // data of an event whose frames continue
	pending  bool
	inflater deflate.Inflater
	compact  []byte
}

// Add takes the stream's next EVENT frame. When the frame completes an
// event, Add returns it, valid until the next call, and true; when the
// event continues in the next frame, false. Errors are *Error (with
// Offset -1: an EventReader does not see the stream) of kind ErrMalformed
// or ErrTooLarge.
func (r *EventReader) Add(f frame.Frame) (Event, bool, error) {
	ev, err := f.Event()
	if err != nil {
		return Event{}, false, err
	}
	if r.RawOnly && ev.Encoding == frame.EventDeflate {
		return Event{}, false, eventErr(ErrMalformed, "a deflated EVENT inside anth-deflate, whose EVENTs are raw")
	}
	if r.pending && (string(ev.Name) != string(r.name) || ev.Encoding != r.enc) {
		return Event{}, false, eventErr(ErrMalformed, "EVENT continuation with another name or encoding")
	}
	if !r.pending {
		r.name, r.enc, r.data = append(r.name[:0], ev.Name...), ev.Encoding, r.data[:0]
	}
	if len(r.data)+len(ev.Data) > r.max() {
		return Event{}, false, eventErr(ErrTooLarge, "event over "+strconv.Itoa(r.max())+" bytes")
	}
	r.data = append(r.data, ev.Data...)
	if r.pending = ev.More; r.pending {
		return Event{}, false, nil
	}
	data := r.data
	if r.enc == frame.EventDeflate {
		if data, err = r.inflate(data); err != nil {
			return Event{}, false, err
		}
	}
	if bytes.ContainsAny(r.name, "\r\n") {
		return Event{}, false, eventErr(ErrMalformed, "EVENT name with a line break")
	}
	// Compact JSON has no line break outside its strings and none inside:
	// written into an SSE data line, it stays one line.
	js, ok := jsonlex.AppendCompact(r.compact[:0], data)
	r.compact = js
	if !ok {
		return Event{}, false, eventErr(ErrMalformed, "EVENT data is not JSON")
	}
	return Event{Name: r.name, Data: js}, true, nil
}

// Pending reports whether an event's frames have started and not ended.
func (r *EventReader) Pending() bool { return r.pending }

// Reset forgets a partly joined event, keeping buffers and the inflater.
func (r *EventReader) Reset() { r.pending = false }

func (r *EventReader) max() int {
	if r.MaxEvent > 0 {
		return r.MaxEvent
	}
	return sse.DefaultMaxEvent
}

func (r *EventReader) inflate(z []byte) ([]byte, error) {
	out, err := r.inflater.Inflate(z, eventDict(), r.max())
	var e *deflate.Error
	if errors.As(err, &e) {
		if e.Err == deflate.ErrTooLarge {
			return nil, eventErr(ErrTooLarge, "inflated event over "+strconv.Itoa(r.max())+" bytes")
		}
		return nil, eventErr(ErrMalformed, "EVENT data does not inflate: "+e.Detail)
	}
	return out, err
}

func eventErr(kind error, detail string) error { return &Error{Offset: -1, Err: kind, Detail: detail} }
