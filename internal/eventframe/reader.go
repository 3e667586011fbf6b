// Package eventframe holds what every API bridge does with EVENT frames
// (SPEC.md §3.10) whatever its dictionary: joining an event's frames,
// inflating and checking its data (Reader), and rewriting deflated EVENTs
// raw for anth-deflate (RawWriter, §11.2). Package messages and package
// chat each wrap it with their own dictionary and error type.
package eventframe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strconv"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/errkind"
	"github.com/layer0/anth/internal/jsonlex"
)

// Fault is what a Reader refuses: the kind (errkind.Malformed or
// errkind.TooLarge) and why. A bridge turns it into its own *Error.
type Fault struct {
	Kind   error
	Detail string
}

func (f *Fault) Error() string { return f.Kind.Error() + ": " + f.Detail }

func fault(kind error, detail string) error { return &Fault{Kind: kind, Detail: detail} }

// Reader joins a stream's EVENT frames into the events they carry: it
// follows continuation frames, inflates deflated data with the bridge's
// dictionary, writes binary32 data as the JSON number it stands for
// (SPEC.md §3.10), and checks that the result is JSON, compacting it. The zero
// value is ready to use; it allocates an inflater on the first deflated
// event.
type Reader struct {
	name     []byte
	enc      uint8
	data     []byte // data of an event whose frames continue
	pending  bool
	inflater deflate.Inflater
	compact  []byte
	// prev is the data of the event before, decoded (its last 32 KiB, what
	// a window reaches): the dictionary of an EVENT of encoding 3 ends
	// with it (SPEC.md §3.10).
	prev []byte
}

// Add takes the stream's next EVENT frame. When it completes an event, Add
// returns the event's name and compact JSON, valid until the next call,
// and true; when the event continues in the next frame, false. max bounds
// the data joined and inflated; rawOnly refuses deflated data (a stream
// that came in anth-deflate). A refusal is a *Fault; a frame that is not
// an EVENT is frame's error.
func (r *Reader) Add(f frame.Frame, dict *deflate.Dictionary, max int, rawOnly bool) (name, data []byte, ok bool, err error) {
	ev, err := f.Event()
	if err != nil {
		return nil, nil, false, err
	}
	if rawOnly && (ev.Encoding == frame.EventDeflate || ev.Encoding == frame.EventDeflateAfter) {
		return nil, nil, false, fault(errkind.Malformed, "a deflated EVENT inside anth-deflate, whose EVENTs are raw")
	}
	if ev.Encoding == frame.EventBinary32 && ev.More {
		return nil, nil, false, fault(errkind.Malformed, "EVENT binary32 data continued")
	}
	if r.pending && (string(ev.Name) != string(r.name) || ev.Encoding != r.enc) {
		return nil, nil, false, fault(errkind.Malformed, "EVENT continuation with another name or encoding")
	}
	if !r.pending {
		r.name, r.enc, r.data = append(r.name[:0], ev.Name...), ev.Encoding, r.data[:0]
	}
	if len(r.data)+len(ev.Data) > max {
		return nil, nil, false, fault(errkind.TooLarge, "event over "+strconv.Itoa(max)+" bytes")
	}
	r.data = append(r.data, ev.Data...)
	if r.pending = ev.More; r.pending {
		return nil, nil, false, nil
	}
	js := r.data
	if r.enc == frame.EventBinary32 {
		// §3.10: 4 bytes in one frame, finite (frame.Parse checks as much;
		// a Frame made by hand is checked here).
		if len(js) != 4 || binary.LittleEndian.Uint32(js)&0x7F800000 == 0x7F800000 || bytes.ContainsAny(r.name, "\r\n") {
			return nil, nil, false, fault(errkind.Malformed, "EVENT binary32 data that is not one finite float, or a name with a line break")
		}
		r.compact = jsonlex.AppendBinary32(r.compact[:0], math.Float32frombits(binary.LittleEndian.Uint32(js)))
		r.keep(r.compact)
		return r.name, r.compact, true, nil
	}
	switch r.enc {
	case frame.EventDeflate:
		js, err = r.inflate(js, dict, nil, max)
	case frame.EventDeflateAfter:
		js, err = r.inflate(js, dict, r.prev, max)
	}
	if err != nil {
		return nil, nil, false, err
	}
	r.keep(js)
	if bytes.ContainsAny(r.name, "\r\n") {
		return nil, nil, false, fault(errkind.Malformed, "EVENT name with a line break")
	}
	// Compact JSON has no line break outside its strings and none inside:
	// written into an SSE data line, it stays one line.
	out, valid := jsonlex.AppendCompact(r.compact[:0], js)
	r.compact = out
	if !valid {
		return nil, nil, false, fault(errkind.Malformed, "EVENT data is not JSON")
	}
	return r.name, out, true, nil
}

// Pending reports whether an event's frames have started and not ended.
func (r *Reader) Pending() bool { return r.pending }

// Reset forgets a partly joined event and the event before it, keeping
// buffers and the inflater: what comes next starts a stream.
func (r *Reader) Reset() { r.pending, r.prev = false, r.prev[:0] }

// keep makes js, an event's data as its encoding gives it, the data of the
// event before the next.
func (r *Reader) keep(js []byte) {
	r.prev = append(r.prev[:0], js[max(0, len(js)-deflate.Window):]...)
}

func (r *Reader) inflate(z []byte, dict *deflate.Dictionary, prev []byte, max int) ([]byte, error) {
	var out []byte
	var err error
	if prev == nil {
		out, err = r.inflater.Inflate(z, dict, max)
	} else {
		out, err = r.inflater.InflateAfter(z, dict, prev, max)
	}
	if err == nil {
		return out, nil
	}
	var e *deflate.Error // escapes, through errors.As: only on a fault
	if errors.As(err, &e) {
		if e.Err == deflate.ErrTooLarge {
			return nil, fault(errkind.TooLarge, "inflated event over "+strconv.Itoa(max)+" bytes")
		}
		return nil, fault(errkind.Malformed, "EVENT data does not inflate: "+e.Detail)
	}
	return out, err
}
