package sse

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"io"

	"github.com/layer0/anth/frame"
)

// EncoderOptions configure an Encoder. The zero value is ready to use.
type EncoderOptions struct {
	// MaxEvent bounds a line and an event's data; default DefaultMaxEvent.
	MaxEvent int
	// Padding, if positive, pads the frames of each event to a multiple of
	// Padding bytes with PAD frames, as the API pads its JSON.
	Padding int
	// RawEvents keeps EVENT data as plain JSON instead of deflating it.
	RawEvents bool
}

// Encoder reads an Anthropic SSE stream and produces the ANTH stream that
// carries it. It reads its input an event at a time and never holds more
// than one event; Read gives the ANTH bytes, Next the frames of one event.
type Encoder struct {
	opts    EncoderOptions
	sc      *scanner
	out     []byte // pending output: out[pos:], aliasing buf
	buf     []byte // Next's output
	pos     int
	err     error
	started bool
	ended   bool // message_stop or an error event seen
	stop    frame.StopReason
	stopSeq string
	zw      *flate.Writer
	zbuf    bytes.Buffer
	compact bytes.Buffer
	scratch []byte
}

// NewEncoder returns an Encoder reading SSE from r.
func NewEncoder(r io.Reader, opts EncoderOptions) *Encoder {
	return &Encoder{opts: opts, sc: newScanner(r, opts.MaxEvent)}
}

// Reset makes e read a new SSE stream from r, keeping its buffers and its
// deflate state (the largest allocation an Encoder makes): a gateway keeps
// one Encoder per worker rather than one per response.
func (e *Encoder) Reset(r io.Reader) {
	sc := e.sc
	sc.r.Reset(r)
	sc.off, sc.at = 0, 0
	*e = Encoder{opts: e.opts, sc: sc, buf: e.buf[:0], zw: e.zw, scratch: e.scratch[:0]}
}

// Read reads ANTH bytes. At the end of a complete stream it returns io.EOF;
// for malformed or cut SSE an *Error.
func (e *Encoder) Read(p []byte) (int, error) {
	for e.pos == len(e.out) {
		if e.err != nil {
			return 0, e.err
		}
		e.out, e.err = e.Next()
		e.pos = 0
	}
	n := copy(p, e.out[e.pos:])
	e.pos += n
	return n, nil
}

// Next returns the ANTH bytes of the next SSE event (the stream's magic
// comes with the first), valid until the next call. It returns io.EOF after
// the last event of a complete stream.
func (e *Encoder) Next() ([]byte, error) {
	b := e.buf[:0]
	defer func() { e.buf = b[:0] }()
	if !e.started {
		e.started = true
		b = frame.AppendMagic(b)
	}
	for {
		name, data, err := e.sc.next()
		if err == io.EOF {
			if !e.ended {
				return nil, &Error{Offset: e.sc.off, Err: ErrTruncated, Detail: "stream ends before message_stop"}
			}
			if len(b) > 0 {
				return b, nil
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		start := len(b)
		if b, err = e.event(b, name, data); err != nil {
			return nil, err
		}
		if len(b) == start {
			continue // an event with nothing to carry
		}
		if p := e.opts.Padding; p > 0 {
			n := len(b) - start + frame.HeaderSize
			b = frame.Frame{Type: frame.TypePad, Payload: make([]byte, (p-n%p)%p)}.Append(b)
		}
		return b, nil
	}
}

// deltaEvent is a content_block_delta as the API sends it; decoding
// refuses unknown fields, so an event that has any goes whole as an EVENT.
type deltaEvent struct {
	Type  string `json:"type"`
	Index *int   `json:"index"`
	Delta *struct {
		Type        string          `json:"type"`
		Text        *string         `json:"text"`
		PartialJSON *string         `json:"partial_json"`
		Thinking    *string         `json:"thinking"`
		Signature   *string         `json:"signature"`
		Citation    json.RawMessage `json:"citation"`
	} `json:"delta"`
}

type blockEvent struct {
	Type         string `json:"type"`
	Index        *int   `json:"index"`
	ContentBlock *struct {
		Type      string  `json:"type"`
		Text      *string `json:"text"`
		Thinking  *string `json:"thinking"`
		Signature *string `json:"signature"`
	} `json:"content_block"`
}

type errorEvent struct {
	Type  string `json:"type"`
	Error *struct {
		Type    string  `json:"type"`
		Message *string `json:"message"`
	} `json:"error"`
}

type stopDelta struct {
	Delta struct {
		StopReason   *string `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	} `json:"delta"`
}

// strict decodes data into v, refusing unknown fields and trailing data.
func strict(data []byte, v any) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	return d.Decode(v) == nil && !d.More()
}

func validIndex(i *int) bool { return i != nil && *i >= 0 && *i <= 0xFFFF }

// event appends the frames that carry one SSE event.
func (e *Encoder) event(b, name, data []byte) ([]byte, error) {
	e.compact.Reset()
	if err := json.Compact(&e.compact, data); err != nil {
		return nil, &Error{Offset: e.sc.at, Err: ErrMalformed, Detail: "event data is not JSON: " + err.Error()}
	}
	js := e.compact.Bytes()
	if string(name) == "content_block_delta" {
		if out, ok := fastDelta(b, js, &e.scratch); ok {
			return out, nil
		}
	}
	return e.general(b, name, js)
}

// general maps a compact event to frames through encoding/json.
func (e *Encoder) general(b, name, js []byte) ([]byte, error) {
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(js, &head)
	if head.Type != string(name) {
		return e.passthrough(b, name, js)
	}
	switch head.Type {
	case "content_block_delta":
		var ev deltaEvent
		if !strict(js, &ev) || !validIndex(ev.Index) || ev.Delta == nil {
			break
		}
		d, block := ev.Delta, uint16(*ev.Index)
		set := 0
		for _, p := range []*string{d.Text, d.PartialJSON, d.Thinking, d.Signature} {
			if p != nil {
				set++
			}
		}
		if d.Citation != nil {
			set++
		}
		if set != 1 {
			break
		}
		switch {
		case d.Type == "text_delta" && d.Text != nil:
			return frame.AppendText(b, block, []byte(*d.Text)), nil
		case d.Type == "input_json_delta" && d.PartialJSON != nil:
			return frame.AppendDelta(b, block, frame.DeltaInputJSON, []byte(*d.PartialJSON)), nil
		case d.Type == "thinking_delta" && d.Thinking != nil:
			return frame.AppendDelta(b, block, frame.DeltaThinking, []byte(*d.Thinking)), nil
		case d.Type == "signature_delta" && d.Signature != nil:
			return frame.AppendDelta(b, block, frame.DeltaSignature, []byte(*d.Signature)), nil
		case d.Type == "citations_delta" && d.Citation != nil && len(d.Citation) <= frame.MaxPayload-3:
			return frame.AppendDelta(b, block, frame.DeltaCitation, d.Citation), nil
		}
	case "content_block_start":
		var ev blockEvent
		if !strict(js, &ev) || !validIndex(ev.Index) || ev.ContentBlock == nil {
			break
		}
		cb, block := ev.ContentBlock, uint16(*ev.Index)
		switch {
		case cb.Type == "text" && cb.Text != nil && *cb.Text == "" && cb.Thinking == nil && cb.Signature == nil:
			return frame.AppendBlock(b, block, frame.BlockStartText), nil
		case cb.Type == "thinking" && cb.Text == nil && cb.Thinking != nil && *cb.Thinking == "" && cb.Signature != nil && *cb.Signature == "":
			return frame.AppendBlock(b, block, frame.BlockStartThinking), nil
		}
	case "content_block_stop":
		var ev struct {
			Type  string `json:"type"`
			Index *int   `json:"index"`
		}
		if strict(js, &ev) && validIndex(ev.Index) {
			return frame.AppendBlock(b, uint16(*ev.Index), frame.BlockStop), nil
		}
	case "message_delta":
		// Kept whole; its stop reason also goes on the DONE frame.
		var sd stopDelta
		if json.Unmarshal(js, &sd) == nil {
			e.stop, e.stopSeq = frame.StopUnspecified, ""
			if sd.Delta.StopReason != nil {
				e.stop, _ = ParseStopReason(*sd.Delta.StopReason)
			}
			if sd.Delta.StopSequence != nil && e.stop == frame.StopSequence {
				e.stopSeq = *sd.Delta.StopSequence
			}
		}
	case "message_stop":
		if strict(js, &struct {
			Type string `json:"type"`
		}{}) {
			e.ended = true
			return frame.AppendDone(b, e.stop, e.stopSeq), nil
		}
	case "error":
		e.ended = true
		var ev errorEvent
		if strict(js, &ev) && ev.Error != nil && ev.Error.Message != nil {
			if code, ok := ParseErrorType(ev.Error.Type); ok {
				return frame.AppendError(b, code, *ev.Error.Message), nil
			}
		}
	}
	return e.passthrough(b, name, js)
}

// passthrough appends the event whole, as EVENT frames.
func (e *Encoder) passthrough(b, name, js []byte) ([]byte, error) {
	if len(name) > 255 {
		return nil, &Error{Offset: e.sc.at, Err: ErrTooLarge, Detail: "event name over 255 bytes"}
	}
	if string(name) == "message_stop" || string(name) == "error" {
		e.ended = true
	}
	if e.opts.RawEvents {
		return frame.AppendEvent(b, frame.EventJSON, name, js), nil
	}
	e.zbuf.Reset()
	if e.zw == nil {
		e.zw, _ = flate.NewWriterDict(&e.zbuf, flate.BestCompression, []byte(EventDictionary))
	} else {
		e.zw.Reset(&e.zbuf)
	}
	e.zw.Write(js)
	e.zw.Close()
	if e.zbuf.Len() >= len(js) {
		return frame.AppendEvent(b, frame.EventJSON, name, js), nil
	}
	return frame.AppendEvent(b, frame.EventDeflate, name, e.zbuf.Bytes()), nil
}
