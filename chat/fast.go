package chat

import (
	"bytes"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
)

// The hot path of the Decoder: a chunk that is its block's template with
// the holes filled, matched byte by byte against the template, without
// compacting it or reading its shape. Anything that does not match exactly
// (whitespace, another key order, another block) takes the general path,
// which gives the same frames: the fast path changes speed, never output
// (TestFastPathAgrees is its oracle).

// fastTemplate is what the fast path knows of a kept template.
type fastTemplate struct {
	ok    bool  // the fast path may match this template
	holes shape // where its holes are
	after int   // the other block that took a chunk after this one, the last time one did
}

// prepareFast decides whether the fast path may match block's template
// tpl, of field: only when the open-field rule can pick no other field
// (no other field of §7b.1 is a string there) and its finish_reason does
// not say anything for the DONE.
func (m *toFrames) prepareFast(block, field int, tpl []byte) {
	for len(m.fast) <= block {
		m.fast = append(m.fast, fastTemplate{})
	}
	sh := m.rd.shape(tpl, field)
	fin := sh.finish.in(tpl)
	m.fast[block] = fastTemplate{
		// A template with usage holes or copies of the text takes the
		// general path, which checks the counts' sum and the copies (§7b.2,
		// items 5 and 6): handling them here cost the common chunks 3-5 %
		// of their time (BenchmarkChatBridge, openai-go-recording).
		ok:    sh.field == field && sh.strings == 1 && (len(fin) == 0 || string(fin) == "null") && !sh.has(holePrompt) && !sh.has(holeTextCopy) && !sh.has(holeTokenID),
		holes: sh,
		after: m.fast[block].after,
	}
}

// took records that block took the chunk just read, for fastChunk.
func (m *toFrames) took(block int) {
	if block != m.last && m.last < len(m.fast) {
		m.fast[m.last].after = block
	}
	m.last = block
}

// fastChunk appends the frames of data if it is, holes filled, the template
// of the block that took the last chunk, or else of the other block that
// followed that one the last time another did (block 0 if none has yet):
// choices streamed in turn (n > 1: SPEC.md §7b.1's blocks 0, 1, 2, 0, 1,
// 2, …, a choice's chunks sometimes two in a row) keep to the fast path,
// at one more try on a chunk that misses. False otherwise, having appended
// nothing.
func (m *toFrames) fastChunk(b, data []byte) ([]byte, bool) {
	if out, ok := m.fastBlock(b, data, m.last); ok {
		return out, true
	}
	if m.last < len(m.fast) {
		if next := m.fast[m.last].after; next != m.last {
			return m.fastBlock(b, data, next)
		}
	}
	return b, false
}

// fastBlock is fastChunk for the template of block.
func (m *toFrames) fastBlock(b, data []byte, block int) ([]byte, bool) {
	if block >= len(m.fast) || !m.fast[block].ok || len(m.tpls[block]) == 0 {
		return b, false
	}
	tpl, sh := m.tpls[block], &m.fast[block].holes
	pos, last := 0, 0
	var text, obf []byte
	obfN, hasIDs, textRead := 0, false, false
	var lp []byte // the logprob of a logprobs hole, if the chunk has one
	for _, h := range sh.holes[:sh.nholes] {
		seg := tpl[last:h.at.off]
		if !bytes.HasPrefix(data[pos:], seg) {
			return b, false
		}
		pos += len(seg)
		last = h.at.off + h.at.n
		switch h.kind {
		case holeText, holeObfuscation:
			end := stringEnd(data, pos)
			if end < 0 {
				return b, false
			}
			var ok bool
			if h.kind == holeText {
				if m.rd.text, ok = jsonlex.AppendUnquoted(m.rd.text[:0], data[pos:end]); !ok || len(m.rd.text) > maxHoleText {
					return b, false
				}
				text, textRead = m.rd.text, true
			} else {
				if obf, ok = jsonlex.AppendUnquoted(m.rd.obf[:0], data[pos:end]); !ok || len(obf) > frame.MaxPayload {
					return b, false
				}
				m.rd.obf, obfN = obf, len(obf)
			}
			pos = end
		case holeTokens:
			end := bytes.IndexByte(data[pos:], ']')
			if end < 0 || !m.rd.readIDs(data[pos:pos+end+1]) {
				return b, false
			}
			pos += end + 1
			hasIDs = true
		case holeLogprobs:
			if !textRead {
				return b, false // the logprob's token is the text: read it first
			}
			n, num := m.matchLogprob(data[pos:], text)
			if n < 0 {
				return b, false
			}
			pos += n
			lp = num
		}
	}
	if string(data[pos:]) != string(tpl[last:]) {
		return b, false
	}
	if lp == nil {
		return m.holeFrames(b, block, sh.field, sh.has(holeObfuscation), obfN, hasIDs, true, text), true
	}
	b = m.holeFrames(b, block, sh.field, sh.has(holeObfuscation), obfN, hasIDs, false, nil)
	b = m.appendLogprob(b, lp)
	m.took(block)
	return m.textFrame(b, block, sh.field, text), true
}

// matchLogprob matches the start of data as a logprobs hole's value for
// text (§7b.2, item 4): `[]`, an empty array (no logprob), or
// [{"token":T,"logprob":L,"bytes":B,"top_logprobs":[]}] with T text and B
// its bytes. It returns the value's length and L (nil for `[]`), or -1.
func (m *toFrames) matchLogprob(data, text []byte) (int, []byte) {
	if bytes.HasPrefix(data, []byte("[]")) {
		return 2, nil
	}
	const head, mid, tail = `[{"token":`, `,"bytes":[`, `],"top_logprobs":[]}]`
	if !bytes.HasPrefix(data, []byte(head)) {
		return -1, nil
	}
	pos := len(head)
	end := stringEnd(data, pos)
	if end < 0 {
		return -1, nil
	}
	tok, ok := jsonlex.AppendUnquoted(m.rd.obf[:0], data[pos:end])
	m.rd.obf = tok
	if !ok || string(tok) != string(text) || !bytes.HasPrefix(data[end:], []byte(`,"logprob":`)) {
		return -1, nil
	}
	pos = end + len(`,"logprob":`)
	n, ok := jsonlex.Number(data[pos:])
	if !ok || n == 0 {
		return -1, nil
	}
	num := data[pos : pos+n]
	pos += n
	if !bytes.HasPrefix(data[pos:], []byte(mid)) {
		return -1, nil
	}
	pos += len(mid)
	for i, c := range text {
		if i > 0 {
			if pos >= len(data) || data[pos] != ',' {
				return -1, nil
			}
			pos++
		}
		j := pos
		for j < len(data) && data[j] >= '0' && data[j] <= '9' {
			j++
		}
		if v, ok := parseUint(data[pos:j], 0xFF); !ok || byte(v) != c {
			return -1, nil
		}
		pos = j
	}
	if !bytes.HasPrefix(data[pos:], []byte(tail)) {
		return -1, nil
	}
	return pos + len(tail), num
}

// stringEnd returns the index after the JSON string that starts at
// data[i], or -1.
func stringEnd(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	for j := i + 1; j < len(data); {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for p := j - 1; p > i && data[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
	return -1
}
