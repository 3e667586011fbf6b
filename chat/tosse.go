package chat

import (
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
)

// encBlock is what an Encoder keeps of a block: its key, its template and
// where the template's holes are.
type encBlock struct {
	key  blockKey
	tpl  []byte // nil: none kept
	sh   shape
	once bool // over MaxTemplate: it serves one chunk (§7b.2)
	eof  bool // its chunks may end a stream with no [DONE] (endsAtEOF: holes change no finish_reason)
}

// toSSE maps the frames of one ANTH response to Chat Completions chunks
// (SPEC.md §7b): the push core under Encoder. It writes the chunks that its
// twin, toFrames, maps back to the same frames.
type toSSE struct {
	opts   EncoderOptions
	events EventReader
	rd     reader

	bridged    bool // the stream carries chunks of its own (an EVENT came)
	native     bool // content came before any EVENT: chunks are made (§7b.5)
	ended      bool
	errWritten bool // an error chunk or event came whole, before its ERROR
	noDone     bool // an EVENT eof came: the DONE writes no [DONE] (§7b.3)…
	lastEOF    bool // …when the last event written is a chunk a stream may end after (endsAtEOF)

	blocks []encBlock
	once   int // the block whose template serves one chunk, or -1
	text   frame.Text

	// The hole frames of the chunk being assembled (§7b.2).
	obf   int
	ids   []uint32
	dec   frame.TokenDecoder // the IDs of the stream's PACKED_TOKEN frames
	lp    []byte
	hasLP bool
	use   frame.Usage // a USAGE for the chunk's usage holes (§7b.2, item 5)
	hasU  bool

	// An EVENT usage waiting for its USAGE (§7b.3), and its CACHE_USAGE.
	usageEv  []byte
	hasUsage bool
	cached   uint32
	hasCache bool

	// A stream with no chunks of its own (§7b.5).
	started   bool
	created   int64
	tools     []uint16 // the blocks of tool arguments, by tool index
	usage     frame.Usage
	gotUsage  bool
	cacheRead uint32
	gotCache  bool

	buf []byte
	js  []byte
}

// frame appends the SSE of one frame, as a response Reader returns it.
func (s *toSSE) frame(b []byte, f frame.Frame) ([]byte, error) {
	switch f.Type {
	case frame.TypeEvent:
		return s.event(b, f)
	case frame.TypePad:
		s.obf = len(f.Payload)
	case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24, frame.TypePackedToken:
		if s.markContent(); s.native {
			return b, nil // a stream's own token IDs: no chunk field spells them
		}
		if len(s.ids)+f.TokenCount() > maxIDs {
			return b, &Error{Err: ErrTooLarge, Detail: "more token IDs before a chunk's text than one frame holds"}
		}
		var err error
		s.ids, err = s.dec.Tokens(s.ids, f)
		return b, err
	case frame.TypeText:
		block, text, _ := f.Text()
		return s.content(b, block, 0, text)
	case frame.TypeDelta:
		block, kind, data, _ := f.Delta()
		if kind > frame.DeltaSignature {
			return b, nil // citations: no chunk carries them
		}
		return s.content(b, block, kind, data)
	case frame.TypeUsage:
		u, _ := f.Usage()
		if s.hasUsage {
			s.hasUsage = false
			ev := usageCounts{prompt: u.InputTokens, completion: u.OutputTokens, cached: s.cached, hasCached: s.hasCache}
			s.hasCache = false
			var ok bool
			if s.js, ok = mergeUsage(s.js[:0], s.usageEv, ev); !ok {
				return b, &Error{Err: ErrMalformed, Detail: "EVENT usage with no usage object"}
			}
			s.lastEOF = endsAtEOF(s.js)
			return appendData(b, s.js), nil
		}
		if s.markContent(); !s.native {
			s.use, s.hasU = u, true // the next chunk's usage holes
			return b, nil
		}
		s.usage, s.gotUsage = u, true
	case frame.TypeCacheUsage:
		c, _ := f.CacheUsage()
		if s.hasUsage {
			s.cached, s.hasCache = c.CacheReadInputTokens, true
		} else {
			s.cacheRead, s.gotCache = c.CacheReadInputTokens, true
		}
	case frame.TypeBlock:
		if block, op, _ := f.Block(); op == frame.BlockStop && s.native {
			return s.flush(b, block), nil
		}
	case frame.TypeError:
		s.ended = true
		if s.errWritten {
			return b, nil
		}
		code, msg, _ := f.ErrorMessage()
		s.js = appendErrorChunk(s.js[:0], code, msg)
		return appendData(b, s.js), nil
	case frame.TypeDone:
		s.ended = true
		reason, _, _ := f.Done()
		if s.native {
			b = s.nativeEnd(b, reason)
		} else {
			b = s.flushBridged(b)
		}
		if s.noDone && s.lastEOF && !s.native {
			// The stream ended with its bytes (§7b.3): its last chunk says
			// so, as a Decoder reads it. Without such a chunk (ANTH that
			// no Decoder made) the [DONE] is written, or the SSE would
			// read as cut.
			return b, nil
		}
		return appendData(b, []byte(doneData)), nil
	}
	return b, nil // unknown ignorable frames
}

// markContent notes that content came: before any EVENT, the stream is
// one with no chunks of its own.
func (s *toSSE) markContent() {
	if !s.bridged {
		s.native = true
	}
}

// event writes, or keeps, what an EVENT carries, once its frames are
// joined.
func (s *toSSE) event(b []byte, f frame.Frame) ([]byte, error) {
	ev, ok, err := s.events.Add(f)
	if !ok || err != nil {
		return b, err
	}
	if !s.native {
		s.bridged = true
	}
	name := ev.Name
	switch string(name) {
	case "chunk":
		s.lastEOF = endsAtEOF(ev.Data)
		return appendData(b, ev.Data), nil
	case "done":
		s.lastEOF = false
		return appendData(b, []byte(doneData)), nil
	case "eof":
		s.noDone = true // it stands for the missing [DONE] of the DONE after it (§7b.3)
		return b, nil
	case "usage":
		s.usageEv, s.hasUsage, s.hasCache = append(s.usageEv[:0], ev.Data...), true, false
		return b, nil
	case "error":
		s.errWritten, s.lastEOF = true, false
		return appendData(b, ev.Data), nil
	case "logprob":
		if n, ok := jsonlex.Number(ev.Data); !ok || n != len(ev.Data) {
			return b, &Error{Err: ErrMalformed, Detail: "EVENT logprob is not a number"}
		}
		s.lp, s.hasLP = append(s.lp[:0], ev.Data...), true
		return b, nil
	}
	if len(name) > len("event:") && string(name[:len("event:")]) == "event:" {
		if string(name) == "event:error" {
			s.errWritten = true // it stands for the ERROR after it (§7b.3)
		}
		s.lastEOF = false
		return appendNamed(b, name[len("event:"):], ev.Data), nil
	}
	if field := fieldOf(name); field >= 0 {
		return b, s.template(field, ev.Data)
	}
	return b, nil // an EVENT of another bridge, or of a later version
}

// template keeps a block's template, numbering the block if it is new.
func (s *toSSE) template(field int, tpl []byte) error {
	sh := s.rd.shape(tpl, field)
	if sh.field < 0 {
		return &Error{Err: ErrMalformed, Detail: "EVENT " + fieldNames[field] + " is not a template (SPEC.md §7b.2)"}
	}
	key := blockKey{choice: sh.choice, field: uint8(field)}
	if field == fieldArguments {
		key.tool = sh.tool
	}
	i := -1
	for j := range s.blocks {
		if s.blocks[j].key == key {
			i = j
			break
		}
	}
	if i < 0 {
		if len(s.blocks) >= MaxBlocks {
			return &Error{Err: ErrMalformed, Detail: "more than " + strconv.Itoa(MaxBlocks) + " blocks (SPEC.md §7b.2)"}
		}
		i = len(s.blocks)
		// The template buffer of the block of that number a stream before,
		// if Reset kept one that held a template kept (§7b.2).
		s.blocks = slices.Grow(s.blocks, 1)[:i+1]
		buf := s.blocks[i].tpl
		if cap(buf) > MaxTemplate {
			buf = nil // one that served one chunk: not held
		}
		s.blocks[i] = encBlock{key: key, tpl: buf[:0]}
	}
	// A template over MaxTemplate serves the one chunk that follows it
	// (§7b.2): one such is held at a time, so that what an Encoder holds is
	// MaxBlocks templates of MaxTemplate bytes and one event.
	if s.once >= 0 && s.once < len(s.blocks) {
		s.blocks[s.once].tpl = nil
	}
	s.once = -1
	blk := &s.blocks[i]
	blk.once = len(tpl) > MaxTemplate
	if blk.once {
		s.once = i
		blk.tpl = append([]byte(nil), tpl...)
	} else {
		blk.tpl = append(blk.tpl[:0], tpl...)
	}
	blk.sh = sh
	blk.eof = endsAtEOF(tpl)
	return nil
}

// content writes the chunk that a TEXT or DELTA frame completes.
func (s *toSSE) content(b []byte, block uint16, kind frame.DeltaKind, data []byte) ([]byte, error) {
	s.markContent()
	if s.native {
		return s.nativeContent(b, block, kind, data)
	}
	if int(block) >= len(s.blocks) || s.blocks[block].tpl == nil {
		return b, &Error{Err: ErrMalformed, Detail: "text for block " + strconv.Itoa(int(block)) + ", which has no template (SPEC.md §7b.2)"}
	}
	blk := &s.blocks[block]
	if fieldKinds[blk.key.field] != kind {
		return b, &Error{Err: ErrMalformed, Detail: "a frame of another kind than block " + strconv.Itoa(int(block)) + "'s"}
	}
	if (len(s.ids) > 0 && !blk.sh.has(holeTokens) && !(len(s.ids) == 1 && blk.sh.has(holeTokenID))) || (s.hasLP && !blk.sh.has(holeLogprobs)) || (s.hasU && !blk.sh.has(holePrompt)) {
		return b, &Error{Err: ErrMalformed, Detail: "token IDs, a logprob or a USAGE for a template without their hole"}
	}
	s.buf = s.text.Append(s.buf[:0], block, kind, data)
	return s.chunk(b, blk, s.buf), nil
}

// chunk writes the chunk of blk's template with its holes filled: text,
// and the hole frames that came before it.
func (s *toSSE) chunk(b []byte, blk *encBlock, text []byte) []byte {
	b = append(b, "data: "...)
	last := 0
	for _, h := range blk.sh.holes[:blk.sh.nholes] {
		b = append(b, blk.tpl[last:h.at.off]...)
		last = h.at.off + h.at.n
		switch h.kind {
		case holeText, holeTextCopy:
			b = jsonlex.AppendString(b, text)
		case holeTokenID:
			id := uint32(0)
			if len(s.ids) == 1 {
				id = s.ids[0]
			}
			b = strconv.AppendUint(b, uint64(id), 10)
		case holeObfuscation:
			b = appendObfuscation(b, s.obf)
		case holeTokens:
			b = append(b, '[')
			for i, id := range s.ids {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendUint(b, uint64(id), 10)
			}
			b = append(b, ']')
		case holeLogprobs:
			if !s.hasLP {
				b = append(b, "[]"...)
				break
			}
			b = append(b, `[{"token":`...)
			b = jsonlex.AppendString(b, text)
			b = append(b, `,"logprob":`...)
			b = append(b, s.lp...)
			b = append(b, `,"bytes":[`...)
			for i, c := range text {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendUint(b, uint64(c), 10)
			}
			b = append(b, `],"top_logprobs":[]}]`...)
		case holePrompt:
			b = strconv.AppendUint(b, uint64(s.use.InputTokens), 10)
		case holeCompletion:
			b = strconv.AppendUint(b, uint64(s.use.OutputTokens), 10)
		case holeTotal:
			b = strconv.AppendUint(b, uint64(s.use.InputTokens)+uint64(s.use.OutputTokens), 10)
		}
	}
	b = append(b, blk.tpl[last:]...)
	b = append(b, "\n\n"...)
	s.lastEOF = blk.eof
	s.obf, s.ids, s.hasLP, s.use, s.hasU = 0, s.ids[:0], false, frame.Usage{}, false
	if blk.once {
		blk.tpl, s.once = nil, -1
	}
	return b
}

// flushBridged writes, at the end of a bridged stream, what UTF-8
// reassembly still holds of each block, a character cut off by the end, as
// U+FFFD in a chunk of the block's template (SPEC.md §7, rule 5). A stream
// this package's Decoder made never has one: its text is whole characters.
func (s *toSSE) flushBridged(b []byte) []byte {
	for i := range s.blocks {
		blk := &s.blocks[i]
		kind := fieldKinds[blk.key.field]
		if blk.tpl != nil && s.text.Pending(uint16(i), kind) {
			s.buf = s.text.Flush(s.buf[:0], uint16(i), kind)
			b = s.chunk(b, blk, s.buf)
		}
	}
	return b
}

// obfuscationChars are what a fresh obfuscation is drawn from (§7b.4).
const obfuscationChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// appendObfuscation appends a JSON string of n random characters. The
// generator is math/rand/v2's, seeded from the system's randomness: the
// string hides lengths and means nothing.
func appendObfuscation(b []byte, n int) []byte {
	b = append(b, '"')
	for n > 0 {
		r := rand.Uint64()
		for k := 0; k < 10 && n > 0; k++ {
			b = append(b, obfuscationChars[r%uint64(len(obfuscationChars))])
			r /= uint64(len(obfuscationChars))
			n--
		}
	}
	return append(b, '"')
}

// nativeContent writes a chunk of a stream with no chunks of its own
// (SPEC.md §7b.5): TEXT as content, thinking as reasoning_content, tool
// input as the arguments of the tool call its block is.
func (s *toSSE) nativeContent(b []byte, block uint16, kind frame.DeltaKind, data []byte) ([]byte, error) {
	if kind == frame.DeltaSignature {
		return b, nil // no chunk carries a signature
	}
	s.buf = s.text.Append(s.buf[:0], block, kind, data)
	if !s.text.Pending(block, kind) {
		s.text.Forget(block) // nothing held: the block costs nothing
	} else if s.text.Blocks() > MaxBlocks {
		// Each block holding part of a character holds up to 3 bytes:
		// bounded, as what a peer can make an Encoder keep (SPEC.md §12).
		return b, &Error{Err: ErrTooLarge, Detail: "more than " + strconv.Itoa(MaxBlocks) + " blocks hold part of a character"}
	}
	if len(s.buf) == 0 && len(data) > 0 {
		return b, nil // all held back: no chunk yet
	}
	return s.nativeDelta(b, block, kind, s.buf)
}

func (s *toSSE) nativeDelta(b []byte, block uint16, kind frame.DeltaKind, text []byte) ([]byte, error) {
	js := appendChunkHead(s.js[:0], &s.opts, s.createdAt())
	js = append(js, `[{"index":0,"delta":{`...)
	if !s.started {
		s.started = true
		js = append(js, `"role":"assistant",`...)
	}
	switch kind {
	case frame.DeltaThinking:
		js = append(js, `"reasoning_content":`...)
		js = jsonlex.AppendString(js, text)
	case frame.DeltaInputJSON:
		tool := -1
		for i, bl := range s.tools {
			if bl == block {
				tool = i
			}
		}
		if tool < 0 {
			if len(s.tools) >= MaxBlocks {
				return b, &Error{Err: ErrTooLarge, Detail: "more than " + strconv.Itoa(MaxBlocks) + " tool calls"}
			}
			tool = len(s.tools)
			s.tools = append(s.tools, block)
		}
		js = append(js, `"tool_calls":[{"index":`...)
		js = strconv.AppendInt(js, int64(tool), 10)
		js = append(js, `,"function":{"arguments":`...)
		js = jsonlex.AppendString(js, text)
		js = append(js, "}}]"...)
	default:
		js = append(js, `"content":`...)
		js = jsonlex.AppendString(js, text)
	}
	js = append(js, `},"logprobs":null,"finish_reason":null}]}`...)
	s.js = js
	return appendData(b, js), nil
}

// flush writes what a block's UTF-8 reassembly holds, a character cut off
// by its end, as U+FFFD (SPEC.md §7).
func (s *toSSE) flush(b []byte, block uint16) []byte {
	for kind := range frame.DeltaSignature + 1 {
		if s.text.Pending(block, kind) {
			s.buf = s.text.Flush(s.buf[:0], block, kind)
			b, _ = s.nativeDelta(b, block, kind, s.buf)
		}
	}
	s.text.Forget(block)
	return b
}

// nativeEnd writes the end of a stream with no chunks of its own: what
// reassembly holds, a finish chunk and a usage chunk (SPEC.md §7b.5).
func (s *toSSE) nativeEnd(b []byte, reason frame.StopReason) []byte {
	for block := range uint16(0xFFFF) {
		if s.text.Blocks() == 0 {
			break
		}
		b = s.flush(b, block)
	}
	js := appendChunkHead(s.js[:0], &s.opts, s.createdAt())
	js = append(js, `[{"index":0,"delta":{},"logprobs":null,"finish_reason":`...)
	js = jsonlex.AppendString(js, FinishReasonName(reason))
	js = append(js, "}]}"...)
	b = appendData(b, js)
	if s.gotUsage {
		js = appendChunkHead(js[:0], &s.opts, s.createdAt())
		js = append(js, `[],"usage":{"prompt_tokens":`...)
		js = strconv.AppendUint(js, uint64(s.usage.InputTokens), 10)
		js = append(js, `,"completion_tokens":`...)
		js = strconv.AppendUint(js, uint64(s.usage.OutputTokens), 10)
		js = append(js, `,"total_tokens":`...)
		js = strconv.AppendUint(js, uint64(s.usage.InputTokens)+uint64(s.usage.OutputTokens), 10)
		if s.gotCache {
			js = append(js, `,"prompt_tokens_details":{"cached_tokens":`...)
			js = strconv.AppendUint(js, uint64(s.cacheRead), 10)
			js = append(js, '}')
		}
		js = append(js, "}}"...)
		b = appendData(b, js)
	}
	s.js = js
	return b
}

func (s *toSSE) createdAt() int64 {
	if s.created == 0 {
		s.created = s.opts.created()
	}
	return s.created
}
