package resume_test

import (
	"testing"

	"github.com/layer0/anth/resume"
)

// BenchmarkMemoryStream is what a Memory costs one kept response: Start
// under a new ID and one Append a write, in the sizes of a recording of
// testdata/sse as the gateway keeps it for an ANTH client and for an
// event-stream client (its first write carries the response's head, its
// last, empty, ends it), and the two in turn ("mixed"), as a gateway
// serving both keeps them. The store is the default's size, and fills: in
// the steady state each response's tail evicts the oldest, as a busy
// gateway's does.
func BenchmarkMemoryStream(b *testing.B) {
	for _, c := range streamShapes {
		b.Run(c.name, func(b *testing.B) {
			m := resume.NewMemory(resume.MemoryOptions{})
			defer m.Close()
			stream := keepStream(b, m, c.shapes)
			for b.Loop() {
				stream()
			}
		})
	}
}

// streamShapes are the sizes of the writes of a recording of testdata/sse
// as the gateway keeps it, for BenchmarkMemoryStream's cases: the
// streams of a case take its shapes in turn.
var streamShapes = []struct {
	name   string
	shapes [][]int
}{
	{"anth", [][]int{anthWrites}},
	{"sse", [][]int{sseWrites}},
	{"mixed", [][]int{anthWrites, sseWrites}},
}

// The writes of a recording of testdata/sse as the gateway keeps them
// for an ANTH client and for an event stream; the spare tests take the
// same shapes.
var (
	anthWrites = []int{91, 6, 16, 17, 133, 84, 6, 74, 6, 6, 7, 6, 196, 4, 0}
	sseWrites  = []int{476, 142, 36, 147, 260, 213, 138, 194, 75, 117, 118, 79, 631, 57, 0}
)

// keepStream sets b's bytes a stream and returns a func that keeps the
// next stream in m, each of shapes in turn.
func keepStream(b *testing.B, m *resume.Memory, shapes [][]int) func() {
	info := resume.Info{Owner: resume.OwnerOf("k"), API: "/v1/messages", MaxBytes: 4 << 20}
	p := make([]byte, 1024)
	n := 0
	for _, writes := range shapes {
		for _, w := range writes {
			n += w
		}
	}
	b.SetBytes(int64(n / len(shapes)))
	b.ReportAllocs()
	turn := 0
	return func() {
		writes := shapes[turn%len(shapes)]
		turn++
		t, err := m.Start(bg, resume.NewID(), info)
		if err != nil {
			b.Fatal(err)
		}
		for i, w := range writes {
			if err := t.Append(bg, p[:w], i == len(writes)-1); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkMemoryStreamParallel is BenchmarkMemoryStream on every core at
// once (a goroutine a core, each keeping one stream after another), as a
// busy gateway's streams are: what the store's locks cost when its
// Appends come from every core.
func BenchmarkMemoryStreamParallel(b *testing.B) {
	for _, c := range streamShapes {
		b.Run(c.name, func(b *testing.B) {
			m := resume.NewMemory(resume.MemoryOptions{})
			defer m.Close()
			b.RunParallel(func(pb *testing.PB) {
				stream := keepStream(b, m, c.shapes)
				for pb.Next() {
					stream()
				}
			})
		})
	}
}
