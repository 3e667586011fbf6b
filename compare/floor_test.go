package compare

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
)

// floorScheme serves the floor of each stream (floors.stream): a record a
// write and a flush per event, with no header that net/http lets a handler
// leave out (no Content-Type, no Date), so that what the server writes
// beside the records is the transport's own framing. Its client reads the
// body whole, as its text, for the test to compare with what was served.
func floorScheme(f *floors) scheme {
	return scheme{id: "floor", name: "floor", serve: func(w http.ResponseWriter, r *http.Request, upstream []byte, a *api) {
		fs, err := f.stream(a, upstream)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		serveFlushes(w, fs.payloads)
	}, read: readBody}
}

// serveFlushes writes each payload and flushes it, with only the headers
// net/http insists on.
func serveFlushes(w http.ResponseWriter, payloads [][]byte) {
	h := w.Header()
	h["Content-Type"] = nil // a nil value is net/http's way to send none
	h["Date"] = nil
	rc := http.NewResponseController(w)
	for _, p := range payloads {
		w.Write(p)
		rc.Flush()
	}
}

func readBody(resp *http.Response, _ *api) (reading, error) {
	b, err := io.ReadAll(resp.Body)
	return reading{text: string(b)}, err
}

// floorMeasured is the floor of one workload on one transport: the bytes
// the server wrote for it, of which content were its records.
type floorMeasured struct {
	bytes, content int64
	codecs         []string // the codec of each stream
}

// measureFloor serves every workload's floor over the transport and counts
// what the server writes, as TestWire counts every scheme; it fails the
// test if the client did not get exactly the records.
func measureFloor(t *testing.T, f *floors, wls []workload, h2 bool) []floorMeasured {
	s := floorScheme(f)
	sv := newServer(s, h2)
	defer sv.close()
	out := make([]floorMeasured, len(wls))
	for i, wl := range wls {
		var want bytes.Buffer
		fm := &out[i]
		for _, st := range wl.streams {
			fs, err := f.stream(wl.api, st)
			if err != nil {
				t.Fatalf("%s: %v", wl.name, err)
			}
			for _, p := range fs.payloads {
				want.Write(p)
			}
			fm.codecs = append(fm.codecs, fs.codec)
		}
		fm.content = int64(want.Len())
		m := sv.fetch(t, s, wl)
		if m.text != want.String() {
			t.Fatalf("%s: the floor's client got %d bytes, want the %d of its records", wl.name, len(m.text), want.Len())
		}
		fm.bytes = m.bytes
	}
	return out
}

// framing measures what the transport costs a flush whatever it carries:
// the bytes the server writes for n and 2n flushes of one byte each, less
// the bytes, over n flushes. The rest of a response's framing (status
// line, headers, its end) is fixed.
func framing(t *testing.T, h2 bool) (perFlush float64, fixed int64) {
	const n = 1000
	s := scheme{id: "framing", name: "one byte a flush", serve: func(w http.ResponseWriter, r *http.Request, upstream []byte, _ *api) {
		serveFlushes(w, bytes.SplitAfter(upstream, []byte("x"))[:len(upstream)])
	}, read: readBody}
	sv := newServer(s, h2)
	defer sv.close()
	// The least of three responses: over HTTP/2 a control frame (a
	// SETTINGS acknowledgement, 31 bytes in its record) may land in the
	// bytes counted for one of them.
	cost := func(k int) int64 {
		up := bytes.Repeat([]byte("x"), k)
		least := int64(-1)
		for range 3 {
			m := sv.fetch(t, s, workload{name: s.name, api: messagesAPI, streams: [][]byte{up}})
			if m.text != string(up) {
				t.Fatalf("%d flushes of a byte: the client got %d bytes", k, len(m.text))
			}
			if least < 0 || m.bytes < least {
				least = m.bytes
			}
		}
		return least - int64(k)
	}
	one, two := cost(n), cost(2*n)
	perFlush = float64(two-one) / n
	return perFlush, one - int64(perFlush*n)
}

// checkFloor fails the test where a floor is above what a scheme sent for
// the same workload over the same transport: a floor is a lower bound, so
// that would be a bug in the floor.
// The floor with the text as is bounds only the encodings that send it so:
// plain ANTH, padded or not.
func checkFloor(t *testing.T, proto string, ss []scheme, wls []workload, table map[string][]measured, fl, raw []floorMeasured) {
	t.Helper()
	for _, s := range ss {
		for i, wl := range wls {
			m := table[s.name][i]
			if fl[i].bytes > m.bytes {
				t.Errorf("%s, %s: the floor is %d bytes, above the %d of %s", proto, wl.name, fl[i].bytes, m.bytes, s.name)
			}
			if (s.id == "anth" || s.id == "anth-pad16") && raw[i].bytes > m.bytes {
				t.Errorf("%s, %s: the floor with the text as is is %d bytes, above the %d of %s", proto, wl.name, raw[i].bytes, m.bytes, s.name)
			}
		}
	}
}

// TestFloorRecords: each codec's records decode to the texts they code
// (checked inside the codec), the floor takes the smallest, and a text's
// record is smaller than the text once the stream has context: the
// floor's content is compressed, not the text.
func TestFloorRecords(t *testing.T) {
	var f floors
	st := generatedChat("english", false)
	fs, err := f.stream(chatAPI, st)
	if err != nil {
		t.Fatal(err)
	}
	evs := events(st)
	if len(fs.payloads) != len(evs) {
		t.Fatalf("%d payloads for %d events", len(fs.payloads), len(evs))
	}
	var text, rec int
	for i, ev := range evs {
		_, tx := chatAPI.count(ev)
		text += len(tx)
		if tx == "" && !bytes.Equal(fs.payloads[i], []byte{0}) {
			t.Errorf("event %d carries no text and costs %d bytes, want 1", i, len(fs.payloads[i]))
		}
		if tx != "" {
			rec += len(fs.payloads[i])
		}
	}
	if rec != fs.text || rec >= text {
		t.Errorf("records %d bytes (floorStream says %d) for %d bytes of text", rec, fs.text, text)
	}
	for _, c := range textCodecs {
		var texts [][]byte
		for _, ev := range evs {
			if _, tx := chatAPI.count(ev); tx != "" {
				texts = append(texts, []byte(tx))
			}
		}
		recs, err := c.records(texts, chatAPI.client.Dictionary().Bytes())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := 0
		for _, r := range recs {
			n += len(r)
		}
		if n < fs.text {
			t.Errorf("%s codes the text in %d bytes, under the floor's %d (%s)", c.name, n, fs.text, fs.codec)
		}
	}
}

// anthShares tallies the frames of plain ANTH for every stream of wl, as
// anthhttp.Proxy writes them, by what they carry: the bytes ANTH spends
// beside the text the floor counts.
func anthShares(t *testing.T, wl workload) (shares map[string]int64, total int64) {
	shares = map[string]int64{}
	for _, st := range wl.streams {
		req := httptest.NewRequest("POST", wl.api.path, nil)
		req.Header.Set("Accept", anthclient.Accept)
		rec := httptest.NewRecorder()
		anthhttp.Proxy(rec, req, &testdata.EventReader{Rest: st}, wl.api.gateway, anthhttp.ProxyOptions{})
		body := rec.Body.Bytes()
		total += int64(len(body))
		r := frame.NewReader(bytes.NewReader(body), frame.ReaderOptions{RawFrames: true})
		var framed int64
		for f, err := range r.All() {
			if err != nil && !expectedError(st) {
				t.Fatalf("%s: %v", wl.name, err)
			}
			if err != nil {
				break
			}
			framed += int64(f.Size())
			if f.Type == frame.TypeText {
				_, text, _ := f.Text()
				shares["TEXT: the text"] += int64(len(text))
				shares["TEXT: frame headers and block numbers"] += int64(f.Size() - len(text))
				continue
			}
			shares[f.Type.String()] += int64(f.Size())
		}
		shares["magic"] += int64(len(body)) - framed
	}
	return shares, total
}

// sharesTable prints anthShares for the workloads given, a column each.
func sharesTable(t *testing.T, out *strings.Builder, wls []workload) {
	out.WriteString("\nWhat plain ANTH carries beside the text, bytes per delta (its frames as `anthhttp.Proxy` writes them, before HTTP; the floor counts the text, compressed, and a byte for each event without text):\n\n| frames |")
	var cols []map[string]int64
	var totals []int64
	kinds := map[string]bool{}
	for _, wl := range wls {
		fmt.Fprintf(out, " %s |", wl.name)
		sh, total := anthShares(t, wl)
		cols, totals = append(cols, sh), append(totals, total)
		for k := range sh {
			kinds[k] = true
		}
	}
	out.WriteString("\n|---|" + strings.Repeat("---:|", len(wls)) + "\n")
	var names []string
	for k := range kinds {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(out, "| %s |", k)
		for i, wl := range wls {
			fmt.Fprintf(out, " %.1f (%.0f%%) |", float64(cols[i][k])/float64(wl.deltas), 100*float64(cols[i][k])/float64(totals[i]))
		}
		out.WriteString("\n")
	}
	out.WriteString("| **all** |")
	for i, wl := range wls {
		fmt.Fprintf(out, " **%.1f** |", float64(totals[i])/float64(wl.deltas))
	}
	out.WriteString("\n")
}

// transportFloor is what TestWire measured on one transport, for the floor
// tables.
type transportFloor struct {
	proto    string
	table    map[string][]measured
	best     []int64
	bestName []string
	floor    []floorMeasured
	raw      []floorMeasured // the floor of an encoding that sends the text as is
	perFlush float64         // framing a flush of one byte, measured
	fixed    int64           // framing a response, measured
}

func eventCount(wl workload) int {
	n := 0
	for _, s := range wl.streams {
		n += len(events(s))
	}
	return n
}

// floorTable prints, for one transport, the floor of every workload beside
// what the best compressed SSE, ANTH and anth-deflate sent.
func floorTable(out *strings.Builder, wls []workload, tf transportFloor) {
	fmt.Fprintf(out, "\nThe floor, %s, one flush per event, bytes per delta: the transport's framing (measured: %.0f bytes a flush of one byte, %d a response) and the content (the text's records under the codec that codes a stream's text smallest, a byte for each event without text), beside what was sent:\n\n", tf.proto, tf.perFlush, tf.fixed)
	out.WriteString("| workload | best compressed SSE | ANTH | anth-deflate | floor | floor: framing | floor: content | codec | floor, text as is | ANTH / best | anth-deflate / best | **floor / best** | **floor, text as is / best** |\n|---|" + strings.Repeat("---:|", 6) + "---|" + strings.Repeat("---:|", 5) + "\n")
	for i, wl := range wls {
		d := float64(wl.deltas)
		fl := tf.floor[i]
		anth, def := tf.table["ANTH"][i].bytes, tf.table["ANTH + anth-deflate"][i].bytes
		best := float64(tf.best[i])
		raw := float64(tf.raw[i].bytes)
		fmt.Fprintf(out, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %.1f | %.3fx | %.3fx | **%.3fx** | **%.3fx** |\n", wl.name,
			best/d, float64(anth)/d, float64(def)/d, float64(fl.bytes)/d, float64(fl.bytes-fl.content)/d, float64(fl.content)/d,
			codecSummary(fl.codecs), raw/d, float64(anth)/best, float64(def)/best, float64(fl.bytes)/best, raw/best)
	}
}

// codecSummary names the codecs the floor took for a workload's streams,
// with how many streams each when they differ.
func codecSummary(codecs []string) string {
	n := map[string]int{}
	var names []string
	for _, c := range codecs {
		if n[c] == 0 {
			names = append(names, c)
		}
		n[c]++
	}
	if len(names) == 1 {
		return names[0]
	}
	var parts []string
	for _, c := range names {
		parts = append(parts, fmt.Sprintf("%s (%d)", c, n[c]))
	}
	return strings.Join(parts, ", ")
}

// flushTable prints, for the long responses on one transport, the floor
// and anth-deflate a flush: what issue 26 asks of HTTP/2 over TLS, where
// the framing is most of a flush.
func flushTable(out *strings.Builder, wls []workload, tf transportFloor) {
	fmt.Fprintf(out, "\nLong responses, %s: bytes a flush (a flush an event). The framing is the floor's own (its bytes less its records, a flush); anth-deflate's coded delta is what it sent a flush less that framing:\n\n", tf.proto)
	out.WriteString("| workload | framing | floor: content | floor | anth-deflate | anth-deflate: coded delta | coded delta / floor's content | **anth-deflate / floor** |\n|---|" + strings.Repeat("---:|", 7) + "\n")
	for i, wl := range wls {
		if len(wl.streams) != 1 {
			continue // the recordings: headers and short streams, not flushes, set their cost
		}
		ev := float64(eventCount(wl))
		fl := tf.floor[i]
		framing := float64(fl.bytes-fl.content) / ev
		def := float64(tf.table["ANTH + anth-deflate"][i].bytes) / ev
		content := float64(fl.content) / ev
		floor := float64(fl.bytes) / ev
		fmt.Fprintf(out, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.2fx | **%.3fx** |\n", wl.name, framing, content, floor, def, def-framing, (def-framing)/content, def/floor)
	}
}

// A goal is a bound an issue sets on a ratio to the best compressed SSE.
type goal struct {
	issue     string
	scheme    string // a scheme's name: "ANTH", "ANTH + anth-deflate" or browserScheme
	bound     float64
	workloads []string
	protos    []string
}

var goals = []goal{
	{"22", "ANTH + anth-deflate", 0.5, []string{"openai recordings", "openai english", "openai chinese", "openai code"}, []string{"HTTP/1.1", "HTTP/2 over TLS"}},
	{"22", "ANTH", 0.6, []string{"openai recordings", "openai english", "openai chinese", "openai code"}, []string{"HTTP/1.1", "HTTP/2 over TLS"}},
	{"26", "ANTH + anth-deflate", 0.75, []string{"english", "chinese", "code"}, []string{"HTTP/1.1"}},
	{"26", "ANTH + anth-deflate", 0.70, []string{"recordings"}, []string{"HTTP/1.1"}},
	{"26", browserScheme, 0.75, []string{"english", "chinese", "code"}, []string{"HTTP/1.1"}},
	{"26", browserScheme, 0.70, []string{"recordings"}, []string{"HTTP/1.1"}},
}

// goalsTable sets each goal beside what was measured and the floor: a goal
// under the floor cannot be met at one flush per event, by any encoding.
func goalsTable(out *strings.Builder, wls []workload, tfs []transportFloor) {
	out.WriteString("\nThe byte goals, measured and floor (ratios to the best compressed SSE, like for like):\n\n| issue | scheme | workload | transport | goal | measured | floor | floor, text as is | verdict |\n|---|---|---|---|---:|---:|---:|---:|---|\n")
	for _, g := range goals {
		for _, name := range g.workloads {
			i := slices.IndexFunc(wls, func(wl workload) bool { return wl.name == name })
			for _, tf := range tfs {
				if i < 0 || !slices.Contains(g.protos, tf.proto) {
					continue
				}
				best := float64(tf.best[i])
				got := float64(tf.table[g.scheme][i].bytes) / best
				fl := float64(tf.floor[i].bytes) / best
				raw := float64(tf.raw[i].bytes) / best
				verdict := "not met (the floor is under the goal)"
				switch {
				case got <= g.bound:
					verdict = "met"
				case fl > g.bound:
					verdict = "**cannot be met** at one flush per event, by any encoding"
				case g.scheme == "ANTH" && raw > g.bound:
					verdict = "**cannot be met** at one flush per event without compressing the text, which plain ANTH does not"
				}
				fmt.Fprintf(out, "| %s | %s | %s | %s | %.2fx | %.3fx | %.3fx | %.3fx | %s |\n", g.issue, g.scheme, name, tf.proto, g.bound, got, fl, raw, verdict)
			}
		}
	}
}
