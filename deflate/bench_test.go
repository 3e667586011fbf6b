package deflate

import (
	"bytes"
	"compress/flate"
	"io"
	"testing"

	"github.com/layer0/anth/internal/textgen"
)

// BenchmarkRecord compresses one delta of generated English text (1 to 4
// tokens) per record, as a server does with a flush per token, against
// compress/flate doing the same at its best level (the size it reaches is
// in bytes/record).
func BenchmarkRecord(b *testing.B) {
	deltas := textgen.Response(textgen.English, 4000, 1)
	b.Run("anth-deflate", func(b *testing.B) {
		var out bytes.Buffer
		w := NewWriter(&out, nil)
		record(b, deltas, w, &out, 0)
	})
	b.Run("compress-flate-9", func(b *testing.B) {
		var out bytes.Buffer
		w, _ := flate.NewWriter(&out, flate.BestCompression)
		record(b, deltas, w, &out, len(syncMarker)-1) // the marker out, a length in
	})
}

func record(b *testing.B, text []string, w interface {
	io.Writer
	Flush() error
}, out *bytes.Buffer, saved int) {
	deltas := make([][]byte, len(text))
	for i, t := range text {
		deltas[i] = []byte(t)
	}
	b.ReportAllocs()
	var coded, n int
	for b.Loop() {
		d := deltas[n%len(deltas)]
		w.Write(d)
		w.Flush()
		coded += out.Len() - saved
		out.Reset()
		n++
	}
	b.ReportMetric(float64(coded)/float64(n), "bytes/record")
}

// BenchmarkRead inflates the records BenchmarkRecord writes.
func BenchmarkRead(b *testing.B) {
	deltas := textgen.Response(textgen.English, 4000, 1)
	var out bytes.Buffer
	w := NewWriter(&out, nil)
	for _, d := range deltas {
		w.Write([]byte(d))
		w.Flush()
	}
	coded := out.Bytes()
	var src bytes.Reader
	r := NewReader(&src, nil)
	buf := make([]byte, 64<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(coded)))
	for b.Loop() {
		src.Reset(coded)
		r.Reset(&src)
		for {
			if _, err := r.Read(buf); err != nil {
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(deltas)), "ns/record")
}
