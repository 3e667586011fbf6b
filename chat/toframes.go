package chat

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
)

// blockKey names a block (SPEC.md §7b.1): a choice's field, and for a tool
// call's arguments the call's index.
type blockKey struct {
	choice uint16
	field  uint8
	tool   uint16
}

// toFrames maps the chunks of one SSE stream to frames (SPEC.md §7b): the
// push core under Decoder. A chunk whose template is the one its block
// kept travels as its hole frames alone; every other chunk, or what typed
// frames do not carry of it, in an EVENT.
type toFrames struct {
	opts    DecoderOptions
	ended   bool // a DONE or ERROR was written: the rest is EVENTs
	lastJS  bool // compact holds the last event's chunk, read by the general path
	stop    frame.StopReason
	stopSeq []byte
	keys    []blockKey // by block number
	tpls    [][]byte   // the template kept for each block; empty when none (a template is a JSON object, never empty), its buffer kept for the next stream
	rd      reader
	compact []byte
	tpl     []byte
	scratch []byte
	synth   []byte
	name    []byte
	// The data of the EVENT before, which the next deflated one is coded
	// after (SPEC.md §3.10, encoding 3), and whether there was one.
	prev    []byte
	hasPrev bool
	// The fast path (fast.go): what it knows of each kept template, and
	// the block of the last chunk, which it tries first.
	fast []fastTemplate
	last int
	hits int // chunks the fast path took, for its tests
	// RandomPad's keystream, seeded at the stream's first PAD.
	pad       rand.ChaCha8
	padSeeded bool
	// ids, when its lookup is set (Decoder.SetLookup), adds the IDs of
	// logprobs' bytes to each chunk before it is read (logprobids.go).
	ids logprobIDs
}

// noFast turns the fast path off, for the test that holds it to the
// general path's output.
var noFast = false

// event appends the frames of one SSE event, whose name is name and data
// data.
func (m *toFrames) event(b, name, data []byte) ([]byte, error) {
	m.lastJS = false
	if string(data) == doneData && len(name) == 0 {
		if m.ended {
			// A [DONE] after the end: an EVENT, never a second DONE (§3.11).
			return m.whole(b, "done", []byte("null")), nil
		}
		m.ended = true
		return frame.AppendDone(b, m.stop, string(m.stopSeq)), nil
	}
	if len(name) == 0 && !m.ended && m.ids.lookup != nil {
		if out, ok := m.ids.appendChunk(m.ids.out[:0], data); ok {
			m.ids.out, data = out, out
		}
	}
	if len(name) == 0 && !m.ended && !noFast {
		if out, ok := m.fastChunk(b, data); ok {
			m.hits++
			return out, nil
		}
	}
	js, ok := jsonlex.AppendCompact(m.compact[:0], data)
	m.compact = js
	if !ok {
		return b, &Error{Err: ErrMalformed, Detail: "chunk is not JSON"}
	}
	if len(name) > 0 {
		if len(name) > frame.MaxEventName-len("event:") {
			return b, &Error{Err: ErrTooLarge, Detail: "event name over 249 bytes"}
		}
		m.name = append(append(m.name[:0], "event:"...), name...)
		b = m.wholeName(b, m.name, js)
		if string(name) == "error" && !m.ended {
			// A named error event ends the stream, as openai-node reads
			// it; a server that sends one (Groq) sends no [DONE] after
			// it (SPEC.md §7b.3).
			m.ended = true
			errv, _ := jsonlex.Field(js, "error")
			code, msg := m.errorOf(errv)
			b = frame.AppendError(b, code, string(msg))
		}
		return b, nil
	}
	if m.ended {
		return m.whole(b, "chunk", js), nil
	}
	sh := m.rd.read(js)
	if errv := sh.errv.in(js); errorEnds(errv, sh.errv.n > 0, sh.choices.n > 0) {
		m.ended = true
		return m.errorChunk(b, js, errv), nil
	}
	m.finish(js, sh)
	m.lastJS = true
	switch {
	case sh.field >= 0:
		if out, ok := m.templated(b, js, &sh); ok {
			return out, nil
		}
	case sh.usage.n > 0:
		// The usage chunk (choices: []), or a chunk that is not
		// templatable and carries the usage too: the finish chunk of
		// DeepSeek, OpenRouter, Moonshot (§7b.3).
		if out, ok := m.usageChunk(b, js, sh.usage.in(js)); ok {
			return out, nil
		}
	}
	return m.whole(b, "chunk", js), nil
}

// end appends what the end of the stream's bytes gives, or reports that
// the stream may not end there. After a chunk that may end a stream with
// no [DONE] (endsAtEOF), that is an EVENT eof, which writes nothing back,
// and the DONE (SPEC.md §7b.3).
func (m *toFrames) end(b []byte) ([]byte, error) {
	if m.ended {
		return b, nil
	}
	// A chunk the fast path took may not end the stream: its template's
	// finish_reason is null or absent (prepareFast).
	if !m.lastJS || !endsAtEOF(m.compact) {
		return b, &Error{Err: ErrTruncated, Detail: "stream ends before data: [DONE]"}
	}
	m.ended = true
	b = m.whole(b, "eof", []byte("null"))
	return frame.AppendDone(b, m.stop, string(m.stopSeq)), nil
}

// finish keeps choice 0's finish_reason for the DONE (SPEC.md §7b.3).
func (m *toFrames) finish(js []byte, sh shape) {
	fin, stopRe := sh.finish.in(js), sh.stopReason.in(js)
	if sh.field < 0 && sh.choices.n > 0 && sh.finish.n == 0 {
		// A chunk of several choices, or one the shape did not read.
		jsonlex.Elements(sh.choices.in(js), func(c []byte) bool {
			if i, ok := jsonlex.Field(c, "index"); ok && string(i) == "0" {
				fin, _ = jsonlex.Field(c, "finish_reason")
				stopRe, _ = jsonlex.Field(c, "stop_reason")
			}
			return true
		})
	}
	if !isString(fin) {
		return
	}
	name, _ := jsonlex.AppendUnquoted(m.scratch[:0], fin)
	m.scratch = name
	m.stop, m.stopSeq = FinishReason(string(name)), m.stopSeq[:0]
	if m.stop == frame.StopEndTurn && isString(stopRe) && len(stopRe) > 2 {
		if seq, ok := jsonlex.AppendUnquoted(m.stopSeq, stopRe); ok {
			m.stop, m.stopSeq = frame.StopSequence, seq
		}
	}
}

// templated appends a templatable chunk's frames (SPEC.md §7b.2): an EVENT
// of its template if its block keeps another, then its hole frames.
func (m *toFrames) templated(b, js []byte, sh *shape) ([]byte, bool) {
	key := blockKey{choice: sh.choice, field: uint8(sh.field), tool: sh.tool}
	if sh.field != fieldArguments {
		key.tool = 0
	}
	block := -1
	for i, k := range m.keys {
		if k == key {
			block = i
			break
		}
	}
	if block < 0 {
		if len(m.keys) >= MaxBlocks {
			return b, false // travels whole (§7b.2)
		}
		block = len(m.keys)
		m.keys = append(m.keys, key)
		// The block's buffer of a stream before, if Reset kept one.
		m.tpls = slices.Grow(m.tpls, 1)[:block+1]
		m.tpls[block] = m.tpls[block][:0]
	}
	// The template: js with its holes emptied.
	tpl := m.tpl[:0]
	last := 0
	for _, h := range sh.holes[:sh.nholes] {
		tpl = append(tpl, js[last:h.at.off]...)
		switch h.kind {
		case holeTokens, holeLogprobs:
			tpl = append(tpl, "[]"...)
		case holePrompt, holeCompletion, holeTotal, holeTokenID:
			tpl = append(tpl, '0')
		default:
			tpl = append(tpl, `""`...)
		}
		last = h.at.off + h.at.n
	}
	tpl = append(tpl, js[last:]...)
	m.tpl = tpl
	if kept := m.tpls[block]; string(kept) != string(tpl) {
		b = m.whole(b, fieldNames[sh.field], tpl)
		if len(tpl) <= MaxTemplate {
			m.tpls[block] = append(m.tpls[block][:0], tpl...)
			m.prepareFast(block, sh.field, m.tpls[block])
			// prepareFast read the template with m.rd: read the chunk again,
			// so that its text, obfuscation and IDs are the chunk's.
			*sh = m.rd.read(js)
		} else {
			m.tpls[block] = m.tpls[block][:0] // it serves this chunk only
		}
	}
	if sh.has(holePrompt) {
		// The usage's counts go first of the hole frames (§7b.2).
		b = appendUsage(b, m.rd.usage, false)
	}
	if sh.has(holeLogprobs) {
		// The logprob goes between the PAD and TOKEN frames and the text
		// (§7b.2): holeFrames writes the first two, then this, then text.
		b = m.holeFrames(b, block, sh.field, sh.has(holeObfuscation), m.rd.obfN, sh.has(holeTokens) || sh.has(holeTokenID), false, nil)
		b = m.appendLogprob(b, m.rd.lp.in(js))
		m.took(block)
		return m.textFrame(b, block, sh.field, m.rd.text), true
	}
	return m.holeFrames(b, block, sh.field, sh.has(holeObfuscation), m.rd.obfN, sh.has(holeTokens) || sh.has(holeTokenID), true, m.rd.text), true
}

// holeFrames appends a chunk's hole frames (§7b.2): a PAD of the
// obfuscation's length, the token frame of the IDs read, then the text frame
// if withText (else the caller writes it, after a logprob). The block is
// then the one the fast path tries first.
func (m *toFrames) holeFrames(b []byte, block, field int, obf bool, obfN int, ids, withText bool, text []byte) []byte {
	if obf {
		b = m.appendPad(b, obfN)
	}
	if ids {
		if len(m.rd.ids) == 1 {
			// A chunk of one token, as a server streams them: 3 or 4
			// bytes, not 5 or 7 (§7b.2).
			b = frame.AppendShortToken(b, m.rd.ids[0])
		} else {
			b = frame.AppendToken(b, m.rd.ids...)
		}
	}
	if !withText {
		return b
	}
	m.took(block)
	return m.textFrame(b, block, field, text)
}

func (m *toFrames) textFrame(b []byte, block, field int, text []byte) []byte {
	if kind := fieldKinds[field]; kind != 0 {
		return frame.AppendDelta(b, uint16(block), kind, text)
	}
	return frame.AppendText(b, uint16(block), text)
}

// appendPad appends one PAD frame of n bytes, n ≤ frame.MaxPayload: zeros,
// or, with DecoderOptions.RandomPad, bytes that do not compress. Unlike
// frame.AppendPad it writes a frame for n = 0 too, since an empty
// obfuscation is a hole as well (§7b.4).
func (m *toFrames) appendPad(b []byte, n int) []byte {
	b = append(b, byte(frame.TypePad), byte(n>>8), byte(n))
	if !m.opts.RandomPad {
		for range n {
			b = append(b, 0)
		}
		return b
	}
	// A ChaCha8 keystream from a fixed key, running on across the stream:
	// its bytes never repeat within a window, so DEFLATE finds no match in
	// them, and the stream's bytes are the same on every run (goldens).
	// Nothing here is secret: what the padding hides is the text's length,
	// and the PAD states its own. Its first ⌈3n/4⌉ bytes are random, the
	// rest zeros: 6 bits a byte, the entropy of the obfuscation it stands
	// for (a character of 62 is 5.95 bits), so coded, it costs about what
	// the string costs compressed SSE, and its size follows n as the
	// string's does.
	if !m.padSeeded {
		m.pad.Seed(padKey)
		m.padSeeded = true
	}
	random := (3*n + 3) / 4
	for k := 0; k < random; k += 8 {
		r := m.pad.Uint64()
		for j := k; j < k+8 && j < random; j++ {
			b = append(b, byte(r))
			r >>= 8
		}
	}
	for range n - random {
		b = append(b, 0)
	}
	return b
}

// padKey keys the keystream of RandomPad's PAD frames.
var padKey = [32]byte{'a', 'n', 't', 'h', ' ', 'p', 'a', 'd'}

// usageChunk appends an include_usage chunk as an EVENT usage of what
// USAGE and CACHE_USAGE do not carry, then those frames (§7b.3); false when
// they cannot carry it exactly.
func (m *toFrames) usageChunk(b, js, usage []byte) ([]byte, bool) {
	ev, u, ok := stripUsage(m.scratch[:0], js, usage)
	m.scratch = ev
	if !ok {
		return b, false
	}
	if m.synth, ok = mergeUsage(m.synth[:0], ev, u); !ok || !jsonlex.Same(m.synth, js) {
		return b, false // a key twice, say
	}
	b = m.whole(b, "usage", ev)
	return appendUsage(b, u, true), true
}

// appendUsage appends the USAGE of counts u, after their CACHE_USAGE if
// withCache and they have cached_tokens (§7b.3).
func appendUsage(b []byte, u usageCounts, withCache bool) []byte {
	if withCache && u.hasCached {
		b = frame.AppendCacheUsage(b, frame.CacheUsage{CacheReadInputTokens: u.cached})
	}
	ratio := uint32(0)
	if u.prompt > 0 && u.hasCached {
		ratio = frame.CacheHitRatio(uint64(min(u.cached, u.prompt)), uint64(u.prompt))
	}
	return frame.AppendUsage(b, frame.Usage{InputTokens: u.prompt, OutputTokens: u.completion, CacheHitRatio: ratio})
}

// errorChunk appends an error chunk: an ERROR, after the chunk whole when
// the ERROR does not say all it says (§7b.3).
func (m *toFrames) errorChunk(b, js, errv []byte) []byte {
	code, msg := m.errorOf(errv)
	if m.synth = appendErrorChunk(m.synth[:0], code, msg); !jsonlex.Same(m.synth, js) {
		b = m.whole(b, "error", js)
	}
	return frame.AppendError(b, code, string(msg))
}

// errorOf reads an error object's ERROR code and message (SPEC.md §7b.3);
// the message is in m.scratch. An errv that is not an object gives
// CodeUnspecified and no message.
func (m *toFrames) errorOf(errv []byte) (frame.ErrorCode, []byte) {
	code := frame.CodeUnspecified
	if c, ok := jsonlex.Field(errv, "code"); ok {
		if n, ok := parseUint(c, 599); ok && n >= 100 {
			code = frame.ErrorCode(n)
		}
	}
	if t, ok := jsonlex.Field(errv, "type"); ok && code == frame.CodeUnspecified {
		name, ok := jsonlex.AppendUnquoted(m.scratch[:0], t)
		if m.scratch = name; ok {
			code, _ = ParseErrorType(string(name))
		}
	}
	var msg []byte
	if t, ok := jsonlex.Field(errv, "message"); ok {
		msg, _ = jsonlex.AppendUnquoted(m.scratch[:0], t)
		m.scratch = msg
	}
	return code, msg
}

// appendLogprob appends the EVENT logprob of a logprobs hole (SPEC.md
// §7b.2, item 4): the number as 4 bytes of binary32 when writing those
// back gives exactly num (§3.10, encoding 2: OpenAI's logprobs, a float32's
// shortest digits, 10 bytes of text and more), else num as written.
func (m *toFrames) appendLogprob(b, num []byte) []byte {
	m.keep(num) // what either encoding gives back
	if f, ok := jsonlex.Binary32(num); ok {
		var data [4]byte
		binary.LittleEndian.PutUint32(data[:], math.Float32bits(f))
		return frame.AppendEvent(b, frame.EventBinary32, []byte("logprob"), data[:])
	}
	return frame.AppendEvent(b, frame.EventJSON, []byte("logprob"), num)
}

// whole appends an EVENT named name carrying js.
func (m *toFrames) whole(b []byte, name string, js []byte) []byte {
	m.name = append(m.name[:0], name...)
	return m.wholeName(b, m.name, js)
}

// wholeName appends js as EVENT frames, deflated with EventDictionary and
// the event before (encoding 3, SPEC.md §3.10; encoding 1 for the first)
// unless that would not make it smaller or the events travel raw. A chunk
// that travels whole is most often the one before with a field changed
// (a new template, Groq's id in every chunk, Writer's tool call's index):
// on 470 streams of other servers, coded with the one before, EVENT data
// took 0.3x the bytes it did with the dictionary alone.
func (m *toFrames) wholeName(b, name, js []byte) []byte {
	if m.opts.RawEvents || len(js) < 16 {
		m.keep(js)
		return frame.AppendEvent(b, frame.EventJSON, name, js)
	}
	enc := uint8(frame.EventDeflate)
	var z []byte
	if m.hasPrev {
		enc, z = frame.EventDeflateAfter, deflate.AppendBlockAfter(m.synth[:0], js, eventDict(), m.prev)
	} else {
		z = deflate.AppendBlock(m.synth[:0], js, eventDict())
	}
	m.synth = z
	m.keep(js)
	if len(z) < len(js) {
		return frame.AppendEvent(b, enc, name, z)
	}
	return frame.AppendEvent(b, frame.EventJSON, name, js)
}

// keep makes js the data of the event before the next (its last 32 KiB,
// what DEFLATE's window reaches), when events are deflated.
func (m *toFrames) keep(js []byte) {
	if !m.opts.RawEvents {
		m.prev, m.hasPrev = append(m.prev[:0], js[max(0, len(js)-deflate.Window):]...), true
	}
}
