package messages

import (
	"strconv"

	"github.com/layer0/anth/internal/jsonlex"

	"github.com/layer0/anth/frame"
)

// DefaultMaxOpenBlocks bounds the content blocks an Encoder holds open at
// once unless configured. A message's blocks open and stop one after
// another (a tool call, a citation's text), so a real stream holds a few;
// the bound is what a peer can make an Encoder keep.
const DefaultMaxOpenBlocks = 64

// toSSE maps the frames of one ANTH response to the SSE events of the
// Messages API (SPEC.md §7a): the push core under Encoder, and so under
// NewResponseWriter. It writes the SSE that its twin, toFrames, maps back to
// the same frames.
type toSSE struct {
	opts   EncoderOptions
	events EventReader

	started bool // a message_start was written
	bridged bool // the stream carries its own message events
	ended   bool // DONE or ERROR was taken

	blocks openBlocks // the blocks open
	text   frame.Text // their text, whole characters at a time

	usage        usageState
	recent       usageState // the USAGE and CACHE_USAGE right before this frame
	afterUsage   bool       // the frames before this one are USAGE or CACHE_USAGE (PAD aside)
	startInput   uint64     // message_start's usage.input_tokens
	deltaWritten bool       // a message_delta came as an EVENT
	stopWritten  bool       // a message_stop came as an EVENT
	errWritten   bool       // an error event came as an EVENT

	ids []uint32
	dec frame.TokenDecoder // the IDs of the stream's PACKED_TOKEN frames
	buf []byte
	js  []byte // the JSON of the event being written
}

// recentUsage returns the usage of the frames right before this one, new
// when the frame before was neither USAGE nor CACHE_USAGE.
func (s *toSSE) recentUsage() *usageState {
	if !s.afterUsage {
		s.recent = usageState{}
	}
	s.afterUsage = true
	return &s.recent
}

// emit appends the event name with JSON js, built in s.js, keeping s.js's
// array for the next event.
func (s *toSSE) emit(b, name, js []byte) []byte {
	s.js = js
	return appendEvent(b, name, js)
}

func (s *toSSE) maxBlocks() int {
	if s.opts.MaxOpenBlocks > 0 {
		return s.opts.MaxOpenBlocks
	}
	return DefaultMaxOpenBlocks
}

// frame appends the SSE events of one frame, as a response Reader returns
// it (DONE and ERROR values joined).
func (s *toSSE) frame(b []byte, f frame.Frame) ([]byte, error) {
	switch f.Type {
	case frame.TypeUsage, frame.TypeCacheUsage, frame.TypePad, frame.TypeEvent:
	default:
		s.afterUsage = false
	}
	switch f.Type {
	case frame.TypeEvent:
		return s.event(b, f)
	case frame.TypeText:
		block, text, _ := f.Text()
		return s.delta(b, block, 0, text)
	case frame.TypeDelta:
		block, kind, data, _ := f.Delta()
		if kind == frame.DeltaCitation {
			return s.citation(b, block, data)
		}
		return s.delta(b, block, kind, data)
	case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24, frame.TypePackedToken:
		if s.opts.Detokenize == nil {
			return b, &Error{Err: ErrMalformed, Detail: "token frames need EncoderOptions.Detokenize"}
		}
		var err error
		if s.ids, err = s.dec.Tokens(s.ids[:0], f); err != nil {
			return b, err
		}
		s.buf = s.opts.Detokenize(s.buf[:0], s.ids)
		return s.delta(b, 0, 0, s.buf)
	case frame.TypeBlock:
		block, op, _ := f.Block()
		if op == frame.BlockStop {
			return s.stopBlock(b, block)
		}
		return s.startBlock(s.message(b), block, op)
	case frame.TypeUsage:
		s.usage.usage, _ = f.Usage()
		s.usage.hasUsage = true
		s.recentUsage().usage, s.recent.hasUsage = s.usage.usage, true
	case frame.TypeCacheUsage:
		s.usage.cache, _ = f.CacheUsage()
		s.usage.hasCache = true
		s.recentUsage().cache, s.recent.hasCache = s.usage.cache, true
	case frame.TypeError:
		s.ended = true
		if s.errWritten {
			return b, nil // the error event came whole, before its ERROR
		}
		code, msg, _ := f.ErrorMessage()
		return s.emit(b, []byte("error"), appendErrorJSON(s.js[:0], code, msg)), nil
	case frame.TypeDone:
		reason, seq, _ := f.Done()
		return s.done(b, reason, seq)
	}
	return b, nil // PAD, and unknown ignorable frames
}

// event writes an EVENT's event, once its frames are joined.
func (s *toSSE) event(b []byte, f frame.Frame) ([]byte, error) {
	ev, ok, err := s.events.Add(f)
	if !ok || err != nil {
		return b, err
	}
	afterUsage := s.afterUsage
	s.afterUsage = false
	switch string(ev.Name) {
	case "message_start":
		s.started, s.bridged = true, true
		s.startInput, _ = jsonlex.Uint(ev.Data, "message", "usage", "input_tokens")
	case "message_delta":
		s.deltaWritten = true
		if afterUsage && s.recent.hasUsage {
			// The event's rest: its usage counts are the frames' (rest.go).
			js, ok := appendMerged(s.js[:0], ev.Data, s.recent, s.startInput)
			if !ok {
				return b, &Error{Err: ErrMalformed, Detail: "message_delta after its usage frames has no usage object"}
			}
			return s.emit(b, ev.Name, js), nil
		}
	case "message_stop":
		s.stopWritten = true
	case "error":
		s.errWritten = true
	case "content_block_start":
		// A block that starts with content of its own (a tool call).
		if i, ok := jsonlex.Uint(ev.Data, "index"); ok && i <= 0xFFFF {
			if err := s.open(uint16(i)); err != nil {
				return b, err
			}
		}
	case "content_block_stop":
		if i, ok := jsonlex.Uint(ev.Data, "index"); ok && i <= 0xFFFF {
			b = s.flush(b, uint16(i))
		}
	}
	return appendEvent(b, ev.Name, ev.Data), nil
}

// message writes a message_start if the stream has not carried one.
func (s *toSSE) message(b []byte) []byte {
	if s.started {
		return b
	}
	s.started = true
	id, model := s.opts.MessageID, s.opts.Model
	if id == "" {
		id = "msg_anth"
	}
	if model == "" {
		model = "unknown"
	}
	return s.emit(b, []byte("message_start"), appendMessageStartJSON(s.js[:0], id, model))
}

// open records block as started.
func (s *toSSE) open(block uint16) error {
	if s.blocks.has(block) {
		return nil
	}
	if s.blocks.len() >= s.maxBlocks() {
		return &Error{Err: ErrTooLarge, Detail: "more than " + strconv.Itoa(s.maxBlocks()) + " content blocks open at once"}
	}
	s.blocks.add(block)
	return nil
}

func (s *toSSE) startBlock(b []byte, block uint16, op frame.BlockOp) ([]byte, error) {
	if s.blocks.has(block) {
		return b, &Error{Err: ErrMalformed, Detail: "start of block " + strconv.Itoa(int(block)) + ", which is open"}
	}
	if err := s.open(block); err != nil {
		return b, err
	}
	return s.emit(b, []byte("content_block_start"), appendBlockStartJSON(s.js[:0], block, op)), nil
}

func (s *toSSE) stopBlock(b []byte, block uint16) ([]byte, error) {
	if !s.blocks.has(block) {
		return b, &Error{Err: ErrMalformed, Detail: "stop of block " + strconv.Itoa(int(block)) + ", which has not started"}
	}
	b = s.flush(b, block)
	return s.emit(b, []byte("content_block_stop"), appendBlockStopJSON(s.js[:0], block)), nil
}

// ensureBlock makes sure block is open: a stream of TEXT frames with no
// BLOCK frames implies its text blocks (SPEC.md §3.9), but in a bridged
// stream every block starts explicitly.
func (s *toSSE) ensureBlock(b []byte, block uint16) ([]byte, error) {
	b = s.message(b)
	if s.blocks.has(block) {
		return b, nil
	}
	if s.bridged {
		return b, &Error{Err: ErrMalformed, Detail: "delta for block " + strconv.Itoa(int(block)) + ", which has not started"}
	}
	return s.startBlock(b, block, frame.BlockStartText)
}

// delta writes text (kind 0), tool input, thinking or signature bytes,
// holding back an incomplete UTF-8 character for the next frame.
func (s *toSSE) delta(b []byte, block uint16, kind frame.DeltaKind, data []byte) ([]byte, error) {
	b, err := s.ensureBlock(b, block)
	if err != nil {
		return b, err
	}
	s.buf = s.text.Append(s.buf[:0], block, kind, data)
	if len(s.buf) == 0 && len(data) > 0 {
		return b, nil // all held back: no delta yet
	}
	return s.emit(b, []byte("content_block_delta"), appendDeltaJSON(s.js[:0], block, kind, s.buf)), nil
}

// citation writes a citation, which must be one JSON object.
func (s *toSSE) citation(b []byte, block uint16, data []byte) ([]byte, error) {
	b, err := s.ensureBlock(b, block)
	if err != nil {
		return b, err
	}
	var ok bool
	if s.buf, ok = jsonlex.AppendCompact(s.buf[:0], data); !ok || s.buf[0] != '{' {
		return b, &Error{Err: ErrMalformed, Detail: "citation is not a JSON object"}
	}
	return s.emit(b, []byte("content_block_delta"), appendDeltaJSON(s.js[:0], block, frame.DeltaCitation, s.buf)), nil
}

// flush ends block: what its UTF-8 reassembly still holds, a character cut
// off by the block's end, is written as U+FFFD (SPEC.md §7), and the block
// is forgotten.
func (s *toSSE) flush(b []byte, block uint16) []byte {
	for kind := range frame.DeltaSignature + 1 {
		if s.text.Pending(block, kind) {
			s.buf = s.text.Flush(s.buf[:0], block, kind)
			b = s.emit(b, []byte("content_block_delta"), appendDeltaJSON(s.js[:0], block, kind, s.buf))
		}
	}
	s.text.Forget(block)
	s.blocks.remove(block)
	return b
}

// done writes the end of the message, unless its message_stop came whole:
// the stops of its open blocks (in a stream with no message events of its
// own), a message_delta from its frames (unless one came whole) and
// message_stop.
func (s *toSSE) done(b []byte, reason frame.StopReason, seq []byte) ([]byte, error) {
	s.ended = true
	if s.stopWritten {
		return b, nil
	}
	b = s.message(b)
	if !s.bridged {
		for s.blocks.len() > 0 {
			var err error
			if b, err = s.stopBlock(b, s.blocks.lowest()); err != nil {
				return b, err
			}
		}
	}
	if !s.deltaWritten {
		b = s.emit(b, []byte("message_delta"), appendMessageDeltaJSON(s.js[:0], reason, seq, s.usage, s.startInput))
	}
	return appendEvent(b, []byte("message_stop"), []byte(messageStopJSON)), nil
}
