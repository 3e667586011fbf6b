package eventframe

import (
	"bytes"
	"io"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/sse"
)

// RawWriter sits between a frame.Writer and an anth-deflate stream and
// writes each deflated EVENT raw, as SPEC.md §11.2 has EVENT data travel
// inside the coding: the stream's window deflates it better than the
// event alone, and a reader refuses a deflated one there. A handler's
// frames come from anywhere (a Decoder that deflates EVENTs, a recording),
// so NewResponseWriter converts them rather than asking every handler to.
//
// frame.Writer hands over whole frames, Magic first, in each Write; the
// cost for every other frame is frame.Parse's few nanoseconds. EVENTs that
// are not deflated go as they are, read too: an EVENT of encoding 3
// inflates with the event before it (SPEC.md §3.10), whatever that one's
// encoding.
type RawWriter struct {
	W    io.Writer           // where the frames go
	Dict *deflate.Dictionary // the bridge's EVENT dictionary

	magic   bool
	events  Reader
	passing bool   // the event being joined goes as it came (not deflated)
	held    []byte // the frames of a deflated event still being joined
	out     []byte
}

func (r *RawWriter) Write(p []byte) (int, error) {
	out, rest := r.out[:0], p
	if !r.magic && bytes.HasPrefix(rest, []byte(frame.Magic)) {
		out, rest, r.magic = append(out, frame.Magic...), rest[len(frame.Magic):], true
	}
	for len(rest) > 0 {
		f, n, err := frame.Parse(rest)
		if err != nil {
			// Not the whole frames a frame.Writer writes: pass the bytes on,
			// for the reader to judge.
			out = append(out, rest...)
			break
		}
		ev, evErr := f.Event()
		if f.Type != frame.TypeEvent || evErr != nil {
			if r.events.Pending() {
				// A continuation broken off (SPEC §4): the frames go as
				// they came, for the client's reader to refuse.
				out, r.held = append(out, r.held...), r.held[:0]
				r.events.Reset()
			}
			out = append(out, rest[:n]...)
			rest = rest[n:]
			continue
		}
		if !r.events.Pending() {
			r.passing = ev.Encoding != frame.EventDeflate && ev.Encoding != frame.EventDeflateAfter
		}
		if r.passing {
			// Raw JSON or binary32: as it came, and read for the event
			// after it.
			if _, _, _, err := r.events.Add(f, r.Dict, sse.DefaultMaxEvent, false); err != nil {
				r.events.Reset() // the client's reader reports it
			}
			out = append(out, rest[:n]...)
			rest = rest[n:]
			continue
		}
		r.held = append(r.held, rest[:n]...)
		name, data, whole, err := r.events.Add(f, r.Dict, sse.DefaultMaxEvent, false)
		switch {
		case err != nil:
			r.events.Reset()
			out = append(out, r.held...) // the client's reader reports it
			r.held = r.held[:0]
		case whole:
			out = frame.AppendEvent(out, frame.EventJSON, name, data)
			r.held = r.held[:0]
		}
		rest = rest[n:]
	}
	r.out = out
	if _, err := r.W.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush passes a frame.Writer's Flush on.
func (r *RawWriter) Flush() error {
	if f, ok := r.W.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}
