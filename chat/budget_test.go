package chat

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/layer0/anth/frame"
)

// The output bounds SPEC.md §7b.6 and §12 state, per byte of input.
const (
	decoderBudget = 2   // ANTH bytes per SSE byte
	encoderBudget = 420 // SSE bytes per ANTH byte
)

// worstDecoderInput is the SSE that makes the most ANTH per byte the
// authors know: chunks whose token_ids hold one wide ID (so TOKEN32) and
// then one-digit IDs, 2 bytes of SSE ("0,") for 4 of ANTH.
func worstDecoderInput() []byte {
	var b strings.Builder
	ids := "65536" + strings.Repeat(",0", maxIDs-1)
	for range 4 {
		b.WriteString(`data: {"choices":[{"index":0,"delta":{"content":""},"token_ids":[` + ids + "]}]}\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

// TestDecoderBudget: the Decoder writes at most decoderBudget bytes of
// ANTH per byte of SSE, on the worst input and on every recording.
func TestDecoderBudget(t *testing.T) {
	inputs := recordings(t)
	inputs["worst"] = worstDecoderInput()
	for _, name := range sortedNames(inputs) {
		src := inputs[name]
		for _, raw := range []bool{false, true} {
			out := toANTH(t, src, DecoderOptions{RawEvents: raw})
			ratio := float64(len(out)) / float64(len(src))
			if ratio > decoderBudget {
				t.Errorf("%s: %d B of ANTH for %d B of SSE: %.3f a byte, over %d", name, len(out), len(src), ratio, decoderBudget)
			}
			if name == "worst" && raw {
				t.Logf("worst input: %.3f ANTH bytes per SSE byte", ratio)
				if ratio < 1.9 {
					t.Errorf("the worst input makes only %.3f a byte: it no longer tests the bound", ratio)
				}
			}
		}
	}
}

// worstEncoderInput is the ANTH that makes the most SSE per byte: a
// template of MaxTemplate bytes, then empty TEXT frames (5 bytes each), each
// of which writes the whole template back.
func worstEncoderInput() []byte {
	pad := strings.Repeat("x", MaxTemplate-len(`{"choices":[{"index":0,"delta":{"content":""}}],"p":""}`))
	tpl := `{"choices":[{"index":0,"delta":{"content":""}}],"p":"` + pad + `"}`
	b := frame.AppendMagic(nil)
	b = frame.AppendEvent(b, frame.EventJSON, []byte("content"), []byte(tpl))
	for range 10000 {
		b = frame.AppendText(b, 0, nil)
	}
	return frame.AppendDone(b, 0, "")
}

// TestEncoderBudget: the Encoder writes at most encoderBudget bytes of SSE
// per byte of ANTH, on the worst input and on every recording's ANTH.
func TestEncoderBudget(t *testing.T) {
	inputs := map[string][]byte{"worst": worstEncoderInput()}
	for name, src := range recordings(t) {
		inputs[name] = toANTH(t, src, DecoderOptions{})
	}
	for _, name := range sortedNames(inputs) {
		anth := inputs[name]
		out := toSSEBytes(t, anth, EncoderOptions{})
		ratio := float64(len(out)) / float64(len(anth))
		if ratio > encoderBudget {
			t.Errorf("%s: %d B of SSE for %d B of ANTH: %.1f a byte, over %d", name, len(out), len(anth), ratio, encoderBudget)
		}
		if name == "worst" {
			t.Logf("worst input: %.1f SSE bytes per ANTH byte", ratio)
			if ratio < 390 { // 411.2 in the limit: 2,056 bytes of SSE for each 5-byte frame
				t.Errorf("the worst input makes only %.1f a byte: it no longer tests the bound", ratio)
			}
		}
	}
}

// TestEncoderHoldsOneLongTemplate: templates over MaxTemplate are not
// kept: an ANTH stream of many long templates and no text leaves the
// Encoder holding one of them, not all (SPEC.md §7b.2, §12).
func TestEncoderHoldsOneLongTemplate(t *testing.T) {
	e := NewEncoder(io.Discard, EncoderOptions{})
	b := frame.AppendMagic(nil)
	long := strings.Repeat("y", 60000)
	for i := range MaxBlocks {
		tpl := `{"choices":[{"index":` + strconv.Itoa(i) + `,"delta":{"content":""}}],"p":"` + long + `"}`
		b = frame.AppendEvent(b, frame.EventJSON, []byte("content"), []byte(tpl))
	}
	if _, err := e.Write(b); err != nil {
		t.Fatal(err)
	}
	held := 0
	for _, blk := range e.core.blocks {
		held += cap(blk.tpl)
	}
	if len(e.core.blocks) != MaxBlocks || held > 2*60100 {
		t.Errorf("%d blocks hold %d B of templates; want one long template held", len(e.core.blocks), held)
	}
}

// textChunk is a chunk of the OpenAI API's shape, which travels as a PAD
// and a TEXT frame once its block's template is known.
func textChunk(text string) string {
	return `data: {"id":"chatcmpl-CXk2Jv7mQ9rT1sYb4nLw8eZ3aPdF","object":"chat.completion.chunk","created":1764633604,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[{"index":0,"delta":{"content":"` + text + `"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Xy3"}` + "\n\n"
}

// loopReader gives the same bytes over and over.
type loopReader struct {
	b   []byte
	pos int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.b[l.pos:])
	l.pos = (l.pos + n) % len(l.b)
	return n, nil
}

// TestDecoderZeroAllocs: once a block's template is known, a text chunk
// costs the Decoder no allocation.
func TestDecoderZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	d := NewDecoder(&loopReader{b: []byte(textChunk(" word") + textChunk(" more"))}, DecoderOptions{})
	for range 4 {
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(200, func() {
		out, err := d.Next()
		if err != nil || len(out) > 20 {
			t.Fatalf("a text chunk gave %d bytes, %v: not PAD and TEXT alone", len(out), err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations a text chunk, want 0", allocs)
	}
}

// TestDecoderResetAllocs: a Decoder that Reset gives a new stream, as a
// gateway's DecoderPool does, allocates nothing for it once it has read
// one like it: its templates, their fast-path shapes and the names it
// unquotes reuse the buffers of the streams before. Every recording in
// turn, so the buffers must fit the largest of each; a stream that ends
// in an error chunk allocates its ERROR's message as a string.
func TestDecoderResetAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	recs := recordings(t)
	names := sortedNames(recs)
	d := NewDecoder(nil, DecoderOptions{})
	var r bytes.Reader
	errorStreams := 0
	for _, name := range names {
		if bytes.Contains(recs[name], []byte(`data: {"error":`)) {
			errorStreams++
		}
	}
	all := func() {
		for _, name := range names {
			r.Reset(recs[name])
			d.Reset(&r)
			if _, err := io.Copy(io.Discard, d); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
	all()
	if allocs := testing.AllocsPerRun(5, all); allocs > float64(errorStreams) {
		t.Errorf("%.1f allocations for %d streams through a reused Decoder, want at most %d (an error chunk's message each)", allocs, len(names), errorStreams)
	}
}

// TestEncoderZeroAllocs: once a block's template is known, a TEXT frame
// (with its obfuscation PAD) costs the Encoder no allocation.
func TestEncoderZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	var sink bytes.Buffer
	e := NewEncoder(&sink, EncoderOptions{})
	anth := toANTH(t, []byte(textChunk("a")+textChunk("b")+"data: [DONE]\n\n"), DecoderOptions{})
	first := toANTH(t, []byte(textChunk("a")+"data: [DONE]\n\n"), DecoderOptions{})
	if _, err := e.Write(first[:len(first)-3]); err != nil { // all but the DONE
		t.Fatal(err)
	}
	frames := anth[len(first)-3 : len(anth)-3] // the second chunk's PAD and TEXT
	sink.Grow(1 << 16)
	allocs := testing.AllocsPerRun(200, func() {
		sink.Reset()
		if _, err := e.Write(frames); err != nil || !bytes.Contains(sink.Bytes(), []byte(`"content":"b"`)) {
			t.Fatalf("wrote %q, %v", sink.Bytes(), err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations a TEXT frame, want 0", allocs)
	}
}

// TestNativeBlocksBounded: a stream with no chunks of its own that leaves
// part of a character in block after block is refused past MaxBlocks,
// rather than holding a reassembler for each of 65,536 blocks; blocks
// that hold nothing cost nothing.
func TestNativeBlocksBounded(t *testing.T) {
	whole, cut := frame.AppendMagic(nil), frame.AppendMagic(nil)
	for i := range 1000 {
		whole = frame.AppendText(whole, uint16(i), []byte("a"))
		cut = frame.AppendText(cut, uint16(i), []byte("\xe4"))
	}
	e := NewEncoder(io.Discard, EncoderOptions{})
	if _, err := e.Write(whole); err != nil || e.core.text.Blocks() != 0 {
		t.Errorf("whole characters in 1,000 blocks: %v, %d blocks held", err, e.core.text.Blocks())
	}
	e = NewEncoder(io.Discard, EncoderOptions{})
	if _, err := e.Write(cut); !errors.Is(err, ErrTooLarge) || e.core.text.Blocks() > MaxBlocks+1 {
		t.Errorf("cut characters in 1,000 blocks: %v, %d blocks held", err, e.core.text.Blocks())
	}
}
