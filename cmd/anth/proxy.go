package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/messages"
)

const proxyUsage = `usage: anth proxy --upstream URL [--listen ADDR] [--max-request-size N] [--drain TIMEOUT]
                  [--header-timeout T] [--body-timeout T] [--idle-timeout T]
Serves the Messages API at ADDR (default 127.0.0.1:8080) in front of URL (such as
https://api.anthropic.com): POST /v1/messages takes a JSON or ANTH body and goes
upstream as JSON, with the caller's x-api-key, authorization, anthropic-version
and anthropic-beta; a streaming response goes back as ANTH to a client whose
Accept asks for it (compressed with anth-deflate if its Accept-Encoding names
that), else as SSE; everything else passes through. One access-log
line per request goes to standard error (never a header's value). SIGINT or
SIGTERM stops taking requests and lets streams in flight finish for up to the
drain timeout (default 30s), then exits 0. A client gets --header-timeout
(default 10s) to send its request's headers, --body-timeout (default 1m) its
body (then 408 and the connection closed), and a kept-alive connection is
closed after --idle-timeout (default 2m) with no request.
`

func proxy(args []string, _ io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("anth proxy", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8080", "")
	upstream := fs.String("upstream", "", "")
	maxSize := fs.Int("max-request-size", 32<<20, "")
	drain := fs.Duration("drain", 30*time.Second, "")
	headerTimeout := fs.Duration("header-timeout", 10*time.Second, "")
	bodyTimeout := fs.Duration("body-timeout", anthhttp.DefaultBodyTimeout, "")
	idleTimeout := fs.Duration("idle-timeout", 2*time.Minute, "")
	if err := parseFlags("proxy", fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("proxy", "unexpected argument %q", fs.Arg(0))
	}
	up, err := url.Parse(*upstream)
	if err != nil || *upstream == "" || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return usageErr("proxy", "--upstream %q: want an http or https URL", *upstream)
	}
	if *maxSize <= 0 {
		return usageErr("proxy", "--max-request-size %d: want a positive size", *maxSize)
	}
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"header-timeout", *headerTimeout}, {"body-timeout", *bodyTimeout}, {"idle-timeout", *idleTimeout}} {
		// Zero would mean no bound to net/http: a slow client could hold
		// a connection for ever.
		if t.d <= 0 {
			return usageErr("proxy", "--%s %v: want a positive duration", t.name, t.d)
		}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	logger := log.New(os.Stderr, "anth proxy: ", log.LstdFlags|log.Lmicroseconds)
	srv := &http.Server{
		Handler: anthhttp.NewGateway(messages.API{Decoders: &messages.DecoderPool{}}, anthhttp.GatewayOptions{
			Upstream:       up,
			MaxRequestSize: *maxSize,
			BodyTimeout:    *bodyTimeout,
			Logger:         slog.New(slog.NewTextHandler(os.Stderr, nil)),
		}),
		ReadHeaderTimeout: *headerTimeout,
		IdleTimeout:       *idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          logger,
	}
	logger.Printf("listening on %s, upstream %s", ln.Addr(), up.Redacted())
	return serve(srv, ln, *drain, logger)
}

// serve runs srv on ln until SIGINT or SIGTERM, then drains: it stops
// taking requests and gives those in flight until the timeout, then ends
// the streams still open with an error that says why.
func serve(srv *http.Server, ln net.Listener, drain time.Duration, logger *log.Logger) error {
	base, endStreams := context.WithCancelCause(context.Background())
	defer endStreams(nil)
	srv.BaseContext = func(net.Listener) context.Context { return base }
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	logger.Printf("draining for up to %v", drain)
	dctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	err := srv.Shutdown(dctx)
	if errors.Is(err, context.DeadlineExceeded) {
		// Each stream left is told why it ends (anthhttp.ErrShutdown: an ERROR
		// frame or error event of overloaded_error) before its connection
		// goes; a second of grace for that, then whatever is left is cut.
		logger.Printf("drain timed out: ending the streams left")
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
		fmt.Fprintln(os.Stderr, "anth proxy: stopped")
	}
	return err
}
