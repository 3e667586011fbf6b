package resume_test

import (
	"testing"

	"github.com/layer0/anth/resume"
)

// BenchmarkMemoryStream is what a Memory costs one kept response: Start
// under a new ID and one Append a write, in the sizes of a recording of
// testdata/sse as the gateway keeps it for an ANTH client and for an
// event-stream client (its first write carries the response's head, its
// last, empty, ends it). The store is the default's size, and fills: in
// the steady state each response's tail evicts the oldest, as a busy
// gateway's does.
func BenchmarkMemoryStream(b *testing.B) {
	for _, c := range streamWrites {
		b.Run(c.name, func(b *testing.B) {
			m := resume.NewMemory(resume.MemoryOptions{})
			defer m.Close()
			info := resume.Info{Owner: resume.OwnerOf("k"), API: "/v1/messages", MaxBytes: 4 << 20}
			p := make([]byte, 1024)
			n := 0
			for _, w := range c.writes {
				n += w
			}
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				t, err := m.Start(bg, resume.NewID(), info)
				if err != nil {
					b.Fatal(err)
				}
				for i, w := range c.writes {
					if err := t.Append(bg, p[:w], i == len(c.writes)-1); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// streamWrites are the sizes of the writes of a recording of testdata/sse
// as the gateway keeps it (BenchmarkMemoryStream).
var streamWrites = []struct {
	name   string
	writes []int
}{
	{"anth", []int{91, 6, 16, 17, 133, 84, 6, 74, 6, 6, 7, 6, 196, 4, 0}},
	{"sse", []int{476, 142, 36, 147, 260, 213, 138, 194, 75, 117, 118, 79, 631, 57, 0}},
}

// BenchmarkMemoryStreamParallel is BenchmarkMemoryStream on every core at
// once (a goroutine a core, each keeping one stream after another), as a
// busy gateway's streams are: what the store's locks cost when its
// Appends come from every core.
func BenchmarkMemoryStreamParallel(b *testing.B) {
	for _, c := range streamWrites {
		b.Run(c.name, func(b *testing.B) {
			m := resume.NewMemory(resume.MemoryOptions{})
			defer m.Close()
			info := resume.Info{Owner: resume.OwnerOf("k"), API: "/v1/messages", MaxBytes: 4 << 20}
			n := 0
			for _, w := range c.writes {
				n += w
			}
			b.SetBytes(int64(n))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				p := make([]byte, 1024)
				for pb.Next() {
					t, err := m.Start(bg, resume.NewID(), info)
					if err != nil {
						b.Fatal(err)
					}
					for i, w := range c.writes {
						if err := t.Append(bg, p[:w], i == len(c.writes)-1); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		})
	}
}
