package main

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/layer0/anth/anthhttp"
)

// metrics is anth proxy's anthhttp.Observer: each request's Record, counted
// in Prometheus metrics on a registry of its own (the process's and the Go
// runtime's collectors beside them), served in the text exposition format
// on --metrics-listen. The library knows nothing of Prometheus: a user of
// anthhttp who wants other metrics implements the Observer.
//
// Labels are bounded sets: path is an API's streaming path or "other"
// (the client's path would give a series per path anyone cares to send),
// kind a wire kind, status a status code, end an anthhttp.End, fault an
// anthhttp.Fault.
type metrics struct {
	reg      *prometheus.Registry
	apiPaths []string
	requests *prometheus.CounterVec
	ttfb     *prometheus.HistogramVec
	stream   *prometheus.HistogramVec
	in, out  *prometheus.CounterVec
	faults   *prometheus.CounterVec
	frames   *prometheus.CounterVec
	tokens   *prometheus.CounterVec
	resumes  *prometheus.CounterVec
	unkept   prometheus.Counter
}

// newMetrics registers anth proxy's metrics; inFlight gives the streams in
// flight when scraped.
func newMetrics(apiPaths []string, inFlight func() int) *metrics {
	const ns = "anth_proxy"
	m := &metrics{
		reg:      prometheus.NewRegistry(),
		apiPaths: apiPaths,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "requests_total",
			Help: "Requests answered, by path (an API's streaming path or other), status and wire kind (anth, sse, json, proxy)."},
			[]string{"path", "status", "kind"}),
		ttfb: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "time_to_first_byte_seconds",
			Help:    "Time from a request to its response body's first byte, by wire kind.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 14)}, // 5 ms to 41 s
			[]string{"kind"}),
		stream: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "stream_duration_seconds",
			Help:    "Duration of the streams relayed, by wire kind (anth, sse) and how they ended (done, error, cut, client_left).",
			Buckets: prometheus.ExponentialBuckets(0.1, 2, 14)}, // 100 ms to 14 min
			[]string{"kind", "end"}),
		in: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "request_body_bytes_total",
			Help: "Bytes of request bodies read from clients, by wire kind."}, []string{"kind"}),
		out: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "response_body_bytes_total",
			Help: "Bytes of response bodies written to clients, by wire kind."}, []string{"kind"}),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "upstream_errors_total",
			Help: "Upstream failures, by kind (unreachable, connect_timeout, header_timeout, reset, idle_timeout, truncated, malformed)."},
			[]string{"kind"}),
		frames: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "frames_relayed_total",
			Help: "ANTH frames (kind anth) and events (kind sse) relayed to clients, counted as each stream ends."},
			[]string{"kind"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "tokens_relayed_total",
			Help: "Tokens the upstream's usage reported on the streams relayed, by type (input, output), counted as each stream ends."},
			[]string{"type"}),
	}
	m.resumes = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "resumes_total",
		Help: "Resume requests (SPEC.md §13), by status: 200 resumed, 404 unknown or expired, 410 dropped, 416 bad cursor, 503 store unreachable."},
		[]string{"status"})
	m.unkept = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "resume_keep_failures_total",
		Help: "Streams served unresumable because the store could not start keeping them (unreachable when they began)."})
	m.reg.MustRegister(m.requests, m.ttfb, m.stream, m.in, m.out, m.faults, m.frames, m.tokens, m.resumes, m.unkept,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: "streams_in_flight",
			Help: "Requests to the API's streaming path being served now (the ones --max-streams bounds)."},
			func() float64 { return float64(inFlight()) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
	)
	for _, f := range []anthhttp.Fault{anthhttp.FaultUnreachable, anthhttp.FaultConnectTimeout, anthhttp.FaultHeaderTimeout,
		anthhttp.FaultReset, anthhttp.FaultIdleTimeout, anthhttp.FaultTruncated, anthhttp.FaultMalformed} {
		m.faults.WithLabelValues(string(f)) // each kind at 0 before its first, so rate() sees the first
	}
	return m
}

// Observe counts one request (anthhttp.Observer).
func (m *metrics) Observe(rec *anthhttp.Record) {
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

// handler serves the metrics in the text exposition format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
