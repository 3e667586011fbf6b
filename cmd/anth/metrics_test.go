package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

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
