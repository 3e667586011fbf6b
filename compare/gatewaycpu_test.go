package compare

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/internal/testdata"
)

var gatewayCPU = flag.Bool("gateway-cpu", false, "measure anth proxy's CPU per stream against a plain httputil.ReverseProxy, each in its own process (about two minutes)")

// gatewayResume makes TestGatewayCPU's table anth proxy keeping every
// stream in memory for resuming (--resume memory, SPEC.md §13) against
// anth proxy without a store, for SSE, ANTH and anth-deflate clients: what
// a held tail adds to a live stream, as issue 24 asks (at most 10 %),
// measured as an operator sees it.
var gatewayResume = flag.Bool("gateway-resume", false, "with -gateway-cpu, measure anth proxy --resume memory against anth proxy without a store instead")

// gatewayResumeMemory, if set, is the kept gateway's --resume-memory in
// TestGatewayCPU's resume table, and each measurement of either gateway
// is warmed up with enough streams to fill it (every tail is charged at
// least 1 KiB: its record's TailOverhead and a first chunk of 512 bytes or
// more), so that the store is at its bound, as a gateway's is once it has
// run for a while: each new tail takes the chunks of one it evicts. With
// the default store, 64 MiB, a fresh process's tails land in memory it
// has never touched, and on this VM a page's first touch costs about
// 10 µs (5.6 µs of it in the kernel), more than the store's own work on a
// short stream: a warm-up's cost, once per byte of the bound, that the
// steady state does not pay. A cell whose clients' responses, all at
// once, would not fit four times in the bound fails the test, as live
// tails would be evicted rather than kept (100 event streams of the
// recordings fill 256 KiB, which an earlier measurement used).
var gatewayResumeMemory = flag.Int64("gateway-resume-memory", 0, "with -gateway-resume, the kept gateway's --resume-memory (bytes), and a warm-up that fills it: the store at its bound, as a gateway's is once it has run a while (0: the default 64 MiB, filling while measured)")

// gatewayCells, if set, narrows TestGatewayCPU to the cells whose name
// matches it: workload/pace/keys/clients, as "english, SSE padded as
// sent/paced/sorted/100" ("at once" for the other pace, "API order" for
// the other keys), so a change can be measured before and after on a
// few cells in minutes rather than on all of them.
var gatewayCells = flag.String("gateway-cells", "", "with -gateway-cpu, measure only the cells whose workload/pace/keys/clients matches this regular expression")

// gatewayRuns is how many times -gateway-resume runs each gateway in a
// cell, in turn: the cell is the median of the ratios.
var gatewayRuns = flag.Int("gateway-runs", 3, "with -gateway-resume, how many times each cell runs the two gateways in turn (its ratio is the median)")

// gatewayScale multiplies the streams each cell fetches. A process's CPU
// a stream includes its garbage collector's, which runs in cycles of a few
// milliseconds each; at the default count, a cell's run of the recordings
// (40 of each, some 150 ms of CPU) holds a few of them, so a cycle more
// or less moves a run by 5 %, as much as what -gateway-resume measures.
// Ten times the streams make the runs agree within a few per cent.
var gatewayScale = flag.Int("gateway-scale", 1, "with -gateway-cpu, fetch this many times the streams a cell fetches by default, for a measurement whose runs the garbage collector's cycles (a few milliseconds each) weigh on alike")

// gatewayAnth, if set, are anth binaries TestGatewayCPU measures in place
// of the one it builds from this tree, comma-separated: each cell runs
// each in turn after the ReverseProxy, one column each, so that an old
// build and a new one are measured in the same session, under the same
// load, a cell apart at most.
var gatewayAnth = flag.String("gateway-anth", "", "with -gateway-cpu, comma-separated prebuilt anth binaries to measure in turn instead of building ./cmd/anth")

// TestGatewayCPU measures what issue 26 sets a goal for: the CPU a gateway
// process spends per stream, `anth proxy` against a plain
// httputil.ReverseProxy (./rproxy) relaying the same SSE, each in its own
// process, its CPU read from /proc before and after the load. An upstream in
// this process streams the workloads, flushing after each event, with its
// JSON keys in the API's order, sorted (as a server that decodes and
// re-encodes JSON writes them) and shuffled in every object (an order no
// fast path can guess); clients read whole streams, one at a time
// and 100 at once, as SSE, ANTH and anth-deflate. Run with -gateway-cpu; it
// prints a Markdown table.
func TestGatewayCPU(t *testing.T) {
	if !*gatewayCPU {
		t.Skip("a measurement: run with -gateway-cpu")
	}
	cells, err := regexp.Compile(*gatewayCells)
	if err != nil {
		t.Fatalf("-gateway-cells: %v", err)
	}
	dir := t.TempDir()
	anth, rproxy := filepath.Join(dir, "anth"), filepath.Join(dir, "rproxy")
	// anth is built in its own module (its dependencies, Prometheus's
	// client among them, are that module's), rproxy in this one.
	builds := [][]string{{anth, "./cmd/anth", ".."}, {rproxy, "./rproxy", "."}}
	anths := []string{anth}
	if *gatewayAnth != "" {
		anths, builds = strings.Split(*gatewayAnth, ","), builds[1:]
	}
	for _, b := range builds {
		cmd := exec.Command("go", "build", "-o", b[0], b[1])
		cmd.Dir = b[2]
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	wls := []workload{}
	for _, wl := range workloads(testdata.SSE(t), testdata.Chat(t)) {
		if wl.api == messagesAPI && (wl.name == "recordings"+paddedSuffix || wl.name == "english"+paddedSuffix) {
			wls = append(wls, wl)
		}
	}
	var out strings.Builder
	out.WriteString("\nGateway CPU per stream, µs (its own process, the CPU time of its threads from /proc; upstream and clients in this process; HTTP/1.1 on 127.0.0.1). Paced: the upstream sends an event every 250 µs (4,000 a second, so each arrives alone); at once: as fast as it can, so events pile up and a proxy reads many at a time:\n\n")
	if *gatewayResume {
		fmt.Fprintf(&out, "anth proxy without a store and with --resume memory, run in turn %d times a cell: the CPU of each (µs, medians) and kept/unkept (the median of the ratios, and their range):\n\n| workload | upstream | keys | clients at once | SSE | ANTH | anth-deflate |\n|---|---|---|---:|---:|---:|---:|\n", *gatewayRuns)
	} else if len(anths) > 1 {
		out.WriteString("| workload | upstream | keys | clients at once | ReverseProxy, SSE | anth | anth proxy, SSE | ANTH | anth-deflate |\n|---|---|---|---:|---:|---|---:|---:|---:|\n")
	} else {
		out.WriteString("| workload | upstream | keys | clients at once | ReverseProxy, SSE | anth proxy, SSE | ANTH | anth-deflate |\n|---|---|---|---:|---:|---:|---:|---:|\n")
	}
	for _, pace := range []time.Duration{250 * time.Microsecond, 0} {
		for _, wl := range wls {
			for _, order := range []string{"API order", "sorted", "shuffled"} {
				streams := wl.streams
				if order != "API order" {
					streams = nil
					rng := rand.New(rand.NewPCG(26, 5))
					for _, s := range wl.streams {
						if order == "sorted" {
							s = testdata.SortedKeys(t, s)
						} else {
							s = testdata.ShuffledKeys(t, s, rng)
						}
						streams = append(streams, s)
					}
				}
				up := upstreamOf(streams, pace)
				paced := "at once"
				if pace > 0 {
					paced = "paced"
				}
				for _, clients := range []int{1, 100} {
					if !cells.MatchString(fmt.Sprintf("%s/%s/%s/%d", wl.name, paced, order, clients)) {
						continue
					}
					n := max(len(streams)*40, 4*clients)
					if wl.deltas/len(wl.streams) > 1000 {
						n = max(40, 2*clients)
					}
					if pace > 0 && clients == 1 {
						n = len(streams) * 10
						if wl.deltas/len(wl.streams) > 1000 {
							n = 6
						}
					}
					n *= max(*gatewayScale, 1)
					n -= n % len(streams)
					warm := max(n/4, clients) // connections, pools
					if mem := *gatewayResumeMemory; *gatewayResume && mem > 0 {
						for _, st := range streams {
							if int64(4*clients*len(st)) > mem {
								t.Fatalf("-gateway-resume-memory %d: %d responses of %s at once (%d bytes each as SSE) would not fit four times", mem, clients, wl.name, len(st))
							}
						}
						warm = max(warm, int(mem/1024))
					}
					kinds := []struct{ accept, encoding string }{{acceptSSE, ""}, {anthclient.Accept, ""}, {anthclient.Accept, anthhttp.AcceptEncoding}}
					proxy := []string{anths[0], "proxy", "--listen", "127.0.0.1:0", "--upstream", up.URL}
					if *gatewayResume {
						// Without and with a store in turn, so that what
						// else runs on the machine weighs on both alike.
						fmt.Fprintf(&out, "| %s | %s | %s | %d |", wl.name, paced, order, clients)
						for _, c := range kinds {
							var unkept, kept, ratios []float64
							for range max(*gatewayRuns, 1) {
								keep := append(proxy, "--resume", "memory")
								if mem := *gatewayResumeMemory; mem > 0 {
									keep = append(keep, "--resume-memory", strconv.FormatInt(mem, 10))
								}
								u := proxyCPU(t, proxy, c.accept, c.encoding, warm, n, clients)
								k := proxyCPU(t, keep, c.accept, c.encoding, warm, n, clients)
								unkept, kept, ratios = append(unkept, u), append(kept, k), append(ratios, k/u)
							}
							slices.Sort(unkept)
							slices.Sort(kept)
							slices.Sort(ratios)
							mid, last := len(ratios)/2, len(ratios)-1
							fmt.Fprintf(&out, " %.0f → %.0f (×%.2f, ×%.2f–×%.2f) |", unkept[mid], kept[mid], ratios[mid], ratios[0], ratios[last])
						}
						out.WriteString("\n")
						t.Logf("%s, %s, %s keys, %d clients: done", wl.name, paced, order, clients)
						continue
					}
					base := proxyCPU(t, []string{rproxy, "127.0.0.1:0", up.URL}, acceptSSE, "", warm, n, clients)
					for i, a := range anths {
						if len(anths) > 1 {
							fmt.Fprintf(&out, "| %s | %s | %s | %d | %.0f | %s |", wl.name, paced, order, clients, base, filepath.Base(a))
						} else {
							fmt.Fprintf(&out, "| %s | %s | %s | %d | %.0f |", wl.name, paced, order, clients, base)
						}
						proxy[0] = anths[i]
						for _, c := range kinds {
							v := proxyCPU(t, proxy, c.accept, c.encoding, warm, n, clients)
							fmt.Fprintf(&out, " %.0f (%.2fx) |", v, v/base)
						}
						out.WriteString("\n")
					}
					t.Logf("%s, %s, %s keys, %d clients: done", wl.name, paced, order, clients)
				}
				up.Close()
			}
		}
	}
	fmt.Fprint(os.Stdout, out.String())
}

// upstreamOf serves the streams in turn, flushing after each event and,
// if pace is set, waiting that long before the next, as a model does that
// generates 1/pace events a second.
func upstreamOf(streams [][]byte, pace time.Duration) *httptest.Server {
	var next atomic.Int64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		s := streams[int(next.Add(1)-1)%len(streams)]
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for len(s) > 0 {
			n := bytes.Index(s, []byte("\n\n")) + 2
			if n < 2 {
				n = len(s)
			}
			w.Write(s[:n])
			rc.Flush()
			s = s[n:]
			if pace > 0 && len(s) > 0 {
				time.Sleep(pace)
			}
		}
	}))
}

// proxyCPU starts the proxy command, whose --listen or first argument is
// 127.0.0.1:0 replaced by a free port, fetches n streams through it with
// clients at once after warm streams, and returns its CPU per stream in
// µs, warm-up excluded.
func proxyCPU(t *testing.T, args []string, accept, encoding string, warm, n, clients int) float64 {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	args = append([]string(nil), args...)
	for i, a := range args {
		if a == "127.0.0.1:0" {
			args[i] = addr
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		cmd.Wait()
	}()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, DisableCompression: true}}
	get := func() error {
		req, _ := http.NewRequest("POST", "http://"+addr+"/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		if encoding != "" {
			req.Header.Set("Accept-Encoding", encoding)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for get() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("%s does not answer", args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A stream cut short is fetched again (a plain ReverseProxy cuts about
	// one in 400 here: "use of closed network connection" on its upstream
	// connection), so that n whole streams are measured; more than one in
	// 50 fails the test.
	var cut atomic.Int64
	run := func(n int) {
		var wg sync.WaitGroup
		var left atomic.Int64
		left.Store(int64(n))
		for range clients {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					for get() != nil {
						if cut.Add(1) > int64(n/50+1) {
							t.Errorf("%s: over %d streams cut", filepath.Base(args[0]), n/50+1)
							return
						}
					}
				}
			})
		}
		wg.Wait()
	}
	run(warm)
	before := cpuNanos(t, cmd.Process.Pid)
	run(n)
	after := cpuNanos(t, cmd.Process.Pid)
	return float64(after-before) / 1e3 / float64(n)
}

// cpuNanos returns a process's CPU time so far, in nanoseconds: the sum of
// its threads' time on a CPU (/proc/PID/task/*/schedstat), which counts in
// nanoseconds where /proc/PID/stat counts in 10 ms ticks.
func cpuNanos(t *testing.T, pid int) int64 {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no schedstat for process %d: %v", pid, err)
	}
	var sum int64
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that ended
		}
		v, _ := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
		sum += v
	}
	return sum
}
