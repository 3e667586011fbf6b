package messages

import (
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/frame"
)

// TestOpenBlocksBounded: an Encoder holds at most MaxOpenBlocks blocks
// open, and forgets a block when it stops, so 65,536 blocks one after
// another cost what one does.
func TestOpenBlocksBounded(t *testing.T) {
	b := frame.AppendMagic(nil)
	for i := range 65_536 {
		b = frame.AppendBlock(b, uint16(i), frame.BlockStartText)
		b = frame.AppendText(b, uint16(i), []byte("ab\xe4"))
		b = frame.AppendBlock(b, uint16(i), frame.BlockStop)
	}
	b = frame.AppendDone(b, frame.StopEndTurn, "")
	e := NewEncoder(io.Discard, EncoderOptions{})
	before := liveHeap()
	for i := 0; i < len(b); i += 4096 { // as a network delivers it
		if _, err := e.Write(b[i:min(i+4096, len(b))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if grew := int64(liveHeap()) - int64(before); grew > 1<<20 || e.core.blocks.len() != 0 {
		t.Fatalf("after 65,536 blocks: %d blocks held, live heap grew %d bytes", e.core.blocks.len(), grew)
	}
	runtime.KeepAlive(e)

	open := frame.AppendMagic(nil)
	for i := range DefaultMaxOpenBlocks + 1 {
		open = frame.AppendText(open, uint16(i), []byte("x"))
	}
	if _, err := toSSEBytes(open, len(open), EncoderOptions{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("%d blocks open at once: %v, want ErrTooLarge", DefaultMaxOpenBlocks+1, err)
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestOpenBlocksModel holds openBlocks to a map of the blocks open: the
// same answers to has, len and lowest after any run of adds and removes,
// blocks under 64 (the word's bits), at its edge and far above it.
func TestOpenBlocksModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var o openBlocks
		model := map[uint16]bool{}
		block := rapid.OneOf(rapid.Uint16Range(0, 70), rapid.Uint16())
		for range rapid.IntRange(0, 200).Draw(t, "steps") {
			b := block.Draw(t, "block")
			if rapid.Bool().Draw(t, "add") {
				o.add(b)
				model[b] = true
			} else {
				o.remove(b)
				delete(model, b)
			}
			probe := block.Draw(t, "probe")
			if got, want := o.has(probe), model[probe]; got != want {
				t.Fatalf("has(%d) = %v, want %v", probe, got, want)
			}
			got := []int{o.len()}
			want := []int{len(model)}
			if len(model) > 0 {
				lowest := -1
				for k := range model {
					if lowest < 0 || int(k) < lowest {
						lowest = int(k)
					}
				}
				got, want = append(got, int(o.lowest())), append(want, lowest)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("len and lowest (-model +openBlocks):\n%s", diff)
			}
		}
	})
}
