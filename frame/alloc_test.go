package frame

import (
	"bytes"
	"io"
	"testing"
)

// TestZeroAllocs pins the hot paths at zero allocations in steady state.
func TestZeroAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts need a normal run")
	}
	buf := make([]byte, 0, 1024)
	text := []byte("Hello, 世界")
	cases := map[string]func(){
		"AppendToken":      func() { buf = AppendToken(buf[:0], 42) },
		"AppendToken32":    func() { buf = AppendToken(buf[:0], 42, 200_000) },
		"AppendText":       func() { buf = AppendText(buf[:0], 1, text) },
		"AppendUsage":      func() { buf = AppendUsage(buf[:0], Usage{1, 2, 3}) },
		"AppendCacheUsage": func() { buf = AppendCacheUsage(buf[:0], CacheUsage{1, 2}) },
		"AppendError":      func() { buf = AppendError(buf[:0], CodeOverloaded, "Overloaded") },
		"AppendDone":       func() { buf = AppendDone(buf[:0], StopSequence, "###") },
		"AppendPad":        func() { buf = AppendPad(buf[:0], 17) },
		"AppendMagic":      func() { buf = AppendMagic(buf[:0]) },
		"AppendDelta":      func() { buf = AppendDelta(buf[:0], 1, DeltaThinking, text) },
		"AppendBlock":      func() { buf = AppendBlock(buf[:0], 1, BlockStop) },
		"AppendEvent":      func() { buf = AppendEvent(buf[:0], EventJSON, text[:3], text) },
	}
	frame := AppendText(AppendToken(nil, 7, 8), 0, text)
	var ids []uint32
	cases["Parse+accessors"] = func() {
		f, n, _ := Parse(frame)
		ids, _ = f.Tokens(ids[:0])
		g, _, _ := Parse(frame[n:])
		_, _, _ = g.Text()
	}

	stream := AppendMagic(nil)
	for range 1000 {
		stream = AppendToken(stream, 42)
	}
	br := bytes.NewReader(stream)
	r := NewReader(br, ReaderOptions{})
	cases["Reader.Next"] = func() {
		if _, err := r.Next(); err == io.EOF {
			br.Reset(stream)
			r.Reset(br)
		}
	}
	w := NewWriter(io.Discard, WriterOptions{})
	cases["Writer.WriteToken"] = func() { _ = w.WriteToken(42) }
	cases["Writer.WriteText"] = func() { _ = w.WriteText(0, text) }
	bw := NewWriter(io.Discard, WriterOptions{Batching: true, Padding: 16})
	cases["Writer batching+padding"] = func() { _ = bw.WriteToken(42) }

	for name, f := range cases {
		f() // warm up buffers
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", name, n)
		}
	}
}
