package messages

import (
	"errors"
	"io"
	"sync"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/sse"
)

// DecoderOptions configure a Decoder. The zero value is ready to use.
type DecoderOptions struct {
	// MaxEvent bounds a line and an event's data; 0 means DefaultMaxEvent.
	MaxEvent int
	// Padding, if positive, pads the frames of each event to a multiple of
	// Padding bytes with a PAD frame (frame.AppendPadTo), as the API pads
	// its JSON with spaces; at most frame.MaxPadBlock.
	Padding int
	// RawEvents keeps EVENT data as plain JSON instead of deflating it.
	RawEvents bool
}

// Decoder reads an Anthropic Messages API stream of Server-Sent Events and
// gives the ANTH stream that carries it (SPEC.md §7a). It holds at most one
// event at a time. Read gives the ANTH bytes; Next gives the frames of one
// event. A Decoder is not safe for concurrent use.
type Decoder struct {
	opts    DecoderOptions
	sc      *sse.Scanner
	core    toFrames
	out     []byte // Read's pending output: out[pos:]
	pos     int
	buf     []byte // Next's output
	err     error
	started bool
	pool    *DecoderPool // where Release puts d back
}

// NewDecoder returns a Decoder reading SSE from r.
func NewDecoder(r io.Reader, opts DecoderOptions) *Decoder {
	d := &Decoder{opts: opts, sc: sse.NewScanner(r, opts.MaxEvent), core: toFrames{opts: opts}}
	if err := frame.CheckPadBlock(opts.Padding); err != nil {
		d.err = err
	}
	return d
}

// Reset makes d read a new SSE stream from r, keeping its buffers: a
// gateway can keep one Decoder per worker rather than make one per
// response.
func (d *Decoder) Reset(r io.Reader) {
	d.sc.Reset(r)
	core := d.core
	// The buffers, and no state: the memo emptied is no event's (an
	// event's JSON is never empty).
	d.core = toFrames{opts: d.opts, compact: core.compact[:0], scratch: core.scratch[:0], synth: core.synth[:0], rest: core.rest[:0], deferred: core.deferred[:0],
		stopSeq: core.stopSeq[:0], memoName: core.memoName[:0], memoJSON: core.memoJSON[:0], memoFrames: core.memoFrames[:0]}
	d.out, d.pos, d.buf, d.started = d.out[:0], 0, d.buf[:0], false
	d.err = frame.CheckPadBlock(d.opts.Padding)
}

// DecoderPool keeps Decoders for reuse, explicitly, as huff0's Scratch is
// reuse the caller holds rather than a pool hidden in the package: a server
// that bridges many short streams gives its API one (API.Decoders), and
// then every Decoder API.NewDecoder makes comes from it and goes back to it
// when the HTTP layer calls Release. A response is short and a Decoder's
// buffers (the Scanner's 8 KiB among them) are not. The zero value is
// ready to use; it is safe for concurrent use.
type DecoderPool struct{ p sync.Pool }

// get returns a Decoder from the pool, or a new one, reading r with opts.
func (dp *DecoderPool) get(r io.Reader, opts DecoderOptions) *Decoder {
	d, _ := dp.p.Get().(*Decoder)
	if d == nil {
		d = NewDecoder(r, opts)
	} else {
		d.opts = opts
		d.sc.SetMaxEvent(opts.MaxEvent)
		d.Reset(r)
	}
	d.pool = dp
	return d
}

// Release gives d back to the DecoderPool it came from, if any, holding on
// to nothing it read: d must not be used after it. A Decoder that came
// from no pool is left to the garbage collector.
func (d *Decoder) Release() {
	if dp := d.pool; dp != nil {
		d.pool = nil
		d.Reset(nil)
		dp.p.Put(d)
	}
}

// Read reads ANTH bytes. At the end of a complete stream it returns io.EOF;
// for malformed or cut SSE an *Error.
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

// Next returns the ANTH bytes of the next SSE event that carries anything
// (the stream's magic comes with the first), valid until the next call. It
// returns io.EOF after the last event of a complete stream, and an *Error
// for SSE that is malformed or ends before message_stop or an error event.
// Errors are sticky.
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

// next is the loop over events, each bridge's own as drain is its
// Encoder's: written once for both bridges, behind an interface to the
// conversion of one event, it cost Chat Completions SSE → ANTH 7-9 % a
// chunk (BenchmarkChatBridge, 8 paired runs), the conversion's call no
// longer inlined into the loop.
func (d *Decoder) next(b []byte) ([]byte, error) {
	if !d.started {
		d.started = true
		b = frame.AppendMagic(b)
	}
	for {
		name, data, err := d.sc.Next()
		if err != nil && d.core.ended && errors.Is(err, sse.ErrTruncated) {
			// SPEC.md §7a (after the response ends): bytes cut after its
			// end complete no event (an EventSource leaves such an event
			// out too): the response is whole, as the gateway's relay
			// judges it.
			err = io.EOF
		}
		if err == io.EOF {
			if err := d.core.end(); err != nil {
				return b, d.at(err, d.sc.Offset())
			}
			if len(b) > 0 {
				return b, nil
			}
			return b, io.EOF
		}
		if err != nil {
			// The Scanner's faults are the Decoder's, of one error type.
			if se, ok := err.(*sse.Error); ok {
				err = &Error{Offset: se.Offset, Err: se.Err, Detail: se.Detail}
			}
			return b, err
		}
		start := len(b)
		if b, err = d.core.event(b, name, data); err != nil {
			return b, d.at(err, d.sc.EventOffset())
		}
		if len(b) == start {
			continue // an event that carries nothing
		}
		return frame.AppendPadTo(b, start, d.opts.Padding), nil
	}
}

// Ready reports whether the next event is already read from the stream,
// so that Next returns without reading (sse.Scanner.Ready): the HTTP layer
// then writes it with the one before, as a plain proxy writes whatever it
// has read.
func (d *Decoder) Ready() bool { return d.err == nil && d.sc.Ready() }

// Offset returns the bytes of SSE read so far.
func (d *Decoder) Offset() int64 { return d.sc.Offset() }

// Ended reports whether the response has ended: its message_stop or error
// event read, and so its DONE or ERROR frame given.
func (d *Decoder) Ended() bool { return d.core.ended }

// at gives an *Error from the core the offset where it happened.
func (d *Decoder) at(err error, off int64) error {
	if e, ok := err.(*Error); ok && e.Offset <= 0 {
		e.Offset = off
	}
	return err
}
