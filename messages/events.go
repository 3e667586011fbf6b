package messages

import (
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/eventframe"
	"github.com/layer0/anth/sse"
)

// Event is an event of the stream an ANTH stream was bridged from, as its
// EVENT frames carry it (SPEC.md §3.10): what stays inside them, such as a
// message's id and model or a tool call's start, is read here.
type Event struct {
	Name []byte // the SSE event name; may be empty
	Data []byte // the event's JSON, compact
}

// EventReader joins a stream's EVENT frames into the events they carry:
// it follows continuation frames, inflates deflated data with
// EventDictionary and checks that the result is JSON. The zero value is
// ready to use; it allocates an inflater on the first deflated event.
type EventReader struct {
	// MaxEvent bounds an event's data, joined and inflated; 0 means
	// sse.DefaultMaxEvent.
	MaxEvent int
	// RawOnly refuses deflated EVENT data (ErrMalformed): for a stream
	// that arrived in anth-deflate, whose EVENTs travel raw (SPEC.md
	// §11.2). Without it an EVENT's data inflates to at most MaxEvent.
	RawOnly bool

	r eventframe.Reader
}

// Add takes the stream's next EVENT frame. When the frame completes an
// event, Add returns it, valid until the next call, and true; when the
// event continues in the next frame, false. Errors are *Error (with
// Offset -1: an EventReader does not see the stream) of kind ErrMalformed
// or ErrTooLarge.
func (r *EventReader) Add(f frame.Frame) (Event, bool, error) {
	max := r.MaxEvent
	if max <= 0 {
		max = sse.DefaultMaxEvent
	}
	name, data, ok, err := r.r.Add(f, eventDict(), max, r.RawOnly)
	if fe, isFault := err.(*eventframe.Fault); isFault {
		return Event{}, false, &Error{Offset: -1, Err: fe.Kind, Detail: fe.Detail}
	}
	if err != nil || !ok {
		return Event{}, false, err
	}
	return Event{Name: name, Data: data}, true, nil
}

// Pending reports whether an event's frames have started and not ended.
func (r *EventReader) Pending() bool { return r.r.Pending() }

// Reset forgets a partly joined event and the event before it (the
// dictionary of an EVENT of encoding 3 ends with its data, SPEC.md §3.10),
// keeping buffers and the inflater: what comes next starts a stream.
func (r *EventReader) Reset() { r.r.Reset() }
