package deflate_test

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/messages"
)

// eventCorpus returns the events the bridge carries in EVENT frames, from
// the recordings in testdata/sse: every event but content_block_delta, ping
// and message_stop, its JSON compacted, in file order.
func eventCorpus(t testing.TB) [][]byte {
	t.Helper()
	files, err := filepath.Glob("../testdata/sse/*.sse")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	sort.Strings(files)
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:"))
			if !ok {
				continue
			}
			var ev struct{ Type string }
			if json.Unmarshal(line, &ev) != nil {
				continue
			}
			switch ev.Type {
			case "content_block_delta", "ping", "message_stop":
				continue
			}
			var c bytes.Buffer
			if json.Compact(&c, bytes.TrimSpace(line)) != nil {
				continue
			}
			out = append(out, c.Bytes())
		}
	}
	return out
}

// flate9 is compress/flate at its best level with the EVENT dictionary,
// closed: the size AppendBlock aims at.
func flate9(dict []byte, src []byte) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriterDict(&buf, flate.BestCompression, dict)
	w.Write(src)
	w.Close()
	return buf.Bytes()
}

var eventDict = deflate.NewDictionary([]byte(messages.EventDictionary))

// BenchmarkAppendBlock codes the corpus of events, one event per op, with
// AppendBlock and with compress/flate level 9 (a new Writer per event, as
// a value without state between values needs); bytes/event is the mean
// coded size.
func BenchmarkAppendBlock(b *testing.B) {
	corpus := eventCorpus(b)
	b.Run("appendblock", func(b *testing.B) {
		b.ReportAllocs()
		dst := make([]byte, 0, 64<<10)
		var coded, n int
		for b.Loop() {
			dst = deflate.AppendBlock(dst[:0], corpus[n%len(corpus)], eventDict)
			coded += len(dst)
			n++
		}
		b.ReportMetric(float64(coded)/float64(n), "bytes/event")
	})
	b.Run("flate9-dict", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		w, _ := flate.NewWriterDict(&buf, flate.BestCompression, eventDict.Bytes())
		var coded, n int
		for b.Loop() {
			buf.Reset()
			w.Reset(&buf)
			w.Write(corpus[n%len(corpus)])
			w.Close()
			coded += buf.Len()
			n++
		}
		b.ReportMetric(float64(coded)/float64(n), "bytes/event")
	})
}

// TestEventCorpusSize prints each event's coded size against flate-9's
// (go test -v) and fails if AppendBlock's total exceeds flate-9's by more
// than the margin.
func TestEventCorpusSize(t *testing.T) {
	const margin = 0.94 // AppendBlock total / flate-9 total, at most
	corpus := eventCorpus(t)
	var ours, theirs, raw int
	for _, ev := range corpus {
		z := deflate.AppendBlock(nil, ev, eventDict)
		f := flate9(eventDict.Bytes(), ev)
		var inf deflate.Inflater
		got, err := inf.Inflate(z, eventDict, 1<<20)
		if err != nil || !bytes.Equal(got, ev) {
			t.Fatalf("event %.60s does not round-trip: %v", ev, err)
		}
		ours += len(z)
		theirs += len(f)
		raw += len(ev)
		t.Logf("%5d %5d %5d  %.70s", len(ev), len(z), len(f), ev)
	}
	t.Logf("%d events, %d bytes: AppendBlock %d, flate-9 %d (%.3fx)", len(corpus), raw, ours, theirs, float64(ours)/float64(theirs))
	if float64(ours) > margin*float64(theirs) {
		t.Errorf("AppendBlock codes the corpus in %d bytes, over %.2fx flate-9's %d", ours, margin, theirs)
	}
}
