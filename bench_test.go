package anth_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/net/http2"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/ssejson"
)

// streamTokens is the length of the benchmarked response.
const streamTokens = 1000

// benchTokens is a 1,000-token response: each token's ID (u16, as most
// tokens of a 100k+ vocabulary are not, but the fast path is what a server
// with a ≤64k vocabulary gets), its wide ID, and its text, a word or a CJK
// character as a tokenizer emits them.
var benchTokens = func() (ts []struct {
	id, wide uint32
	text     string
}) {
	words := strings.Fields("Streaming an answer token by token is cheap for the model and costly on the wire 流 式 输 出 时 每 个 词 元 都 被 包 成 一 个 事 件 ANTH sends the same text in frames of a few bytes")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range streamTokens {
		w := words[i%len(words)]
		if w[0] < 0x80 {
			w = " " + w
		}
		ts = append(ts, struct {
			id, wide uint32
			text     string
		}{uint32(rng.IntN(1 << 16)), 65536 + uint32(rng.IntN(200_000-65536)), w})
	}
	return ts
}()

// A codec writes and reads the benchmarked response one token at a time, as
// a server and a client of one wire format would.
type codec struct {
	name   string
	write  func(w io.Writer)
	read   func(r io.Reader) int // returns tokens read, checked against the stream
	stream []byte
}

var codecs = []*codec{
	{name: "anth-token", write: func(w io.Writer) {
		fw := frame.NewWriter(w, frame.WriterOptions{})
		for _, t := range benchTokens {
			_ = fw.WriteToken(t.id)
		}
		_ = fw.WriteDone(frame.StopEndTurn, "")
	}, read: readANTH},
	{name: "anth-token32", write: func(w io.Writer) {
		fw := frame.NewWriter(w, frame.WriterOptions{})
		for _, t := range benchTokens {
			_ = fw.WriteToken(t.wide)
		}
		_ = fw.WriteDone(frame.StopEndTurn, "")
	}, read: readANTH},
	{name: "anth-text", write: func(w io.Writer) {
		fw := frame.NewWriter(w, frame.WriterOptions{})
		for _, t := range benchTokens {
			_ = fw.WriteText(0, []byte(t.text))
		}
		_ = fw.WriteDone(frame.StopEndTurn, "")
	}, read: readANTH},
	{name: "sse-json", write: func(w io.Writer) {
		var b []byte
		for _, t := range benchTokens {
			b = ssejson.AppendDelta(b[:0], 0, t.text)
			_, _ = w.Write(b)
		}
	}, read: func(r io.Reader) int {
		s := ssejson.NewScanner(r)
		n := 0
		for s.Next() == nil {
			if _, _, ok := s.DeltaText(); ok {
				n++
			}
		}
		return n
	}},
	{name: "http2-data", write: func(w io.Writer) {
		fr := http2.NewFramer(w, nil)
		for _, t := range benchTokens {
			_ = fr.WriteData(1, false, []byte(t.text))
		}
	}, read: func(r io.Reader) int {
		fr := http2.NewFramer(nil, r)
		n := 0
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				return n
			}
			if d, ok := f.(*http2.DataFrame); ok && len(d.Data()) > 0 {
				n++
			}
		}
	}},
}

// anthReader is one frame.Reader kept across iterations, as a client would
// keep one per connection.
var anthReader = frame.NewReader(nil, frame.ReaderOptions{})

// readANTH returns -1 for a response that does not end cleanly (SPEC
// §3.11), so TestBenchCodecs fails rather than a benchmark timing an error.
func readANTH(r io.Reader) int {
	anthReader.Reset(r)
	n := 0
	for {
		f, err := anthReader.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			return -1
		}
		switch f.Type {
		case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24:
			n += f.TokenCount()
		case frame.TypeText:
			n++
		}
	}
}

func init() {
	for _, c := range codecs {
		var b bytes.Buffer
		c.write(&b)
		c.stream = b.Bytes()
	}
}

// TestBenchCodecs checks that every benchmarked codec carries the whole
// response, so no benchmark measures a reader that stops early.
func TestBenchCodecs(t *testing.T) {
	for _, c := range codecs {
		if n := c.read(bytes.NewReader(c.stream)); n != streamTokens {
			t.Errorf("%s: read %d tokens back, want %d", c.name, n, streamTokens)
		}
	}
}

func reportPerToken(b *testing.B, c *codec) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/streamTokens, "ns/token")
	b.ReportMetric(float64(len(c.stream))/streamTokens, "B/token")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkWrite writes the 1,000-token response, one Write per token, into
// a reused buffer (what a server does into its socket).
func BenchmarkWrite(b *testing.B) {
	for _, c := range codecs {
		b.Run(c.name, func(b *testing.B) {
			var buf bytes.Buffer
			buf.Grow(len(c.stream))
			b.SetBytes(int64(len(c.stream)))
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				c.write(&buf)
			}
			reportPerToken(b, c)
		})
	}
}

// BenchmarkRead reads the 1,000-token response back, token by token, from
// memory (what a client does with its socket's bytes).
func BenchmarkRead(b *testing.B) {
	for _, c := range codecs {
		b.Run(c.name, func(b *testing.B) {
			r := bytes.NewReader(c.stream)
			b.SetBytes(int64(len(c.stream)))
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(c.stream)
				c.read(r)
			}
			reportPerToken(b, c)
		})
	}
}

// BenchmarkParse is the slice layer alone: frame.Parse over the stream.
func BenchmarkParse(b *testing.B) {
	for _, c := range codecs[:3] {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.stream)))
			b.ReportAllocs()
			for b.Loop() {
				p := c.stream[len(frame.Magic):]
				for len(p) > 0 {
					_, n, err := frame.Parse(p)
					if err != nil {
						b.Fatal(err)
					}
					p = p[n:]
				}
			}
			reportPerToken(b, c)
		})
	}
}

// BenchmarkAppend is the slice layer alone: AppendToken and AppendText into
// a reused buffer.
func BenchmarkAppend(b *testing.B) {
	buf := make([]byte, 0, 16<<10)
	b.Run("anth-token", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = buf[:0]
			for _, t := range benchTokens {
				buf = frame.AppendToken(buf, t.id)
			}
		}
		reportPerToken(b, codecs[0])
	})
	b.Run("anth-text", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = buf[:0]
			for _, t := range benchTokens {
				buf = frame.AppendText(buf, 0, []byte(t.text))
			}
		}
		reportPerToken(b, codecs[2])
	})
}
