package sse

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/layer0/anth/frame"
	anthutf8 "github.com/layer0/anth/utf8"
)

// DecoderOptions configure a Decoder. The zero value is ready to use.
type DecoderOptions struct {
	// MaxEvent bounds the data of an EVENT split across frames, and of one
	// inflated; default DefaultMaxEvent.
	MaxEvent int
	// Model and MessageID name the message in the message_start a Decoder
	// writes for a stream that has none (ANTH from a server that never saw
	// SSE). Defaults: "unknown" and "msg_anth".
	Model, MessageID string
	// Detokenize, if set, spells token IDs for TOKEN and TOKEN32 frames,
	// appending their bytes (any UTF-8 split is reassembled) to dst.
	// Without it token frames are an error: SSE carries text.
	Detokenize func(dst []byte, ids []uint32) []byte
}

// Decoder reads an ANTH stream and produces the Anthropic SSE stream it
// carries: every event ends with a blank line, message_delta carries usage,
// the stream ends with message_stop. Text, thinking and tool input are
// reassembled into whole UTF-8 characters before they are put in JSON.
type Decoder struct {
	opts DecoderOptions
	r    *frame.Reader
	off  int64 // stream offset, when frames are pushed (r == nil)
	out  []byte
	pos  int
	err  error

	started     bool                         // a message_start was written
	bridged     bool                         // the stream carries its own message events
	open        []bool                       // which blocks are started and not stopped
	pending     map[uint32]*anthutf8.Decoder // UTF-8 reassembly per block and kind
	usage       frame.Usage
	cache       frame.CacheUsage
	sawUsage    bool
	sawDelta    bool // a message_delta was written
	ended       bool
	event       []byte // an EVENT being joined across frames
	eventName   []byte
	eventEnc    uint8
	zr          io.ReadCloser
	inflated    bytes.Buffer
	ids         []uint32
	tokenBuffer []byte
}

// NewDecoder returns a Decoder reading ANTH from r.
func NewDecoder(r io.Reader, opts DecoderOptions) *Decoder {
	d := newConverter(opts)
	d.r = frame.NewReader(r)
	return d
}

// newConverter returns a Decoder with no reader, for frames pushed to it.
func newConverter(opts DecoderOptions) *Decoder {
	if opts.MaxEvent <= 0 {
		opts.MaxEvent = DefaultMaxEvent
	}
	if opts.Model == "" {
		opts.Model = "unknown"
	}
	if opts.MessageID == "" {
		opts.MessageID = "msg_anth"
	}
	return &Decoder{opts: opts, pending: map[uint32]*anthutf8.Decoder{}}
}

// Reset makes d read a new ANTH stream from r, keeping its buffers.
func (d *Decoder) Reset(r io.Reader) {
	fr := d.r
	fr.Reset(r)
	*d = Decoder{opts: d.opts, r: fr, out: d.out[:0], pending: map[uint32]*anthutf8.Decoder{}, zr: d.zr, open: d.open[:0]}
}

// Read reads SSE bytes. A stream cut before its end (DONE or ERROR) is
// ErrTruncated, not a shorter message.
func (d *Decoder) Read(p []byte) (int, error) {
	for d.pos == len(d.out) {
		if d.err != nil {
			return 0, d.err
		}
		d.out, d.pos = d.out[:0], 0
		d.out, d.err = d.next(d.out)
	}
	n := copy(p, d.out[d.pos:])
	d.pos += n
	return n, nil
}

// Next returns the SSE events of the next frame (possibly none), valid
// until the next call, or io.EOF after the end of the stream.
func (d *Decoder) Next() ([]byte, error) {
	if d.err != nil {
		return nil, d.err
	}
	d.out, d.err = d.next(d.out[:0])
	return d.out, d.err
}

func (d *Decoder) fail(kind error, detail string) error {
	off := d.off
	if d.r != nil {
		off = d.r.Offset()
	}
	return &Error{Offset: off, Err: kind, Detail: detail}
}

func (d *Decoder) next(b []byte) ([]byte, error) {
	if d.ended {
		return b, io.EOF
	}
	f, err := d.r.Next()
	if err == io.EOF {
		return b, d.fail(ErrTruncated, "stream ends before DONE")
	}
	if err != nil {
		return b, err
	}
	return d.frame(b, f)
}

// frame appends the SSE events of one frame.
func (d *Decoder) frame(b []byte, f frame.Frame) ([]byte, error) {
	var err error
	if d.ended {
		if f.Type.Ignorable() {
			return b, nil
		}
		return b, d.fail(ErrMalformed, f.Type.String()+" frame after the end of the message")
	}
	if len(d.event) > 0 && f.Type != frame.TypeEvent {
		return b, d.fail(ErrMalformed, "EVENT frame flagged More, then a "+f.Type.String()+" frame")
	}
	switch f.Type {
	case frame.TypeEvent:
		return d.eventFrame(b, f)
	case frame.TypeText:
		block, text, _ := f.Text()
		return d.text(b, block, 0, text)
	case frame.TypeDelta:
		block, kind, data, _ := f.Delta()
		if kind == frame.DeltaCitation {
			b, err = d.ensureBlock(b, block)
			if err != nil {
				return b, err
			}
			b = appendEventHead(b, "content_block_delta")
			b = append(b, `{"type":"content_block_delta","index":`...)
			b = strconv.AppendInt(b, int64(block), 10)
			b = append(b, `,"delta":{"type":"citations_delta","citation":`...)
			b = append(b, data...)
			return append(b, "}}\n\n"...), nil
		}
		return d.text(b, block, kind, data)
	case frame.TypeToken, frame.TypeToken32:
		if d.opts.Detokenize == nil {
			return b, d.fail(ErrMalformed, "token frames need DecoderOptions.Detokenize")
		}
		d.ids, _ = f.Tokens(d.ids[:0])
		d.tokenBuffer = d.opts.Detokenize(d.tokenBuffer[:0], d.ids)
		return d.text(b, 0, 0, d.tokenBuffer)
	case frame.TypeBlock:
		block, op, _ := f.Block()
		if op == frame.BlockStop {
			return d.stopBlock(b, block)
		}
		b = d.ensureMessage(b)
		return d.startBlock(b, block, op)
	case frame.TypeUsage:
		d.usage, _ = f.Usage()
		d.sawUsage = true
	case frame.TypeCacheUsage:
		d.cache, _ = f.CacheUsage()
	case frame.TypeError:
		code, msg, _ := f.ErrorMessage()
		d.ended = true
		b = appendEventHead(b, "error")
		b = append(b, `{"type":"error","error":{"type":`...)
		b = appendString(b, ErrorTypeName(code))
		b = append(b, `,"message":`...)
		b = appendString(b, string(msg))
		return append(b, "}}\n\n"...), nil
	case frame.TypeDone:
		reason, seq, _ := f.Done()
		return d.done(b, reason, seq)
	}
	return b, nil // PAD, and unknown ignorable frames
}

// ensureMessage writes a message_start if the stream has not carried one.
func (d *Decoder) ensureMessage(b []byte) []byte {
	if d.started {
		return b
	}
	d.started = true
	b = appendEventHead(b, "message_start")
	b = append(b, `{"type":"message_start","message":{"id":`...)
	b = appendString(b, d.opts.MessageID)
	b = append(b, `,"type":"message","role":"assistant","content":[],"model":`...)
	b = appendString(b, d.opts.Model)
	b = append(b, `,"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`...)
	return append(b, "\n\n"...)
}

// ensureBlock starts a text block implicitly, as a stream of TEXT frames
// with no BLOCK frames implies.
func (d *Decoder) ensureBlock(b []byte, block uint16) ([]byte, error) {
	b = d.ensureMessage(b)
	if int(block) < len(d.open) && d.open[block] {
		return b, nil
	}
	if d.bridged {
		return b, d.fail(ErrMalformed, "delta for block "+strconv.Itoa(int(block))+", which has not started")
	}
	return d.startBlock(b, block, frame.BlockStartText)
}

func (d *Decoder) startBlock(b []byte, block uint16, op frame.BlockOp) ([]byte, error) {
	for len(d.open) <= int(block) {
		d.open = append(d.open, false)
	}
	d.open[block] = true
	b = appendEventHead(b, "content_block_start")
	b = append(b, `{"type":"content_block_start","index":`...)
	b = strconv.AppendInt(b, int64(block), 10)
	if op == frame.BlockStartThinking {
		b = append(b, `,"content_block":{"type":"thinking","thinking":"","signature":""}}`...)
	} else {
		b = append(b, `,"content_block":{"type":"text","text":""}}`...)
	}
	return append(b, "\n\n"...), nil
}

var deltaFields = [...]string{0: `"type":"text_delta","text":`, frame.DeltaInputJSON: `"type":"input_json_delta","partial_json":`,
	frame.DeltaThinking: `"type":"thinking_delta","thinking":`, frame.DeltaSignature: `"type":"signature_delta","signature":`}

// text writes a delta of text (kind 0), tool input, thinking or signature,
// holding back an incomplete UTF-8 character for the next frame.
func (d *Decoder) text(b []byte, block uint16, kind frame.DeltaKind, data []byte) ([]byte, error) {
	b, err := d.ensureBlock(b, block)
	if err != nil {
		return b, err
	}
	key := uint32(block)<<8 | uint32(kind)
	p := d.pending[key]
	if p == nil {
		p = &anthutf8.Decoder{}
		d.pending[key] = p
	}
	start := len(b)
	b = appendEventHead(b, "content_block_delta")
	b = append(b, `{"type":"content_block_delta","index":`...)
	b = strconv.AppendInt(b, int64(block), 10)
	b = append(b, `,"delta":{`...)
	b = append(b, deltaFields[kind]...)
	textAt := len(b)
	b = append(b, '"')
	b = appendEscaped(b, p.Text(nil, data))
	if len(b) == textAt+1 && len(data) > 0 {
		return b[:start], nil // all held back: no delta yet
	}
	return append(b, "\"}}\n\n"...), nil
}

// flushBlock writes what the UTF-8 reassembly of block still holds.
func (d *Decoder) flushBlock(b []byte, block uint16) []byte {
	for kind := frame.DeltaKind(0); kind <= frame.DeltaSignature; kind++ {
		p := d.pending[uint32(block)<<8|uint32(kind)]
		if p == nil || p.Pending() == 0 {
			continue
		}
		b = appendEventHead(b, "content_block_delta")
		b = append(b, `{"type":"content_block_delta","index":`...)
		b = strconv.AppendInt(b, int64(block), 10)
		b = append(b, `,"delta":{`...)
		b = append(b, deltaFields[kind]...)
		b = append(b, '"')
		b = appendEscaped(b, p.Flush(nil))
		b = append(b, "\"}}\n\n"...)
	}
	return b
}

func (d *Decoder) stopBlock(b []byte, block uint16) ([]byte, error) {
	if int(block) >= len(d.open) || !d.open[block] {
		return b, d.fail(ErrMalformed, "stop of block "+strconv.Itoa(int(block))+", which has not started")
	}
	b = d.flushBlock(b, block)
	d.open[block] = false
	b = appendEventHead(b, "content_block_stop")
	b = append(b, `{"type":"content_block_stop","index":`...)
	b = strconv.AppendInt(b, int64(block), 10)
	return append(b, "}\n\n"...), nil
}

func (d *Decoder) done(b []byte, reason frame.StopReason, seq []byte) ([]byte, error) {
	b = d.ensureMessage(b)
	for i, open := range d.open {
		if open && !d.bridged {
			var err error
			if b, err = d.stopBlock(b, uint16(i)); err != nil {
				return b, err
			}
		}
	}
	if !d.sawDelta {
		b = appendEventHead(b, "message_delta")
		b = append(b, `{"type":"message_delta","delta":{"stop_reason":`...)
		if reason == frame.StopUnspecified {
			b = append(b, "null"...)
		} else {
			b = appendString(b, StopReasonName(reason))
		}
		b = append(b, `,"stop_sequence":`...)
		if reason == frame.StopSequence {
			b = appendString(b, string(seq))
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `},"usage":{`...)
		if d.sawUsage {
			b = append(b, `"input_tokens":`...)
			b = strconv.AppendUint(b, uint64(d.usage.InputTokens), 10)
			b = append(b, `,"cache_creation_input_tokens":`...)
			b = strconv.AppendUint(b, uint64(d.cache.CacheCreationInputTokens), 10)
			b = append(b, `,"cache_read_input_tokens":`...)
			b = strconv.AppendUint(b, uint64(d.cache.CacheReadInputTokens), 10)
			b = append(b, ',')
		}
		b = append(b, `"output_tokens":`...)
		b = strconv.AppendUint(b, uint64(d.usage.OutputTokens), 10)
		b = append(b, "}}\n\n"...)
	}
	d.ended = true
	b = appendEventHead(b, "message_stop")
	return append(b, `{"type":"message_stop"}`+"\n\n"...), nil
}

// eventFrame writes an EVENT, joining it across frames first.
func (d *Decoder) eventFrame(b []byte, f frame.Frame) ([]byte, error) {
	ev, _ := f.Event()
	if len(d.event) > 0 && (string(ev.Name) != string(d.eventName) || ev.Encoding != d.eventEnc) {
		return b, d.fail(ErrMalformed, "EVENT continuation with another name or encoding")
	}
	if len(d.event)+len(ev.Data) > d.opts.MaxEvent {
		return b, d.fail(ErrTooLarge, "event over "+strconv.Itoa(d.opts.MaxEvent)+" bytes")
	}
	d.eventName = append(d.eventName[:0], ev.Name...)
	d.eventEnc = ev.Encoding
	d.event = append(d.event, ev.Data...)
	if ev.More {
		return b, nil
	}
	data := d.event
	d.event = d.event[:0]
	if ev.Encoding == frame.EventDeflate {
		var err error
		if data, err = d.inflate(data); err != nil {
			return b, err
		}
	}
	name := string(d.eventName)
	if strings.ContainsAny(name, "\r\n") {
		return b, d.fail(ErrMalformed, "EVENT name with a line break")
	}
	switch name {
	case "message_start":
		d.started, d.bridged = true, true
	case "message_delta":
		d.sawDelta = true
	case "message_stop", "error":
		d.ended = true
	case "content_block_start":
		// A block that starts with content of its own (a tool call).
		if i, ok := eventIndex(data); ok {
			for len(d.open) <= i {
				d.open = append(d.open, false)
			}
			d.open[i] = true
		}
	case "content_block_stop":
		if i, ok := eventIndex(data); ok && i < len(d.open) {
			d.open[i] = false
		}
	}
	if !json.Valid(data) {
		return b, d.fail(ErrMalformed, "EVENT data is not JSON")
	}
	b = appendEventHead(b, name)
	b = append(b, data...)
	return append(b, "\n\n"...), nil
}

// eventIndex returns an event's "index" field.
func eventIndex(data []byte) (int, bool) {
	var ev struct {
		Index *int `json:"index"`
	}
	if json.Unmarshal(data, &ev) != nil || !validIndex(ev.Index) {
		return 0, false
	}
	return *ev.Index, true
}

func (d *Decoder) inflate(z []byte) ([]byte, error) {
	if d.zr == nil {
		d.zr = flate.NewReaderDict(bytes.NewReader(z), []byte(EventDictionary))
	} else {
		d.zr.(flate.Resetter).Reset(bytes.NewReader(z), []byte(EventDictionary))
	}
	d.inflated.Reset()
	n, err := d.inflated.ReadFrom(io.LimitReader(d.zr, int64(d.opts.MaxEvent)+1))
	if err != nil {
		return nil, d.fail(ErrMalformed, "EVENT data does not inflate: "+err.Error())
	}
	if n > int64(d.opts.MaxEvent) {
		return nil, d.fail(ErrTooLarge, "inflated event over "+strconv.Itoa(d.opts.MaxEvent)+" bytes")
	}
	return d.inflated.Bytes(), nil
}

// appendEventHead appends "event: NAME\ndata: ".
func appendEventHead(b []byte, name string) []byte {
	b = append(b, "event: "...)
	b = append(b, name...)
	return append(b, "\ndata: "...)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, []byte(s))
	return append(b, '"')
}

// appendEscaped appends valid UTF-8 text escaped for a JSON string. No
// character needs escaping but quote, backslash and controls; the rest
// passes through, so the SSE line stays one line.
func appendEscaped(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	return append(b, s[start:]...)
}
