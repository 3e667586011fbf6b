package main

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

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

	// The series Observe counts in, resolved once each rather than per
	// request (a label lookup hashes and checks its values under the
	// vector's lock), and each on its first use, so that /metrics shows
	// the same series as resolving them per request would.
	kinds     series[string, *kindSeries] // by anthhttp.Record.Kind
	requested series[requestKey, prometheus.Counter]
	tokensIn  func() prometheus.Counter
	tokensOut func() prometheus.Counter
}

// kindSeries is the series of one wire kind.
type kindSeries struct {
	in, out, frames func() prometheus.Counter
	ttfb            func() prometheus.Observer
	stream          [4]func() prometheus.Observer // by anthhttp.End
}

// requestKey is the labels of anth_proxy_requests_total.
type requestKey struct {
	path   string
	status int
	kind   string
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
		Help: "Streams the store could not keep, from their start or from some point on (served on unkept): unreachable when they began, or an append failed later (the tail grew past --resume-max-bytes, was evicted to stay within --resume-memory, or the store went down)."})
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
	m.tokensIn = sync.OnceValue(func() prometheus.Counter { return m.tokens.WithLabelValues("input") })
	m.tokensOut = sync.OnceValue(func() prometheus.Counter { return m.tokens.WithLabelValues("output") })
	return m
}

// Observe counts one request (anthhttp.Observer).
func (m *metrics) Observe(rec *anthhttp.Record) {
	path := "other"
	if slices.Contains(m.apiPaths, rec.Path) {
		path = rec.Path
	}
	m.requestsOf(requestKey{path, rec.Status, rec.Kind}).Inc()
	k := m.kindOf(rec.Kind)
	if rec.FirstByte > 0 {
		k.ttfb().Observe(rec.FirstByte.Seconds())
	}
	k.in().Add(float64(rec.In))
	k.out().Add(float64(rec.Out))
	if rec.Fault != "" {
		m.faults.WithLabelValues(string(rec.Fault)).Inc()
	}
	if rec.Resumed {
		m.resumes.WithLabelValues(strconv.Itoa(rec.Status)).Inc()
	} else if rec.ResumeErr != nil {
		m.unkept.Inc()
	}
	if rec.Kind == anthhttp.KindANTH || rec.Kind == anthhttp.KindSSE {
		if int(rec.End) < len(k.stream) {
			k.stream[rec.End]().Observe(rec.Duration.Seconds())
		} else {
			m.stream.WithLabelValues(rec.Kind, rec.End.String()).Observe(rec.Duration.Seconds())
		}
		k.frames().Add(float64(rec.Frames))
		m.tokensIn().Add(float64(rec.InputTokens))
		m.tokensOut().Add(float64(rec.OutputTokens))
	}
}

// requestsOf is the requests_total series of labels l.
func (m *metrics) requestsOf(l requestKey) prometheus.Counter {
	if c, ok := m.requested.load(l); ok {
		return c
	}
	return m.requested.loadOrStore(l, m.requests.WithLabelValues(l.path, strconv.Itoa(l.status), l.kind))
}

// kindOf is the series of a wire kind, made on its first request.
func (m *metrics) kindOf(kind string) *kindSeries {
	if k, ok := m.kinds.load(kind); ok {
		return k
	}
	k := &kindSeries{
		in:     sync.OnceValue(func() prometheus.Counter { return m.in.WithLabelValues(kind) }),
		out:    sync.OnceValue(func() prometheus.Counter { return m.out.WithLabelValues(kind) }),
		frames: sync.OnceValue(func() prometheus.Counter { return m.frames.WithLabelValues(kind) }),
		ttfb:   sync.OnceValue(func() prometheus.Observer { return m.ttfb.WithLabelValues(kind) }),
	}
	for e := range k.stream {
		k.stream[e] = sync.OnceValue(func() prometheus.Observer { return m.stream.WithLabelValues(kind, anthhttp.End(e).String()) })
	}
	return m.kinds.loadOrStore(kind, k)
}

// series is a map read at every request and written at a series' first:
// copied on write, so that a read takes no lock and, unlike a sync.Map's,
// boxes no key.
type series[K comparable, V any] struct {
	mu sync.Mutex // held by writers
	m  atomic.Pointer[map[K]V]
}

func (s *series[K, V]) load(k K) (V, bool) {
	var v V
	m := s.m.Load()
	if m == nil {
		return v, false
	}
	v, ok := (*m)[k]
	return v, ok
}

// loadOrStore is k's value, v if k had none.
func (s *series[K, V]) loadOrStore(k K, v V) V {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.m.Load()
	if old != nil {
		if have, ok := (*old)[k]; ok {
			return have
		}
	}
	m := make(map[K]V, 1)
	if old != nil {
		maps.Copy(m, *old)
	}
	m[k] = v
	s.m.Store(&m)
	return v
}

// handler serves the metrics in the text exposition format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
