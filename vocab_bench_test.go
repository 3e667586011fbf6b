package anth_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"testing"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/vocab"
)

// tokenCorpus is a real text tokenized by a real tokenizer: testdata/tokens
// holds English prose and Go code, and the IDs tiktoken 1.0.22 gives them
// under cl100k_base and o200k_base (testdata/tokens/README.md).
type tokenCorpus struct {
	name string // "english/o200k_base"
	ids  []uint32
	v    *vocab.Vocabulary
}

func readIDs(tb testing.TB, path string) []uint32 {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	ids := make([]uint32, len(b)/4)
	for i := range ids {
		ids[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	return ids
}

func loadTiktoken(tb testing.TB, name string, specials map[string]uint32) *vocab.Vocabulary {
	tb.Helper()
	f, err := os.Open("vocab/testdata/" + name + ".tiktoken.gz")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	v, err := vocab.ParseTiktoken(data, specials)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

func tokenCorpora(tb testing.TB) []tokenCorpus {
	cl := loadTiktoken(tb, "cl100k_base", vocab.CL100KBaseSpecials())
	o2 := loadTiktoken(tb, "o200k_base", vocab.O200KBaseSpecials())
	var cs []tokenCorpus
	for _, text := range []string{"english", "code.go"} {
		cs = append(cs,
			tokenCorpus{text + "/cl100k_base", readIDs(tb, "testdata/tokens/"+text+".cl100k_base.ids"), cl},
			tokenCorpus{text + "/o200k_base", readIDs(tb, "testdata/tokens/"+text+".o200k_base.ids"), o2})
	}
	return cs
}

// appendVarintFrame is the denser ID frame SPEC.md §3.12 weighs and
// rejects: a TOKEN frame whose IDs are LEB128 varints.
func appendVarintFrame(b []byte, ids []uint32) []byte {
	var p []byte
	for _, id := range ids {
		p = binary.AppendUvarint(p, uint64(id))
	}
	b = append(b, 0x08, byte(len(p)>>8), byte(len(p)))
	return append(b, p...)
}

// bodyBytes returns the bytes of the response body that carries ids in
// frames made by appendFrame, flush tokens at a time, raw or in
// anth-deflate (the Messages dictionary, a record per flush).
func bodyBytes(c tokenCorpus, flush int, coded bool, appendFrame func(b []byte, ids []uint32) []byte) int {
	var out bytes.Buffer
	var w io.Writer = &out
	var z *deflate.Writer
	if coded {
		z = deflate.NewWriter(&out, deflate.NewDictionary([]byte(messages.EventDictionary)))
		w = z
	}
	var b []byte
	for i := 0; i < len(c.ids); i += flush {
		b = appendFrame(b[:0], c.ids[i:min(i+flush, len(c.ids))])
		w.Write(b)
		if z != nil {
			z.Flush()
		}
	}
	return out.Len()
}

// textFrames is the TEXT path: the same tokens' text, one TEXT frame a
// flush, as a server that detokenizes sends it.
func textFrames(v *vocab.Vocabulary) func(b []byte, ids []uint32) []byte {
	var t []byte
	return func(b []byte, ids []uint32) []byte {
		t = t[:0]
		for _, id := range ids {
			p, _ := v.Bytes(id)
			t = append(t, p...)
		}
		return frame.AppendText(b, 0, t)
	}
}

func tokenFrames(b []byte, ids []uint32) []byte { return frame.AppendToken(b, ids...) }

// tokenRuns writes a TOKEN frame for each run of narrow IDs and a TOKEN32
// frame for each run of wide ones, keeping a narrow run inside a wide frame
// when its own frame's header would cost more than the 2 bytes an ID saves.
func tokenRuns(b []byte, ids []uint32) []byte {
	for len(ids) > 0 {
		n := 1
		if ids[0] > 0xFFFF {
			// extend the wide frame over wide IDs and over narrow runs too short to pay their header
			for n < len(ids) {
				if ids[n] > 0xFFFF {
					n++
					continue
				}
				k := n
				for k < len(ids) && ids[k] <= 0xFFFF {
					k++
				}
				if k < len(ids) && 2*(k-n) < 2*frame.HeaderSize {
					n = k
					continue
				}
				break
			}
		} else {
			for n < len(ids) && ids[n] <= 0xFFFF {
				n++
			}
		}
		b = frame.AppendToken(b, ids[:n]...)
		ids = ids[n:]
	}
	return b
}

// BenchmarkTokenBytes reports the bytes a body spends per token, for IDs in
// TOKEN/TOKEN32 frames, in the varint frame SPEC.md §3.12 weighs, and for
// the same text in TEXT frames, raw and in anth-deflate, at one flush per
// token and one per 16. It measures bytes, not time: the figures SPEC.md
// §3.12 quotes.
func BenchmarkTokenBytes(b *testing.B) {
	for _, c := range tokenCorpora(b) {
		for _, flush := range []int{1, 16} {
			for _, enc := range []struct {
				name string
				f    func(b []byte, ids []uint32) []byte
			}{
				{"token", tokenFrames},
				{"token-runs", tokenRuns},
				{"varint", appendVarintFrame},
				{"text", textFrames(c.v)},
			} {
				for _, coded := range []bool{false, true} {
					name := c.name + "/flush=" + itoa(flush) + "/" + enc.name
					if coded {
						name += "/anth-deflate"
					} else {
						name += "/raw"
					}
					b.Run(name, func(b *testing.B) {
						var n int
						for b.Loop() {
							n = bodyBytes(c, flush, coded, enc.f)
						}
						b.ReportMetric(float64(n)/float64(len(c.ids)), "B/token")
					})
				}
			}
		}
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
