package messages

import (
	"io"
	"sync"

	"github.com/layer0/anth/internal/ssebridge"
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
	opts DecoderOptions
	core toFrames
	loop ssebridge.Decoder
	pool *DecoderPool // where Release puts d back
}

// NewDecoder returns a Decoder reading SSE from r.
func NewDecoder(r io.Reader, opts DecoderOptions) *Decoder {
	d := &Decoder{opts: opts, core: toFrames{opts: opts}}
	d.loop.Init(r, opts.MaxEvent, opts.Padding, &d.core, decodeFault)
	return d
}

// Reset makes d read a new SSE stream from r, keeping its buffers: a
// gateway can keep one Decoder per worker rather than make one per
// response.
func (d *Decoder) Reset(r io.Reader) {
	core := d.core
	// The buffers, and no state: the memo emptied is no event's (an
	// event's JSON is never empty).
	d.core = toFrames{opts: d.opts, compact: core.compact[:0], scratch: core.scratch[:0], synth: core.synth[:0], rest: core.rest[:0], deferred: core.deferred[:0],
		stopSeq: core.stopSeq[:0], memoName: core.memoName[:0], memoJSON: core.memoJSON[:0], memoFrames: core.memoFrames[:0]}
	d.loop.Reset(r, d.opts.Padding)
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
		d.loop.SetMaxEvent(opts.MaxEvent)
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
func (d *Decoder) Read(p []byte) (int, error) { return d.loop.Read(p) }

// Next returns the ANTH bytes of the next SSE event that carries anything
// (the stream's magic comes with the first), valid until the next call. It
// returns io.EOF after the last event of a complete stream, and an *Error
// for SSE that is malformed or ends before message_stop or an error event.
// Errors are sticky.
func (d *Decoder) Next() ([]byte, error) { return d.loop.Next() }

// Ready reports whether the next event is already read from the stream,
// so that Next returns without reading (sse.Scanner.Ready): the HTTP layer
// then writes it with the one before, as a plain proxy writes whatever it
// has read.
func (d *Decoder) Ready() bool { return d.loop.Ready() }

// Offset returns the bytes of SSE read so far.
func (d *Decoder) Offset() int64 { return d.loop.Offset() }

// Ended reports whether the response has ended: its message_stop or error
// event read, and so its DONE or ERROR frame given.
func (d *Decoder) Ended() bool { return d.core.ended }
