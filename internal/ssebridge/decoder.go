package ssebridge

import (
	"io"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/sse"
)

// ToFrames is a bridge's conversion of its API's events to frames.
type ToFrames interface {
	// Event appends the frames of one event, none for an event that
	// carries nothing. An error's offset is set by the Decoder's Fault.
	Event(b, name, data []byte) ([]byte, error)
	// End is told that the event stream ended, and reports a response
	// that had not.
	End() error
}

// Fault turns an error of the loop into the bridge's: an *sse.Error of
// the Scanner (which carries its own offset) into the bridge's error
// type, and gives a conversion's error the offset off where it happened,
// if it has none.
type Fault func(err error, off int64) error

// Decoder reads an event stream (SPEC.md §7a, §7b) through an
// sse.Scanner and gives the ANTH bytes of each event that carries
// anything, the magic with the first, each event's frames padded to a
// multiple of the padding when it is positive. It holds one event and
// the frames of one. Its zero value is not usable: a bridge's Decoder
// embeds one and calls Init.
type Decoder struct {
	sc      *sse.Scanner
	conv    ToFrames
	fault   Fault
	padding int
	out     []byte // Read's pending output: out[pos:]
	pos     int
	buf     []byte // Next's output
	err     error
	started bool
}

// Init makes d read r, with the Scanner's bound maxEvent and padding,
// converting with conv.
func (d *Decoder) Init(r io.Reader, maxEvent, padding int, conv ToFrames, fault Fault) {
	*d = Decoder{sc: sse.NewScanner(r, maxEvent), conv: conv, fault: fault, padding: padding}
	d.err = frame.CheckPadBlock(padding)
}

// Reset makes d read a new stream from r, with padding, keeping its
// buffers; the bridge resets its conversion.
func (d *Decoder) Reset(r io.Reader, padding int) {
	d.sc.Reset(r)
	d.out, d.pos, d.buf, d.started, d.padding = d.out[:0], 0, d.buf[:0], false, padding
	d.err = frame.CheckPadBlock(padding)
}

// SetMaxEvent sets the Scanner's bound on a line and an event's data.
func (d *Decoder) SetMaxEvent(n int) { d.sc.SetMaxEvent(n) }

// Read reads ANTH bytes; io.EOF after a whole response.
func (d *Decoder) Read(p []byte) (int, error) {
	for d.pos == len(d.out) {
		if d.err != nil {
			return 0, d.err
		}
		d.out, d.err = d.Next()
		d.pos = 0
	}
	n := copy(p, d.out[d.pos:])
	d.pos += n
	return n, nil
}

// Next returns the ANTH bytes of the next event that carries anything,
// valid until the next call; io.EOF after the last. Errors are sticky.
func (d *Decoder) Next() ([]byte, error) {
	if d.err != nil {
		return nil, d.err
	}
	b, err := d.next(d.buf[:0])
	d.buf = b[:0]
	if err != nil {
		d.err = err
		return nil, err
	}
	return b, nil
}

func (d *Decoder) next(b []byte) ([]byte, error) {
	if !d.started {
		d.started = true
		b = frame.AppendMagic(b)
	}
	for {
		name, data, err := d.sc.Next()
		if err == io.EOF {
			if err := d.conv.End(); err != nil {
				return b, d.fault(err, d.sc.Offset())
			}
			if len(b) > 0 {
				return b, nil
			}
			return b, io.EOF
		}
		if err != nil {
			// The Scanner's faults are the bridge's, of one error type.
			return b, d.fault(err, d.sc.Offset())
		}
		start := len(b)
		if b, err = d.conv.Event(b, name, data); err != nil {
			return b, d.fault(err, d.sc.EventOffset())
		}
		if len(b) == start {
			continue // an event that carries nothing
		}
		return frame.AppendPadTo(b, start, d.padding), nil
	}
}

// Ready reports whether the next event is already read, so that Next
// returns without reading (sse.Scanner.Ready).
func (d *Decoder) Ready() bool { return d.err == nil && d.sc.Ready() }

// Offset returns the bytes of the event stream read so far.
func (d *Decoder) Offset() int64 { return d.sc.Offset() }
