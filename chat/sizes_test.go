package chat

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/sse"
)

// codedSize returns the bytes of anth-deflate (SPEC.md §11) that carry the
// ANTH of src, with the chat dictionary and a flush after each event, as
// a gateway sends it; EVENTs raw inside (§11.2).
func codedSize(t testing.TB, src []byte) int {
	t.Helper()
	var out bytes.Buffer
	z := deflate.NewWriter(&out, eventDict())
	d := NewDecoder(bytes.NewReader(src), DecoderOptions{RawEvents: true})
	for {
		b, err := d.Next()
		if err == io.EOF {
			return out.Len()
		}
		if err != nil {
			t.Fatal(err)
		}
		z.Write(b)
		if err := z.Flush(); err != nil {
			t.Fatal(err)
		}
	}
}

// gzipSize returns the bytes of src in gzip (level 6) with a flush after
// each event, what a server compressing SSE sends.
func gzipSize(t testing.TB, src []byte) int {
	var out bytes.Buffer
	z, _ := gzip.NewWriterLevel(&out, 6)
	sc := sse.NewScanner(bytes.NewReader(src), 0)
	for {
		name, data, err := sc.Next()
		if err != nil {
			break
		}
		z.Write(sse.AppendEvent(nil, name, data))
		z.Flush()
	}
	z.Close()
	return out.Len()
}

// TestRecordingSizes measures every recording as SSE, as gzipped SSE, as
// ANTH and as anth-deflate, and requires ANTH to be smaller than the SSE
// and anth-deflate smaller than ANTH and than the gzipped SSE.
func TestRecordingSizes(t *testing.T) {
	t.Logf("%-60s %7s %7s %7s %7s %6s", "stream", "SSE", "gzip-6", "ANTH", "deflate", "chunks")
	for _, set := range []struct {
		name string
		recs map[string][]byte
	}{{"testdata/chat", testdata.Chat(t)}, {"testdata/chat-more", testdata.ChatMore(t)}} {
		var sum [4]int
		for _, name := range sortedNames(set.recs) {
			src := set.recs[name]
			s := [4]int{len(src), gzipSize(t, src), len(toANTH(t, src, DecoderOptions{})), codedSize(t, src)}
			chunks := bytes.Count(src, []byte("data: "))
			t.Logf("%-60s %7d %7d %7d %7d %6d", name, s[0], s[1], s[2], s[3], chunks)
			for i := range s {
				sum[i] += s[i]
			}
			if s[2] >= s[0] || s[3] >= s[2] || s[3] >= s[1] {
				t.Errorf("%s: SSE %d, gzip %d, ANTH %d, anth-deflate %d: not smaller in that order", name, s[0], s[1], s[2], s[3])
			}
		}
		t.Logf("%-60s %7d %7d %7d %7d", "all of "+set.name, sum[0], sum[1], sum[2], sum[3])
	}
}
