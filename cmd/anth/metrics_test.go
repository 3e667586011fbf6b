package main

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/layer0/anth/anthhttp"
)

// scrape GETs the proxy's /metrics and parses it as the text exposition
// format.
func scrape(t *testing.T, p *proxyProc) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := testClient.Get("http://" + p.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mf, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics is not the text exposition format: %v", err)
	}
	return mf
}

// metricValue is the value of the series of family name whose labels are
// labels (name=value pairs), and whether there is one: a counter's or
// gauge's value, a histogram's sample count.
func metricValue(mf map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := mf[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		match := len(have) == len(labels)/2
		for i := 0; match && i < len(labels); i += 2 {
			match = have[labels[i]] == labels[i+1]
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestProxyMetrics: /metrics on --metrics-listen, scraped and parsed,
// counts what was served: a stream in flight, then an ANTH stream and an
// SSE one whole, a request passed through, an upstream that resets the
// connection; and the
// API's address does not serve it.
func TestProxyMetrics(t *testing.T) {
	first, rest := textResponseSSE()
	up := newHeld(first, rest)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/messages":
			if r.Header.Get("X-Case") == "reset" { // before any header
				conn, _, _ := http.NewResponseController(w).Hijack()
				conn.Close()
				return
			}
			up.ServeHTTP(w, r)
		case "/v1/models":
			io.WriteString(w, `{"data":[]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer upstream.Close()
	p := startProxy(t, nil, "--upstream", upstream.URL, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--log-format", "json")
	if p.metrics == "" || p.metrics == p.addr {
		t.Fatalf("metrics at %q, the API at %q", p.metrics, p.addr)
	}
	if got := getStatus(t, "http://"+p.addr+"/metrics"); got != 404 {
		t.Errorf("GET /metrics on the API's address: %d, want the upstream's 404", got)
	}
	p.next("request") // it went upstream

	resp, fr := streamThrough(t, p.addr)
	mf := scrape(t, p)
	if v, _ := metricValue(mf, "anth_proxy_streams_in_flight"); v != 1 {
		t.Errorf("streams in flight during a stream: %v, want 1", v)
	}
	close(up.release)
	lastFrame(fr)
	resp.Body.Close()
	p.next("request")

	req := newStreamRequest(t, "http://"+p.addr)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sseBytes, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	p.next("request")
	resp, err = testClient.Get("http://" + p.addr + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	p.next("request")
	req = newStreamRequest(t, "http://"+p.addr)
	req.Header.Set("X-Case", "reset")
	resp, err = testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	p.next("request")

	mf = scrape(t, p)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64 // -1: any value above 0
	}{
		{"anth_proxy_requests_total", []string{"path", "/v1/messages", "status", "200", "kind", "anth"}, 1},
		{"anth_proxy_requests_total", []string{"path", "/v1/messages", "status", "200", "kind", "sse"}, 1},
		{"anth_proxy_requests_total", []string{"path", "other", "status", "200", "kind", "proxy"}, 1},
		{"anth_proxy_requests_total", []string{"path", "/v1/messages", "status", "502", "kind", "json"}, 1},
		{"anth_proxy_streams_in_flight", nil, 0},
		{"anth_proxy_time_to_first_byte_seconds", []string{"kind", "anth"}, 1},
		{"anth_proxy_stream_duration_seconds", []string{"kind", "anth", "end", "done"}, 1},
		{"anth_proxy_stream_duration_seconds", []string{"kind", "sse", "end", "done"}, 1},
		{"anth_proxy_request_body_bytes_total", []string{"kind", "sse"}, float64(len(anthRequest(t)))},
		{"anth_proxy_response_body_bytes_total", []string{"kind", "sse"}, float64(len(sseBytes))},
		{"anth_proxy_upstream_errors_total", []string{"kind", string(anthhttp.FaultReset)}, 1},
		{"anth_proxy_upstream_errors_total", []string{"kind", string(anthhttp.FaultUnreachable)}, 0},
		{"anth_proxy_upstream_errors_total", []string{"kind", string(anthhttp.FaultIdleTimeout)}, 0},
		{"anth_proxy_frames_relayed_total", []string{"kind", "sse"}, 7},
		{"anth_proxy_frames_relayed_total", []string{"kind", "anth"}, -1},
		{"anth_proxy_tokens_relayed_total", []string{"type", "input"}, 3 + 3},  // the ANTH stream's and the SSE one's
		{"anth_proxy_tokens_relayed_total", []string{"type", "output"}, 4 + 4}, // message_delta's, replacing message_start's 1
		{"go_goroutines", nil, -1},
	} {
		v, ok := metricValue(mf, c.name, c.labels...)
		if !ok || c.want >= 0 && v != c.want || c.want < 0 && v <= 0 {
			t.Errorf("%s%v = %v (found %v), want %v", c.name, c.labels, v, ok, c.want)
		}
	}
	p.stop()
}

// observeEach is Observe as it was before the series were resolved once:
// each label lookup per request. TestMetricsResolvedOnce's oracle.
func (m *metrics) observeEach(rec *anthhttp.Record) {
	path := "other"
	if slices.Contains(m.apiPaths, rec.Path) {
		path = rec.Path
	}
	m.requests.WithLabelValues(path, strconv.Itoa(rec.Status), rec.Kind).Inc()
	if rec.FirstByte > 0 {
		m.ttfb.WithLabelValues(rec.Kind).Observe(rec.FirstByte.Seconds())
	}
	m.in.WithLabelValues(rec.Kind).Add(float64(rec.In))
	m.out.WithLabelValues(rec.Kind).Add(float64(rec.Out))
	if rec.Fault != "" {
		m.faults.WithLabelValues(string(rec.Fault)).Inc()
	}
	if rec.Resumed {
		m.resumes.WithLabelValues(strconv.Itoa(rec.Status)).Inc()
	} else if rec.ResumeErr != nil {
		m.unkept.Inc()
	}
	if rec.Kind == anthhttp.KindANTH || rec.Kind == anthhttp.KindSSE {
		m.stream.WithLabelValues(rec.Kind, rec.End.String()).Observe(rec.Duration.Seconds())
		m.frames.WithLabelValues(rec.Kind).Add(float64(rec.Frames))
		m.tokens.WithLabelValues("input").Add(float64(rec.InputTokens))
		m.tokens.WithLabelValues("output").Add(float64(rec.OutputTokens))
	}
}

// exposition is m's anth_proxy_ families in the text exposition format.
func exposition(t *rapid.T, m *metrics) string {
	mfs, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, mf := range mfs {
		if strings.HasPrefix(mf.GetName(), "anth_proxy_") {
			expfmt.MetricFamilyToText(&b, mf)
		}
	}
	return b.String()
}

// TestMetricsResolvedOnce: counting in series resolved once gives the
// same /metrics, series for series and value for value, as looking each
// label up per request, for any run of requests: no series appears
// before its first use, none is missed.
func TestMetricsResolvedOnce(t *testing.T) {
	apiPaths := []string{"/v1/messages", "/v1/chat/completions"}
	rapid.Check(t, func(t *rapid.T) {
		got, want := newMetrics(apiPaths, func() int { return 0 }), newMetrics(apiPaths, func() int { return 0 })
		recs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) *anthhttp.Record {
			rec := &anthhttp.Record{
				Path:   rapid.SampledFrom([]string{"/v1/messages", "/v1/chat/completions", "/v1/models", "/x"}).Draw(t, "path"),
				Status: rapid.SampledFrom([]int{200, 400, 404, 502, 999}).Draw(t, "status"),
				Kind: rapid.SampledFrom([]string{anthhttp.KindANTH, anthhttp.KindSSE, anthhttp.KindJSON, anthhttp.KindProxy,
					anthhttp.KindPreflight, anthhttp.KindVocabulary, "new"}).Draw(t, "kind"),
				In: rapid.Int64Range(0, 1<<20).Draw(t, "in"), Out: rapid.Int64Range(0, 1<<20).Draw(t, "out"),
				FirstByte: time.Duration(rapid.Int64Range(0, 1e10).Draw(t, "ttfb")),
				Duration:  time.Duration(rapid.Int64Range(0, 1e12).Draw(t, "duration")),
				End:       anthhttp.End(rapid.IntRange(0, 4).Draw(t, "end")),
				Fault:     rapid.SampledFrom([]anthhttp.Fault{"", anthhttp.FaultReset, anthhttp.FaultMalformed}).Draw(t, "fault"),
				Frames:    rapid.Int64Range(0, 1000).Draw(t, "frames"), InputTokens: rapid.Int64Range(0, 1000).Draw(t, "input"),
				OutputTokens: rapid.Int64Range(0, 1000).Draw(t, "output"),
				Resumed:      rapid.Bool().Draw(t, "resumed"),
			}
			if rapid.Bool().Draw(t, "resumeErr") {
				rec.ResumeErr = errors.New("store down")
			}
			return rec
		}), 0, 30).Draw(t, "records")
		for i, rec := range recs {
			got.Observe(rec)
			want.observeEach(rec)
			if i%7 == 0 || i == len(recs)-1 {
				if d := cmp.Diff(exposition(t, want), exposition(t, got)); d != "" {
					t.Fatalf("after %d requests, /metrics (-per request +resolved once):\n%s", i+1, d)
				}
			}
		}
	})
}

// TestMetricsObserveAllocs: counting a request in series it has seen
// before allocates nothing.
func TestMetricsObserveAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	m := newMetrics([]string{"/v1/messages"}, func() int { return 0 })
	rec := &anthhttp.Record{Path: "/v1/messages", Status: 200, Kind: anthhttp.KindANTH, In: 300, Out: 4000,
		FirstByte: time.Millisecond, Duration: time.Second, Frames: 100, InputTokens: 10, OutputTokens: 90}
	m.Observe(rec)
	if n := testing.AllocsPerRun(100, func() { m.Observe(rec) }); n != 0 {
		t.Errorf("%v allocations a request, want 0", n)
	}
}

// BenchmarkMetricsObserve is a stream's Record counted in series seen
// before.
func BenchmarkMetricsObserve(b *testing.B) {
	m := newMetrics([]string{"/v1/messages"}, func() int { return 0 })
	rec := &anthhttp.Record{Path: "/v1/messages", Status: 200, Kind: anthhttp.KindANTH, In: 300, Out: 4000,
		FirstByte: time.Millisecond, Duration: time.Second, Frames: 100, InputTokens: 10, OutputTokens: 90}
	b.ReportAllocs()
	for b.Loop() {
		m.Observe(rec)
	}
}
