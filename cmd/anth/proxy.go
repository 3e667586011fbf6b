package main

import (
	"context"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/resume"
	"github.com/layer0/anth/resume/redisstore"
	"github.com/layer0/anth/vocab"
	"github.com/redis/rueidis"
)

const proxyUsage = `usage: anth proxy --upstream URL [--listen ADDR] [--metrics-listen ADDR] [flags]
Serves the Anthropic Messages API and OpenAI's Chat Completions API at ADDR in front
of URL (such as https://api.anthropic.com, or a vLLM, SGLang, llama.cpp or Ollama
server's http://host:8000): POST /v1/messages and POST /v1/chat/completions take a
JSON or ANTH body and go upstream as JSON; a streaming response goes back as ANTH to
a client whose Accept asks for it (anth-deflate if it names that too), else as the
upstream's SSE; everything else (/v1/models, /v1/embeddings, ...) passes through. Request headers go
upstream but for RFC 9110's hop-by-hop ones. /healthz and /readyz are answered here
(readyz is 503 while draining). One log line per request goes to standard error,
never a credential. SIGINT or SIGTERM stops taking requests, lets streams finish for
up to --drain, then ends those left with an error saying so and exits 0.

Each flag not given is read from its environment variable, if set:
  --upstream URL               ANTH_UPSTREAM, else ANTHROPIC_BASE_URL  (required)
  --listen ADDR                ANTH_LISTEN, else :$PORT  (default 127.0.0.1:8080)
  --metrics-listen ADDR        ANTH_METRICS_LISTEN  Prometheus /metrics, /healthz and
                               /readyz on their own address (default: none)
  --log-format text|json       ANTH_LOG_FORMAT  (default text)
  --log-flush T                ANTH_LOG_FLUSH  a line that comes within T of the one
                               before waits and goes out with the others of those T, in
                               one write (default 0: each line at once)
  --tls-cert FILE --tls-key FILE   ANTH_TLS_CERT, ANTH_TLS_KEY  serve HTTPS, with HTTP/2
  --max-streams N              ANTH_MAX_STREAMS  requests to the two APIs at once; 503
                               past it (default 0: no limit)
  --max-request-size N         ANTH_MAX_REQUEST_SIZE  (default 33554432)
  --forward-headers LIST       ANTH_FORWARD_HEADERS  comma-separated allow-list of
                               request headers sent upstream (default: all end-to-end)
  --cors-origins LIST          ANTH_CORS_ORIGINS  comma-separated origins (or *) whose
                               pages may call it; preflights answered here (default: none)
  --upstream-key-file FILE     ANTH_UPSTREAM_KEY_FILE  hold the upstream's API key (the
                               file's one line) and send it in place of each client's
  --client-tokens-file FILE    ANTH_CLIENT_TOKENS_FILE  with it: lines "NAME TOKEN"; a
                               client sends its TOKEN as x-api-key or a bearer token
  --connect-timeout T          ANTH_CONNECT_TIMEOUT  upstream connect (default 10s)
  --upstream-header-timeout T  ANTH_UPSTREAM_HEADER_TIMEOUT  upstream response headers
                               (default 10m, a non-streaming request's whole answer)
  --upstream-idle-timeout T    ANTH_UPSTREAM_IDLE_TIMEOUT  between a stream's events
                               (default 5m; 0: none)
  --header-timeout T           ANTH_HEADER_TIMEOUT  a client's request headers (default 10s)
  --body-timeout T             ANTH_BODY_TIMEOUT  a client's request body (default 1m)
  --idle-timeout T             ANTH_IDLE_TIMEOUT  a kept-alive client connection (default 2m)
  --drain T                    ANTH_DRAIN  at SIGTERM (default 30s; with --resume, at
                               least --resume-grace, or kept streams are cut)
  --resume STORE               ANTH_RESUME  keep each stream so a client whose
                               connection drops resumes it (SPEC.md §13): "memory"
                               (one instance) or redis://[user:password@]host:port[/db]
                               or rediss:// (instances sharing one Redis); default: off
  --resume-ttl T               ANTH_RESUME_TTL  kept after a stream's last frame (5m)
  --resume-max-bytes N         ANTH_RESUME_MAX_BYTES  of one stream; past it the stream
                               goes on, unresumable (default 4194304)
  --resume-grace T             ANTH_RESUME_GRACE  the upstream keeps generating after
                               its client leaves, for it to come back (default 30s)
  --resume-memory N            ANTH_RESUME_MEMORY  bytes all streams kept in memory may
                               hold; the oldest go first past it (default 67108864)
  --vocab FILE                 ANTH_VOCAB  (repeatable; the variable a comma-separated
                               list) a vocabulary served by hash at
                               /v1/anth/vocabularies/HASH (SPEC.md §3.16), FILE as
                               anth decode --vocab takes it
  --model-vocab MODEL=FILE     ANTH_MODEL_VOCAB  (repeatable; comma-separated) the
                               vocabulary whose token IDs MODEL's streams carry (vLLM's
                               token_ids): named in a VOCAB frame before the first token
                               frame an ANTH client gets (SPEC.md §3.13), and served as
                               --vocab; to an ANTH client whose Anth-Vocabularies lists
                               its hash and text, the IDs of the logprobs bytes OpenAI's
                               streams give, added as token_ids (§3.14)
`

// proxyEnv is each proxy flag's environment variables, first found first
// used. --listen's last resort, PORT, is a port to listen on every
// interface, as the platforms that set it expect.
var proxyEnv = []struct{ flag, env string }{
	{"upstream", "ANTH_UPSTREAM"},
	{"upstream", "ANTHROPIC_BASE_URL"},
	{"listen", "ANTH_LISTEN"},
	{"listen", "PORT"},
	{"metrics-listen", "ANTH_METRICS_LISTEN"},
	{"log-format", "ANTH_LOG_FORMAT"},
	{"log-flush", "ANTH_LOG_FLUSH"},
	{"tls-cert", "ANTH_TLS_CERT"},
	{"tls-key", "ANTH_TLS_KEY"},
	{"max-streams", "ANTH_MAX_STREAMS"},
	{"max-request-size", "ANTH_MAX_REQUEST_SIZE"},
	{"forward-headers", "ANTH_FORWARD_HEADERS"},
	{"cors-origins", "ANTH_CORS_ORIGINS"},
	{"upstream-key-file", "ANTH_UPSTREAM_KEY_FILE"},
	{"client-tokens-file", "ANTH_CLIENT_TOKENS_FILE"},
	{"connect-timeout", "ANTH_CONNECT_TIMEOUT"},
	{"upstream-header-timeout", "ANTH_UPSTREAM_HEADER_TIMEOUT"},
	{"upstream-idle-timeout", "ANTH_UPSTREAM_IDLE_TIMEOUT"},
	{"header-timeout", "ANTH_HEADER_TIMEOUT"},
	{"body-timeout", "ANTH_BODY_TIMEOUT"},
	{"idle-timeout", "ANTH_IDLE_TIMEOUT"},
	{"drain", "ANTH_DRAIN"},
	{"resume", "ANTH_RESUME"},
	{"resume-ttl", "ANTH_RESUME_TTL"},
	{"resume-max-bytes", "ANTH_RESUME_MAX_BYTES"},
	{"resume-grace", "ANTH_RESUME_GRACE"},
	{"resume-memory", "ANTH_RESUME_MEMORY"},
	{"vocab", "ANTH_VOCAB"},
	{"model-vocab", "ANTH_MODEL_VOCAB"},
}

// fromEnv sets each flag of fs that args did not from its environment
// variable; a value the flag refuses is a usage error naming the variable.
func fromEnv(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, e := range proxyEnv {
		v, ok := os.LookupEnv(e.env)
		if !ok || v == "" || set[e.flag] {
			continue
		}
		if e.env == "PORT" {
			v = ":" + v
		}
		if err := fs.Set(e.flag, v); err != nil {
			return usageErr("proxy", "$%s %q: %v", e.env, v, err)
		}
		set[e.flag] = true
	}
	return nil
}

// proxyConfig is anth proxy's command line, checked.
type proxyConfig struct {
	listen, metricsListen, logFormat, tlsCert, tlsKey string
	keyFile, tokensFile                               string
	upstream                                          *url.URL
	maxStreams, maxSize                               int
	forward, corsOrigins                              []string
	connect, upHeader, upIdle                         time.Duration
	header, body, idle, drain                         time.Duration
	logFlush                                          time.Duration
	// Resuming (SPEC.md §13): resume is "", "memory" or a Redis URL.
	resume                  string
	resumeTTL, resumeGrace  time.Duration
	resumeMax, resumeMemory int64
	// vocabs are the --vocab FILEs, and modelVocabs the --model-vocab
	// MODEL=FILEs, loaded when the proxy starts.
	vocabs, modelVocabs vocabFiles
}

// vocabFiles is --vocab, which may be given more than once; each value
// (and ANTH_VOCAB's) is a comma-separated list of files.
type vocabFiles []string

func (v *vocabFiles) String() string { return strings.Join(*v, ",") }

func (v *vocabFiles) Set(s string) error {
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			*v = append(*v, f)
		}
	}
	return nil
}

func parseProxy(args []string) (*proxyConfig, error) {
	fs := flag.NewFlagSet("anth proxy", flag.ContinueOnError)
	c := &proxyConfig{}
	var upstream, forward, corsOrigins string
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8080", "")
	fs.StringVar(&upstream, "upstream", "", "")
	fs.StringVar(&c.metricsListen, "metrics-listen", "", "")
	fs.StringVar(&c.logFormat, "log-format", "text", "")
	fs.DurationVar(&c.logFlush, "log-flush", 0, "")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "")
	fs.StringVar(&c.tlsKey, "tls-key", "", "")
	fs.IntVar(&c.maxStreams, "max-streams", 0, "")
	fs.IntVar(&c.maxSize, "max-request-size", anthhttp.DefaultMaxRequestSize, "")
	fs.StringVar(&forward, "forward-headers", "", "")
	fs.StringVar(&corsOrigins, "cors-origins", "", "")
	fs.StringVar(&c.keyFile, "upstream-key-file", "", "")
	fs.StringVar(&c.tokensFile, "client-tokens-file", "", "")
	fs.DurationVar(&c.connect, "connect-timeout", 10*time.Second, "")
	fs.DurationVar(&c.upHeader, "upstream-header-timeout", 10*time.Minute, "")
	fs.DurationVar(&c.upIdle, "upstream-idle-timeout", 5*time.Minute, "")
	fs.DurationVar(&c.header, "header-timeout", 10*time.Second, "")
	fs.DurationVar(&c.body, "body-timeout", anthhttp.DefaultBodyTimeout, "")
	fs.DurationVar(&c.idle, "idle-timeout", 2*time.Minute, "")
	fs.DurationVar(&c.drain, "drain", 30*time.Second, "")
	fs.StringVar(&c.resume, "resume", "", "")
	fs.DurationVar(&c.resumeTTL, "resume-ttl", anthhttp.DefaultResumeTTL, "")
	fs.Int64Var(&c.resumeMax, "resume-max-bytes", anthhttp.DefaultResumeMaxBytes, "")
	fs.DurationVar(&c.resumeGrace, "resume-grace", anthhttp.DefaultResumeGrace, "")
	fs.Int64Var(&c.resumeMemory, "resume-memory", resume.DefaultMemoryMaxBytes, "")
	fs.Var(&c.vocabs, "vocab", "")
	fs.Var(&c.modelVocabs, "model-vocab", "")
	if err := parseFlags("proxy", fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usageErr("proxy", "unexpected argument %q", fs.Arg(0))
	}
	if err := fromEnv(fs); err != nil {
		return nil, err
	}
	up, err := url.Parse(upstream)
	if err != nil || upstream == "" || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return nil, usageErr("proxy", "--upstream %q: want an http or https URL (or set ANTHROPIC_BASE_URL)", upstream)
	}
	c.upstream = up
	if c.maxSize <= 0 {
		return nil, usageErr("proxy", "--max-request-size %d: want a positive size", c.maxSize)
	}
	if c.maxStreams < 0 {
		return nil, usageErr("proxy", "--max-streams %d: want 0 (no limit) or more", c.maxStreams)
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		return nil, usageErr("proxy", "--log-format %q: want text or json", c.logFormat)
	}
	if c.logFlush < 0 {
		return nil, usageErr("proxy", "--log-flush %v: want 0 (each line at once) or more", c.logFlush)
	}
	if (c.keyFile == "") != (c.tokensFile == "") {
		// A gateway that holds a key and lets anyone use it is an open
		// relay for the key's bill.
		return nil, usageErr("proxy", "--upstream-key-file and --client-tokens-file go together")
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return nil, usageErr("proxy", "--tls-cert and --tls-key go together")
	}
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"header-timeout", c.header}, {"body-timeout", c.body}, {"idle-timeout", c.idle}, {"connect-timeout", c.connect}, {"upstream-header-timeout", c.upHeader}} {
		// Zero would mean no bound to net/http: a slow peer could hold a
		// connection for ever.
		if t.d <= 0 {
			return nil, usageErr("proxy", "--%s %v: want a positive duration", t.name, t.d)
		}
	}
	if c.upIdle < 0 {
		return nil, usageErr("proxy", "--upstream-idle-timeout %v: want 0 (none) or more", c.upIdle)
	}
	if err := c.checkResume(); err != nil {
		return nil, err
	}
	c.forward, c.corsOrigins = list(forward), list(corsOrigins)
	return c, nil
}

// checkResume checks the --resume flags: a store anth proxy knows, and
// bounds that keep something.
func (c *proxyConfig) checkResume() error {
	switch {
	case c.resume == "", c.resume == "memory":
	case strings.HasPrefix(c.resume, "redis://"), strings.HasPrefix(c.resume, "rediss://"):
		if _, err := rueidis.ParseURL(c.resume); err != nil {
			// rueidis's message may hold the URL, and the URL a password.
			return usageErr("proxy", "--resume: not a Redis URL (redis://[user:password@]host:port[/db])")
		}
	default:
		return usageErr("proxy", "--resume %q: want memory or a redis:// URL", c.resume)
	}
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"resume-ttl", c.resumeTTL}, {"resume-grace", c.resumeGrace}} {
		if t.d <= 0 {
			return usageErr("proxy", "--%s %v: want a positive duration", t.name, t.d)
		}
	}
	for _, n := range []struct {
		name string
		n    int64
	}{{"resume-max-bytes", c.resumeMax}, {"resume-memory", c.resumeMemory}} {
		if n.n <= 0 {
			return usageErr("proxy", "--%s %d: want a positive size", n.name, n.n)
		}
	}
	return nil
}

// openResume opens the store --resume names, or nil for none. A Redis that
// cannot be reached at start is an error: an operator who asked for
// resuming across instances learns now, not from the first 503.
func openResume(c *proxyConfig) (resume.Store, error) {
	switch c.resume {
	case "":
		return nil, nil
	case "memory":
		return resume.NewMemory(resume.MemoryOptions{MaxBytes: c.resumeMemory, TTL: c.resumeTTL}), nil
	}
	opt, err := rueidis.ParseURL(c.resume)
	if err != nil {
		return nil, errors.New("--resume: not a Redis URL")
	}
	u, _ := url.Parse(c.resume)
	opt.DisableCache = true // the store reads streams it follows, never cached keys
	client, err := rueidis.NewClient(opt)
	if err != nil {
		return nil, fmt.Errorf("--resume %s: %w", u.Redacted(), err)
	}
	st, err := redisstore.New(redisstore.Options{Client: client, TTL: c.resumeTTL, MaxBytes: c.resumeMax})
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("--resume %s: %w", u.Redacted(), err)
	}
	return closeBoth{st, client}, nil
}

// closeBoth is a Redis store whose Close also closes the client it was
// given (redisstore leaves a client it did not dial open).
type closeBoth struct {
	*redisstore.Store
	client rueidis.Client
}

func (s closeBoth) Close() error {
	err := s.Store.Close()
	s.client.Close()
	return err
}

// list splits a comma-separated flag value; nil for an empty one.
func list(v string) []string {
	var l []string
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			l = append(l, s)
		}
	}
	return l
}

func proxy(args []string, _ io.Reader, _ io.Writer) error {
	c, err := parseProxy(args)
	if err != nil {
		return err
	}
	// Written out before proxy returns, and so before main writes its
	// error, if any, to standard error too.
	lw := newLogWriter(os.Stderr, c.logFlush)
	defer lw.Close()
	var h slog.Handler = slog.NewTextHandler(lw, nil)
	if c.logFormat == "json" {
		h = slog.NewJSONHandler(lw, nil)
	}
	logger := slog.New(h)
	var tlsConfig *tls.Config
	if c.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
		if err != nil {
			return err
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	}
	// Vocabularies load (and are checked) before the proxy listens: a bad
	// FILE is an error at start, never a 404 later.
	var vocabs []*vocab.Vocabulary
	for _, f := range c.vocabs {
		v, err := loadVocab(f)
		if err != nil {
			return err
		}
		vocabs = append(vocabs, v)
	}
	modelVocabs, err := loadModelVocabs(c.modelVocabs)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return err
	}
	var mln net.Listener
	if c.metricsListen != "" {
		if mln, err = net.Listen("tcp", c.metricsListen); err != nil {
			ln.Close()
			return err
		}
	}
	store, err := openResume(c)
	if err != nil {
		ln.Close()
		if mln != nil {
			mln.Close()
		}
		return err
	}
	if store != nil {
		defer store.Close()
	}
	var creds *anthhttp.Credentials
	if c.keyFile != "" {
		if creds, err = readCredentials(c.keyFile, c.tokensFile); err != nil {
			return err
		}
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = (&net.Dialer{Timeout: c.connect, KeepAlive: 30 * time.Second}).DialContext
	transport.ResponseHeaderTimeout = c.upHeader
	// One upstream host: every idle connection the transport keeps may be
	// its. net/http keeps two a host by default, so a gateway serving
	// more streams at once closed the connection of nearly every one that
	// ended and dialled another for the next (a TCP handshake and teardown
	// a stream: TestProxyKeepsUpstreamConnections). Idle ones still close
	// after IdleConnTimeout (90 s).
	transport.MaxIdleConnsPerHost = transport.MaxIdleConns
	// Both APIs at their paths; other paths pass through, answered in the
	// Messages API's error JSON when the gateway must answer itself.
	api, chatAPI := messages.API{Decoders: &messages.DecoderPool{}}, chat.API{Decoders: &chat.DecoderPool{}}
	var gw *anthhttp.Gateway
	m := newMetrics([]string{api.Path(), chatAPI.Path()}, func() int { return gw.InFlight() })
	gw = anthhttp.NewGateway(api, anthhttp.GatewayOptions{
		Upstream:            c.upstream,
		Transport:           transport,
		MaxRequestSize:      c.maxSize,
		BodyTimeout:         c.body,
		UpstreamIdleTimeout: c.upIdle,
		MaxStreams:          c.maxStreams,
		ForwardHeaders:      c.forward,
		CORSOrigins:         c.corsOrigins,
		Credentials:         creds,
		Logger:              logger,
		Observer:            m,
		Resume:              store,
		ResumeTTL:           c.resumeTTL,
		ResumeMaxBytes:      c.resumeMax,
		ResumeGrace:         c.resumeGrace,
		Vocabularies:        vocabs,
		ModelVocabularies:   modelVocabs,
	}, chatAPI)
	var draining atomic.Bool
	srv := &http.Server{
		Handler:           health(&draining, gw),
		ReadHeaderTimeout: c.header,
		IdleTimeout:       c.idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(h, slog.LevelWarn),
		TLSConfig:         tlsConfig,
	}
	var msrv *http.Server
	if mln != nil {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", m.handler())
		msrv = &http.Server{Handler: health(&draining, mux), ReadHeaderTimeout: c.header, ErrorLog: srv.ErrorLog}
		go msrv.Serve(mln)
		defer msrv.Close()
	}
	attrs := []any{"addr", ln.Addr().String(), "upstream", c.upstream.Redacted(), "tls", tlsConfig != nil, "version", buildVersion()}
	if mln != nil {
		attrs = append(attrs, "metrics", mln.Addr().String())
	}
	if c.resume != "" {
		attrs = append(attrs, "resume", storeName(c.resume))
	}
	if len(vocabs) > 0 {
		paths := make([]string, len(vocabs))
		for i, v := range vocabs {
			h := v.Hash()
			paths[i] = anthhttp.VocabulariesPath + hex.EncodeToString(h[:])
		}
		attrs = append(attrs, "vocabularies", paths)
	}
	if len(modelVocabs) > 0 {
		named := map[string]string{}
		for model, v := range modelVocabs {
			h := v.Hash()
			named[model] = anthhttp.VocabulariesPath + hex.EncodeToString(h[:])
		}
		attrs = append(attrs, "model_vocabularies", named)
	}
	// Signals are caught from before the proxy says it listens: one sent
	// as soon as it does drains, rather than killing it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger.Info("listening", attrs...)
	return serve(ctx, srv, ln, c, &draining, logger)
}

// storeName is --resume as the log may show it: a Redis URL without its
// password.
func storeName(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	return s
}

// readCredentials reads the upstream's key (the file's first line) and
// the clients' tokens ("NAME TOKEN" lines; blank lines and # comments
// skipped). Its errors name the file and line, never a token.
func readCredentials(keyFile, tokensFile string) (*anthhttp.Credentials, error) {
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, err
	}
	c := &anthhttp.Credentials{Key: strings.TrimSpace(strings.SplitN(string(key), "\n", 2)[0]), Tokens: map[string]string{}}
	if c.Key == "" {
		return nil, fmt.Errorf("%s: no key on its first line", keyFile)
	}
	toks, err := os.ReadFile(tokensFile)
	if err != nil {
		return nil, err
	}
	n := 0
	for line := range strings.Lines(string(toks)) {
		n++
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("%s:%d: want NAME TOKEN", tokensFile, n)
		}
		if _, dup := c.Tokens[f[1]]; dup {
			return nil, fmt.Errorf("%s:%d: a token given twice", tokensFile, n)
		}
		c.Tokens[f[1]] = f[0]
	}
	if len(c.Tokens) == 0 {
		return nil, fmt.Errorf("%s: no tokens", tokensFile)
	}
	return c, nil
}

// health answers /healthz (the process is up: 200) and /readyz (it takes
// requests: 200, or 503 once it drains) itself, and passes every other
// request to next. Neither is logged or counted.
func health(draining *atomic.Bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			io.WriteString(w, "ok\n")
		case "/readyz":
			if draining.Load() {
				http.Error(w, "draining", http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, "ready\n")
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// buildVersion is the module version and revision anth was built from.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return strings.TrimPrefix(versionLine(bi), "anth ")
}

// serve runs srv on ln until ctx ends (SIGINT or SIGTERM), then drains: /readyz
// fails, srv stops taking requests and gives those in flight until the
// drain timeout, then ends the streams still open with an error that says
// why (each logged with end=cut).
func serve(ctx context.Context, srv *http.Server, ln net.Listener, c *proxyConfig, draining *atomic.Bool, logger *slog.Logger) error {
	base, endStreams := context.WithCancelCause(context.Background())
	defer endStreams(nil)
	srv.BaseContext = func(net.Listener) context.Context { return base }
	done := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			// ServeTLS offers HTTP/2 (ALPN h2) and HTTP/1.1.
			done <- srv.ServeTLS(ln, "", "")
			return
		}
		done <- srv.Serve(ln)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	draining.Store(true)
	logger.Info("draining", "timeout", c.drain.String())
	dctx, cancel := context.WithTimeout(context.Background(), c.drain)
	defer cancel()
	err := srv.Shutdown(dctx)
	if errors.Is(err, context.DeadlineExceeded) {
		// Each stream left is told why it ends (anthhttp.ErrShutdown: an ERROR
		// frame or error event of overloaded_error) before its connection
		// goes; a second of grace for that, then whatever is left is cut.
		logger.Warn("drain timed out: ending the streams left")
		endStreams(anthhttp.ErrShutdown)
		gctx, gcancel := context.WithTimeout(context.Background(), time.Second)
		if srv.Shutdown(gctx) != nil {
			srv.Close()
		}
		gcancel()
		err = nil
	}
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err == nil {
		logger.Info("stopped")
	}
	return err
}

// loadModelVocabs loads --model-vocab's MODEL=FILE values, each FILE
// once however many models name it; a value without "=", a MODEL given
// twice or a FILE that does not load is an error at start.
func loadModelVocabs(values []string) (map[string]*vocab.Vocabulary, error) {
	if len(values) == 0 {
		return nil, nil
	}
	m := map[string]*vocab.Vocabulary{}
	byFile := map[string]*vocab.Vocabulary{}
	for _, kv := range values {
		model, file, ok := strings.Cut(kv, "=")
		if model, file = strings.TrimSpace(model), strings.TrimSpace(file); !ok || model == "" || file == "" {
			return nil, usageErr("proxy", "--model-vocab %q: want MODEL=FILE", kv)
		}
		if m[model] != nil {
			return nil, usageErr("proxy", "--model-vocab: model %q given twice", model)
		}
		v := byFile[file]
		if v == nil {
			var err error
			if v, err = loadVocab(file); err != nil {
				return nil, err
			}
			byFile[file] = v
		}
		m[model] = v
	}
	return m, nil
}
