package compare

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/layer0/anth/internal/testdata"
)

var (
	report      = flag.Bool("report", false, "print every measurement as Markdown tables (CPU included)")
	bytesReport = flag.Bool("bytes", false, "print the byte tables and the floor, over HTTP/1.1 and HTTP/2 over TLS, without the CPU and real-time measurements")
)

// TestWire measures the bytes every scheme puts on the wire for every
// workload over HTTP/1.1 (and, with -report or -bytes, HTTP/2 over TLS),
// checks that each delivers the workload whole, and holds anth-deflate to
// issue 14's goals over HTTP/1.1: at most 0.8x the best compressed SSE on long
// responses, 0.75x on the recordings (0.85x on chat streams obfuscated as
// the OpenAI API sends them). Bytes are counted, not timed: the
// goals are deterministic. Over HTTP/2 with TLS every flush costs 31 bytes
// of framing whatever it carries (a 9-byte DATA header, a 22-byte TLS
// record), three times a coded delta: the ratios are reported, not held to
// the goal (README.md says by how much they miss it).
//
// Beside them it measures each workload's floor (floor.go) over the same
// transport, fails if any scheme sent less than it (a floor above an
// encoding would be a bug in the floor), and tabulates it against the
// issues' goals.
func TestWire(t *testing.T) {
	wls := workloads(testdata.SSE(t), testdata.Chat(t))
	ss := schemes()
	protos := []bool{false}
	if *report || *bytesReport {
		protos = append(protos, true)
	}
	var out strings.Builder
	var fc floors
	rc := floors{codecs: []textCodec{rawCodec}}
	var tfs []transportFloor
	for _, h2 := range protos {
		table := map[string][]measured{}
		for _, s := range ss {
			sv := newServer(s, h2)
			for _, wl := range wls {
				m := sv.fetch(t, s, wl)
				checkReading(t, s, wl, m, "HTTP/1.1")
				table[s.name] = append(table[s.name], m)
			}
			sv.close()
		}
		proto := "HTTP/1.1"
		if h2 {
			proto = "HTTP/2 over TLS"
		}
		fmt.Fprintf(&out, "\nBytes the server writes per delta, %s on 127.0.0.1, one flush per event (packets per delta in brackets):\n\n", proto)
		out.WriteString("| scheme |")
		for _, wl := range wls {
			fmt.Fprintf(&out, " %s |", wl.name)
		}
		out.WriteString("\n|---|" + strings.Repeat("---:|", len(wls)) + "\n")
		for _, s := range ss {
			fmt.Fprintf(&out, "| %s |", s.name)
			for i, wl := range wls {
				m := table[s.name][i]
				fmt.Fprintf(&out, " %.1f (%.2f) |", float64(m.bytes)/float64(wl.deltas), float64(m.writes)/float64(wl.deltas))
			}
			out.WriteString("\n")
		}
		best := make([]int64, len(wls))
		bestName := make([]string, len(wls))
		for _, s := range ss {
			for i := range wls {
				if m := table[s.name][i]; s.baseline && (best[i] == 0 || m.bytes < best[i]) {
					best[i], bestName[i] = m.bytes, s.name
				}
			}
		}
		for _, def := range []string{"ANTH + anth-deflate", browserScheme} {
			fmt.Fprintf(&out, "| **%s / best compressed SSE** |", strings.Replace(def, "ANTH + ", "", 1))
			for i, wl := range wls {
				ratio := float64(table[def][i].bytes) / float64(best[i])
				fmt.Fprintf(&out, " **%.3fx** |", ratio)
				if goal := wireGoal(wl); ratio > goal && !h2 {
					t.Errorf("%s, %s, %s: %.3fx %s, goal %.2fx", proto, def, wl.name, ratio, bestName[i], goal)
				}
			}
			out.WriteString("\n")
		}
		out.WriteString("| best compressed SSE |")
		for i := range wls {
			fmt.Fprintf(&out, " %s |", strings.SplitN(bestName[i], " (", 2)[0])
		}
		out.WriteString("\n")
		tf := transportFloor{proto: proto, table: table, best: best, bestName: bestName, floor: measureFloor(t, &fc, wls, h2)}
		tf.raw = measureFloor(t, &rc, wls, h2)
		tf.perFlush, tf.fixed = framing(t, h2)
		checkFloor(t, proto, ss, wls, table, tf.floor, tf.raw)
		tfs = append(tfs, tf)
	}
	for _, tf := range tfs {
		floorTable(&out, wls, tf)
	}
	for _, tf := range tfs {
		flushTable(&out, wls, tf)
	}
	goalsTable(&out, wls, tfs)
	sharesTable(t, &out, []workload{wls[0], wls[slices.IndexFunc(wls, func(wl workload) bool { return wl.name == chatPrefix+"recordings" })]})
	if *report || *bytesReport {
		fmt.Fprint(os.Stdout, out.String())
	}
	if *report {
		out.Reset()
		cpuTables(&out, wls)
		coalescingTable(t, &out)
		fmt.Fprint(os.Stdout, out.String())
	}
	if !*report && !*bytesReport {
		t.Log(out.String())
	}
}

// cpuTables measures the server's and the client's CPU per delta for every
// scheme on the workloads as the API sends them (padded), and the ratios
// issue 14 sets goals for: anth-deflate against SSE + gzip 5 (at most 0.5x
// on the server, 0.2x on the client).
func cpuTables(out *strings.Builder, all []workload) {
	var wls []workload
	for _, wl := range all {
		if strings.HasSuffix(wl.name, paddedSuffix) {
			wls = append(wls, wl)
		}
	}
	for _, side := range []struct {
		name string
		cost func(*testing.B, scheme, workload)
		goal float64
	}{{"server", serverCost, 0.5}, {"client", clientCost, 0.2}} {
		fmt.Fprintf(out, "\n%s CPU per delta, ns (a flush per event; each cell one testing.Benchmark run):\n\n| scheme |", side.name)
		for _, wl := range wls {
			fmt.Fprintf(out, " %s |", wl.name)
		}
		out.WriteString("\n|---|" + strings.Repeat("---:|", len(wls)) + "\n")
		ns := map[string][]float64{}
		for _, s := range schemes() {
			fmt.Fprintf(out, "| %s |", s.name)
			for _, wl := range wls {
				r := testing.Benchmark(func(b *testing.B) { side.cost(b, s, wl) })
				v := float64(r.T.Nanoseconds()) / float64(r.N*wl.deltas)
				ns[s.id] = append(ns[s.id], v)
				fmt.Fprintf(out, " %.0f |", v)
			}
			out.WriteString("\n")
		}
		fmt.Fprintf(out, "| **anth-deflate / SSE + gzip 5** (goal %.1fx) |", side.goal)
		for i := range wls {
			fmt.Fprintf(out, " **%.2fx** |", ns["anth-deflate"][i]/ns["sse-gzip5"][i])
		}
		out.WriteString("\n")
	}
}

// coalescingTable streams generated tokens in real time and tabulates the
// packets and bytes per 1,000 tokens of each generator at each rate.
func coalescingTable(t *testing.T, out *strings.Builder) {
	out.WriteString("\nA server generating tokens, HTTP/1.1 on 127.0.0.1: packets (server writes) and bytes per 1,000 tokens:\n\n| server |")
	for _, r := range rates {
		fmt.Fprintf(out, " %d tokens/s |", r.perSecond)
	}
	out.WriteString("\n|---|" + strings.Repeat("---:|", len(rates)) + "\n")
	for _, g := range generators() {
		fmt.Fprintf(out, "| %s |", g.name)
		for _, r := range rates {
			packets, bytes := stream(t, g, r.perSecond, r.tokens)
			fmt.Fprintf(out, " %.0f packets, %.0f B |", packets, bytes)
		}
		out.WriteString("\n")
	}
}

// wireGoal is the bound TestWire holds anth-deflate to over HTTP/1.1, for a
// client of the project and for a browser alike: issue 26's 0.70x on the
// recordings and 0.75x on long responses. Chat Completions streams are held
// to the same; issue 22's 0.5x is reported, unmet, by goalsTable.
func wireGoal(wl workload) float64 {
	switch {
	case strings.HasSuffix(wl.name, "recordings"):
		return 0.70
	case strings.HasSuffix(wl.name, obfuscatedSuffix):
		// The obfuscation costs both sides about the same, ~11 bytes a
		// chunk (SPEC.md §7b.4 keeps its entropy in a coded PAD), which
		// pulls the ratio toward 1: 0.75x when kept.
		return 0.80
	}
	return 0.75
}
