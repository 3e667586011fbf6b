package messages

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/internal/jsonlex"

	"github.com/layer0/anth/frame"
)

// toFrames maps the events of one SSE stream to frames (SPEC.md §7a): the
// push core under Decoder and Proxy. Each event becomes typed frames when
// the SSE this package writes for those frames is the same JSON value, and
// travels whole in an EVENT frame otherwise, so nothing is lost either way.
type toFrames struct {
	opts       DecoderOptions
	ended      bool // a DONE or ERROR was written: the rest is EVENTs
	stop       frame.StopReason
	stopSeq    []byte
	startInput uint64 // message_start's usage.input_tokens
	// deferred is a message_delta carried by typed frames alone; if the
	// next event is not the message_stop whose DONE completes it, it goes
	// whole after all, in its place.
	deferred      []byte
	deferredUsage usageState
	deferring     bool
	deltas        int // message_delta events seen
	compact       []byte
	scratch       []byte
	rest          []byte
	synth         []byte
	// The last event carried whole and its frames: a stream of identical
	// events (pings) costs a comparison each.
	memoName, memoJSON, memoFrames []byte
}

// event appends the frames of one SSE event, whose data is data.
func (m *toFrames) event(b, name, data []byte) ([]byte, error) {
	if string(name) == "content_block_delta" && !m.ended && !m.deferring {
		// Most of a stream, read as it comes: a delta the fast path takes
		// is one JSON value, so it needs no compacting first (the API
		// writes it compact but for the spaces before its last brace),
		// which cost a third of what the rest of its way does.
		if out, ok := fastDelta(b, data, &m.scratch); ok {
			return out, nil
		}
	}
	var watch []string
	if string(name) == "message_start" {
		watch = startInputPath
	}
	js, ok, found := jsonlex.AppendCompactWatch(m.compact[:0], data, watch)
	m.compact = js
	if !ok {
		return b, &Error{Err: ErrMalformed, Detail: "event data is not JSON"}
	}
	if m.deferring {
		m.deferring = false
		if string(name) != "message_stop" || string(js) != messageStopJSON {
			// Right after its USAGE frames still: it goes as its rest.
			b = m.restOrWhole(b, m.deferred, m.deferredUsage)
		}
	}
	if m.ended {
		return m.whole(b, name, js), nil
	}
	switch string(name) {
	case "content_block_delta":
		if out, ok := fastDelta(b, js, &m.scratch); ok {
			return out, nil
		}
		if out, ok := m.delta(b, js); ok {
			return out, nil
		}
	case "content_block_start", "content_block_stop":
		if out, ok := m.block(b, name, js); ok {
			return out, nil
		}
	case "message_start":
		m.startInput, _ = strconv.ParseUint(string(found), 10, 64)
	case "message_delta":
		return m.messageDelta(b, js), nil
	case "message_stop":
		// DONE stands for message_stop, and the Encoder writes a
		// message_delta before it unless one came whole; so a stream
		// without a message_delta keeps its message_stop whole, to be
		// written back as it came, alone.
		m.ended = true
		if string(js) != messageStopJSON || m.deltas == 0 {
			b = m.whole(b, name, js)
		}
		return frame.AppendDone(b, m.stop, string(m.stopSeq)), nil
	case "error":
		m.ended = true
		return m.errorEvent(b, js), nil
	}
	return m.whole(b, name, js), nil
}

// end reports whether the stream may end here.
func (m *toFrames) end() error {
	if !m.ended {
		return &Error{Err: ErrTruncated, Detail: "stream ends before message_stop"}
	}
	return nil
}

// whole appends an event as EVENT frames, its JSON deflated with
// EventDictionary unless that would not make it smaller.
func (m *toFrames) whole(b, name, js []byte) []byte {
	if len(name) > frame.MaxEventName {
		// The name does not fit its u8 length: keep the event, not its
		// name's tail. No Messages API event has such a name.
		name = name[:frame.MaxEventName]
	}
	if string(name) == string(m.memoName) && string(js) == string(m.memoJSON) {
		return append(b, m.memoFrames...)
	}
	start := len(b)
	if m.opts.RawEvents {
		b = frame.AppendEvent(b, frame.EventJSON, name, js)
	} else {
		m.scratch = deflate.AppendBlock(m.scratch[:0], js, eventDict())
		if len(m.scratch) < len(js) {
			b = frame.AppendEvent(b, frame.EventDeflate, name, m.scratch)
		} else {
			b = frame.AppendEvent(b, frame.EventJSON, name, js)
		}
	}
	if len(js) <= 512 {
		m.memoName = append(m.memoName[:0], name...)
		m.memoJSON = append(m.memoJSON[:0], js...)
		m.memoFrames = append(m.memoFrames[:0], b[start:]...)
	}
	return b
}

// delta maps a content_block_delta the fast path did not take: through
// encoding/json, and typed only if written back it is the same value.
func (m *toFrames) delta(b, js []byte) ([]byte, bool) {
	var ev struct {
		Index *int                       `json:"index"`
		Delta map[string]json.RawMessage `json:"delta"`
	}
	if json.Unmarshal(js, &ev) != nil || !validIndex(ev.Index) || len(ev.Delta) != 2 {
		return b, false
	}
	var typ string
	if json.Unmarshal(ev.Delta["type"], &typ) != nil {
		return b, false
	}
	kind, ok := deltaKind(typ)
	if !ok {
		return b, false
	}
	raw, ok := ev.Delta[deltaTypes[kind].field]
	if !ok {
		return b, false
	}
	var text []byte
	if kind == frame.DeltaCitation {
		text = raw // compact already: js was compacted
		if len(text) > frame.MaxPayload-3 || len(text) == 0 || text[0] != '{' {
			return b, false
		}
	} else {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return b, false
		}
		text = []byte(s)
	}
	block := uint16(*ev.Index)
	if m.synth = appendDeltaJSON(m.synth[:0], block, kind, text); !jsonlex.Same(m.synth, js) {
		return b, false // invalid UTF-8 replaced, say
	}
	if kind == 0 {
		return frame.AppendText(b, block, text), true
	}
	return frame.AppendDelta(b, block, kind, text), true
}

// block maps content_block_start of an empty text or thinking block, and
// content_block_stop, to BLOCK frames.
func (m *toFrames) block(b, name, js []byte) ([]byte, bool) {
	i, ok := jsonlex.Uint(js, "index")
	if !ok || i > math.MaxUint16 {
		return b, false
	}
	block := uint16(i)
	if string(name) == "content_block_stop" {
		if m.synth = appendBlockStopJSON(m.synth[:0], block); jsonlex.Same(m.synth, js) {
			return frame.AppendBlock(b, block, frame.BlockStop), true
		}
		return b, false
	}
	// Only an empty text or thinking block has a BLOCK frame: look at the
	// block's type before comparing whole values.
	typ, _ := jsonlex.Field(js, "content_block", "type")
	op := frame.BlockStartText
	switch string(typ) {
	case `"text"`:
	case `"thinking"`:
		op = frame.BlockStartThinking
	default:
		return b, false
	}
	if m.synth = appendBlockStartJSON(m.synth[:0], block, op); jsonlex.Same(m.synth, js) {
		return frame.AppendBlock(b, block, op), true
	}
	return b, false
}

// messageDelta maps a message_delta: its usage becomes USAGE and
// CACHE_USAGE frames, its stop reason and sequence wait for the DONE of
// message_stop. If that is all it holds, and it is the message's first,
// it travels no further (the Encoder writes it back from those frames);
// else it goes whole too, after its typed frames.
func (m *toFrames) messageDelta(b, js []byte) []byte {
	m.deltas++
	u, reason, seq := parseMessageDelta(js, m.startInput, m.stopSeq)
	m.stop, m.stopSeq = reason, seq
	if m.synth = appendMessageDeltaJSON(m.synth[:0], reason, seq, u, m.startInput); m.deltas == 1 && jsonlex.Same(m.synth, js) {
		m.deferred, m.deferredUsage, m.deferring = append(m.deferred[:0], js...), u, true
		return appendUsageFrames(b, u)
	}
	return m.restOrWhole(b, js, u)
}

// restOrWhole appends a message_delta that goes as an EVENT with the USAGE
// and CACHE_USAGE frames of u: the frames, then the event's rest, which
// leaves out what they carry (rest.go); or, when the rest would not give
// the event back, the event whole and then the frames, so a client of
// frames still has them.
func (m *toFrames) restOrWhole(b, js []byte, u usageState) []byte {
	var rest []byte
	var ok bool
	rest, m.scratch, ok = appendRest(m.rest[:0], js, u, m.startInput, m.scratch)
	m.rest = rest
	if ok {
		return m.whole(appendUsageFrames(b, u), []byte("message_delta"), rest)
	}
	return appendUsageFrames(m.whole(b, []byte("message_delta"), js), u)
}

// appendUsageFrames appends the USAGE and CACHE_USAGE frames of u.
func appendUsageFrames(b []byte, u usageState) []byte {
	if u.hasUsage {
		b = frame.AppendUsage(b, u.usage)
	}
	if u.hasCache {
		b = frame.AppendCacheUsage(b, u.cache)
	}
	return b
}

// parseMessageDelta reads what frames can carry of a message_delta. The
// "no USAGE" form ({"output_tokens":0} with no input tokens anywhere) gives
// no USAGE frame, so a stream without one comes back without one. The stop
// sequence is appended to buf[:0], which holds the stop reason's name
// first: a buffer the caller keeps, as a local array escaped to the heap
// at every message_delta.
func parseMessageDelta(js []byte, startInput uint64, buf []byte) (u usageState, reason frame.StopReason, seq []byte) {
	seq = buf[:0]
	if delta, ok := jsonlex.Field(js, "delta"); ok {
		if r, ok := jsonlex.Field(delta, "stop_reason"); ok {
			if name, ok := jsonlex.AppendUnquoted(seq, r); ok {
				reason, _ = ParseStopReason(string(name))
				seq = name[:0]
			}
		}
		if s, ok := jsonlex.Field(delta, "stop_sequence"); ok && reason == frame.StopSequence {
			seq, _ = jsonlex.AppendUnquoted(seq, s)
		}
	}
	usage, ok := jsonlex.Field(js, "usage")
	if !ok || len(usage) == 0 || usage[0] != '{' {
		return u, reason, seq
	}
	in, hasIn := jsonlex.Uint(usage, "input_tokens")
	if !hasIn {
		in = startInput
	}
	out, _ := jsonlex.Uint(usage, "output_tokens")
	read, hasRead := jsonlex.Uint(usage, "cache_read_input_tokens")
	made, hasMade := jsonlex.Uint(usage, "cache_creation_input_tokens")
	u.hasCache = hasRead || hasMade
	u.hasUsage = hasIn || u.hasCache || out != 0 || startInput != 0
	u.usage = frame.Usage{InputTokens: clamp32(in), OutputTokens: clamp32(out), CacheHitRatio: frame.CacheHitRatio(read, in+read+made)}
	u.cache = frame.CacheUsage{CacheReadInputTokens: clamp32(read), CacheCreationInputTokens: clamp32(made)}
	return u, reason, seq
}

func clamp32(v uint64) uint32 { return uint32(min(v, math.MaxUint32)) }

// errorEvent maps an error event: an ERROR frame, and the event whole before it
// when the ERROR does not say all it says.
func (m *toFrames) errorEvent(b, js []byte) []byte {
	code, msg := frame.CodeUnspecified, []byte(nil)
	if t, ok := jsonlex.Field(js, "error", "type"); ok {
		if name, ok := m.unquote(&m.scratch, t); ok {
			code, _ = ParseErrorType(string(name))
		}
	}
	if t, ok := jsonlex.Field(js, "error", "message"); ok {
		msg, _ = m.unquote(&m.rest, t)
	}
	if m.synth = appendErrorJSON(m.synth[:0], code, msg); !jsonlex.Same(m.synth, js) {
		b = m.whole(b, []byte("error"), js)
	}
	return frame.AppendError(b, code, string(msg))
}

// unquote gives the value of the JSON string raw in *buf, exactly as
// encoding/json decodes it: through jsonlex when it can say so (and then
// without allocating), else through encoding/json (invalid UTF-8, lone
// surrogates: its replacements are the reference).
func (m *toFrames) unquote(buf *[]byte, raw []byte) ([]byte, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		if s, ok := jsonlex.AppendUnescaped((*buf)[:0], raw[1:len(raw)-1]); ok {
			*buf = s
			return s, true
		}
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	*buf = append((*buf)[:0], s...)
	return *buf, true
}

// startInputPath is where a message_start holds the input tokens that a
// message_delta's usage may leave out.
var startInputPath = []string{"message", "usage", "input_tokens"}

func validIndex(i *int) bool { return i != nil && *i >= 0 && *i <= math.MaxUint16 }
