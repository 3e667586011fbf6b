package frame

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	anthutf8 "github.com/layer0/anth/utf8"
)

// textFrames is a response of text blocks interleaved with thinking,
// signature and tool input deltas, each block's bytes cut at random
// points (characters split between frames), and the text of each kind.
func textFrames(t *rapid.T) (frames []Frame, text, thinking string) {
	pieces := rapid.SliceOfN(rapid.StringMatching(`[a-zé你😀]{0,6}`), 1, 12).Draw(t, "pieces")
	var b []byte
	for i, p := range pieces {
		block := uint16(i % 3)
		data := []byte(p)
		cut := rapid.IntRange(0, len(data)).Draw(t, "cut")
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			b = AppendText(b, block, data[:cut])
			b = AppendText(b, block, data[cut:])
			text += p
		case 1:
			b = AppendDelta(b, block+10, DeltaThinking, data[:cut])
			b = AppendDelta(b, block+10, DeltaThinking, data[cut:])
			thinking += p
		case 2:
			b = AppendDelta(b, block+20, DeltaSignature, data)
		case 3:
			b = AppendDelta(b, block+30, DeltaInputJSON, data)
		}
	}
	b = AppendDone(b, StopEndTurn, "")
	for len(b) > 0 {
		f, n, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
		b = b[n:]
	}
	return frames, text, thinking
}

// TestTextFrameDefault: AppendFrame gives text blocks' text alone by
// default, whole and in order, and thinking too when it is included.
func TestTextFrameDefault(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		frames, text, thinking := textFrames(t)
		var def, with Text
		with.Include(DeltaThinking)
		var gotDef, gotWith []byte
		for _, f := range frames {
			gotDef = def.AppendFrame(gotDef, f)
			gotWith = with.AppendFrame(gotWith, f)
		}
		if d := cmp.Diff(text, string(gotDef)); d != "" {
			t.Fatalf("default (-want +got):\n%s", d)
		}
		if len(gotWith) != len(text)+len(thinking) {
			t.Fatalf("with thinking: %q, want the %d bytes of %q and %q", gotWith, len(text)+len(thinking), text, thinking)
		}
		if def.Blocks() != 0 || with.Blocks() != 0 {
			t.Fatalf("DONE left %d and %d blocks", def.Blocks(), with.Blocks())
		}
	})
}

// TestTextFrameAllocs: the steady state of AppendFrame on TEXT frames
// allocates nothing.
func TestTextFrameAllocs(t *testing.T) {
	f, _, _ := Parse(AppendText(nil, 0, []byte("hello, 世界")))
	var x Text
	dst := x.AppendFrame(nil, f)
	if n := testing.AllocsPerRun(100, func() { dst = x.AppendFrame(dst[:0], f) }); n != 0 {
		t.Errorf("%v allocations a frame", n)
	}
}

// TestTextReusesBlocks: a Text that read a response reads the next one, of
// a block again, allocating nothing: a forgotten block's decoders serve the
// next block.
func TestTextReusesBlocks(t *testing.T) {
	var response []Frame
	for _, b := range [][]byte{AppendText(nil, 0, []byte("Hi \xe4\xbd")), AppendBlock(nil, 0, BlockStop), AppendText(nil, 1, []byte("\xa0")), AppendDone(nil, StopEndTurn, "")} {
		f, _, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		response = append(response, f)
	}
	var text Text
	buf := make([]byte, 0, 64)
	read := func() {
		buf = buf[:0]
		for _, f := range response {
			buf = text.AppendFrame(buf, f)
		}
	}
	read()
	if n := testing.AllocsPerRun(100, read); n != 0 {
		t.Errorf("%v allocs per response, want 0", n)
	}
	if string(buf) != "Hi \uFFFD\uFFFD" {
		t.Errorf("%q", buf)
	}
}

// TestTextReset: Reset drops what every block held, unsent (a new response
// must not begin with the last one's cut character), keeps what Include
// asked for, and keeps the blocks' state for the next response: a Text
// reused for responses of three blocks at once allocates nothing.
func TestTextReset(t *testing.T) {
	var text Text
	text.Include(DeltaThinking)
	buf := make([]byte, 0, 64)
	response := func() {
		buf = buf[:0]
		for b := range uint16(3) {
			buf = text.Append(buf, b, 0, []byte("a\xe4\xbd"))
		}
		text.Reset()
	}
	response()
	if n := testing.AllocsPerRun(100, response); n != 0 {
		t.Errorf("%v allocs per response of three blocks, want 0", n)
	}
	if string(buf) != "aaa" || text.Blocks() != 0 {
		t.Errorf("%q and %d blocks after Reset", buf, text.Blocks())
	}
	f, _, err := Parse(AppendDelta(nil, 0, DeltaThinking, []byte("\xa0b")))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(text.AppendFrame(nil, f)); got != "\uFFFDb" {
		t.Errorf("a thinking delta after Reset: %q, want the lone continuation byte as U+FFFD and b", got)
	}
}

// TestTextBlocksIndependent: whatever the order of Append, Flush, Forget
// and FlushAll over a few blocks, a Text gives what a decoder of its own
// for each block and kind would (SPEC.md §7), so the decoders it keeps for
// the block of the frame before (issue 26) are never another block's or a
// forgotten one's.
func TestTextBlocksIndependent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var text Text
		model := map[[2]int]*anthutf8.Decoder{}
		of := func(block uint16, kind DeltaKind) *anthutf8.Decoder {
			k := [2]int{int(block), int(kind)}
			if model[k] == nil {
				model[k] = new(anthutf8.Decoder)
			}
			return model[k]
		}
		forget := func(block uint16) {
			for kind := range DeltaSignature + 1 {
				delete(model, [2]int{int(block), int(kind)})
			}
		}
		for i := range rapid.IntRange(1, 40).Draw(t, "ops") {
			block := uint16(rapid.IntRange(0, 3).Draw(t, "block"))
			kind := DeltaKind(rapid.IntRange(0, int(DeltaSignature)).Draw(t, "kind"))
			var got, want []byte
			switch rapid.IntRange(0, 5).Draw(t, "op") {
			case 0, 1, 2:
				data := rapid.SliceOfN(rapid.SampledFrom([]byte("a\xc3\xa9\xe4\xbd\xa0\xf0\x9f\x98\x80\xff")), 0, 6).Draw(t, "data")
				got = text.Append(nil, block, kind, data)
				want = of(block, kind).Append(nil, data)
			case 3:
				got = text.Flush(nil, block, kind)
				if d := model[[2]int{int(block), int(kind)}]; d != nil {
					want = d.Flush(nil)
				}
			case 4:
				text.Forget(block)
				forget(block)
			case 5:
				got = text.FlushAll(nil)
				for b := range uint16(4) {
					for k := range DeltaSignature + 1 {
						if d := model[[2]int{int(b), int(k)}]; d != nil {
							want = d.Flush(want)
						}
					}
					forget(b)
				}
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Fatalf("op %d, block %d, kind %d (-want +got):\n%s", i, block, kind, diff)
			}
		}
	})
}
