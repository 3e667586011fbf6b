package messages

import (
	"errors"
	"io"
	"runtime"
	"testing"

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
	if grew := int64(liveHeap()) - int64(before); grew > 1<<20 || len(e.core.blocks) != 0 {
		t.Fatalf("after 65,536 blocks: %d blocks held, live heap grew %d bytes", len(e.core.blocks), grew)
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
