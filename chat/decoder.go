package chat

import (
	"errors"
	"io"
	"sync"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/sse"
)

// DecoderOptions configure a Decoder. The zero value is ready to use.
//
// Whitespace inside a chunk's JSON is not kept (SPEC.md §7b: chunks are
// compacted); the OpenAI API's obfuscation travels as PAD frames.
type DecoderOptions struct {
	// MaxEvent bounds a line and an event's data; 0 means DefaultMaxEvent.
	MaxEvent int
	// Padding, if positive, pads the frames of each event to a multiple of
	// Padding bytes with a PAD frame (frame.AppendPadTo), after the PAD of
	// its obfuscation (§7b.4); at most frame.MaxPadBlock.
	Padding int
	// RawEvents keeps EVENT data as plain JSON instead of deflating it.
	RawEvents bool
	// RandomPad fills the PAD frames that carry obfuscation with bytes
	// that do not compress (a keystream, the same on every run) instead of
	// zeros, for frames that go on to be compressed
	// (anth-deflate): zeros compress to nearly nothing, and the coded
	// stream's sizes would follow the text again, which is what the
	// obfuscation hides (SPEC.md §7b.4, §11.1). API.NewDecoder sets it
	// when coded.
	RandomPad bool
}

// Decoder reads a Chat Completions stream of Server-Sent Events and gives
// the ANTH stream that carries it (SPEC.md §7b). It holds at most one event
// and the templates of at most MaxBlocks blocks of MaxTemplate bytes. Read gives the ANTH bytes; Next gives the frames of one
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
	d.core = toFrames{opts: d.opts, rd: core.rd, compact: core.compact[:0], tpl: core.tpl[:0], scratch: core.scratch[:0], synth: core.synth[:0],
		name: core.name[:0], prev: core.prev[:0], stopSeq: core.stopSeq[:0], keys: core.keys[:0], tpls: core.tpls[:0], fast: core.fast[:0],
		ids: logprobIDs{ids: core.ids.ids[:0], at: core.ids.at[:0], tok: core.ids.tok[:0], out: core.ids.out[:0]}}
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
// for SSE that is malformed or ends before data: [DONE] or an error chunk
// (or, from a server that sends no [DONE], before a chunk that finishes its
// choices or gives the usage: SPEC.md §7b.3). Errors are sticky.
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
			// SPEC.md §7b.3: bytes cut after the response's end complete
			// no event (an EventSource leaves such an event out too): the
			// response is whole, as the gateway's relay judges it.
			err = io.EOF
		}
		if err == io.EOF {
			start := len(b)
			if b, err = d.core.end(b); err != nil {
				return b, d.at(err, d.sc.Offset())
			}
			if len(b) > start {
				b = frame.AppendPadTo(b, start, d.opts.Padding)
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

// SetLookup makes d add the token IDs that the API's logprobs give the
// bytes of: each choice whose logprobs.content and logprobs.refusal
// entries all have "bytes" that lookup maps to an ID (vocab.Vocabulary's
// Lookup) gains those IDs as "token_ids", last in the choice, as vLLM's
// return_token_ids puts them; a choice with token_ids of its own, or any
// bytes lookup does not map, is left as it came. The IDs then travel as
// the upstream's own do (SPEC.md §7b.2 hole 3, §3.14): TOKEN and TOKEN32
// frames beside the text, written back as token_ids. A gateway that knows
// the model's vocabulary calls it, before the first Next, for a client
// that asks for IDs and text: the OpenAI API returns no IDs. A nil lookup
// turns it off, as Reset does. It holds one more chunk, the event's data
// with the IDs, under twice its size.
func (d *Decoder) SetLookup(lookup func(b []byte) (id uint32, ok bool)) { d.core.ids.lookup = lookup }

// Ready reports whether the next event is already read from the stream,
// so that Next returns without reading (sse.Scanner.Ready): the HTTP layer
// then writes it with the one before, as a plain proxy writes whatever it
// has read.
func (d *Decoder) Ready() bool { return d.err == nil && d.sc.Ready() }

// Offset returns the bytes of SSE read so far.
func (d *Decoder) Offset() int64 { return d.sc.Offset() }

// Ended reports whether the response has ended: its data: [DONE] or error
// chunk read (or its bytes ended where a stream with no [DONE] may end),
// and so its DONE or ERROR frame given.
func (d *Decoder) Ended() bool { return d.core.ended }

// at gives an *Error from the core the offset where it happened.
func (d *Decoder) at(err error, off int64) error {
	if e, ok := err.(*Error); ok && e.Offset <= 0 {
		e.Offset = off
	}
	return err
}
