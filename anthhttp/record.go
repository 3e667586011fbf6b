package anthhttp

import (
	"log/slog"
	"time"
)

// Record is what a Gateway knows of one request once it has been answered:
// what its access-log line says (GatewayOptions.Logger) and what an
// Observer counts. It names no header value but the request IDs.
type Record struct {
	// Method and Path are the client's request line's; Path is as the
	// client sent it (a metrics label should map it to a bounded set:
	// see Gateway.Path).
	Method, Path string
	// Client is the client's address, net/http's Request.RemoteAddr;
	// Caller the name of its token (GatewayOptions.Credentials), "" when
	// the gateway holds no key or the token was not known.
	Client, Caller string
	// ID is the request ID the gateway made and sent the client in
	// RequestIDHeader; UpstreamID the upstream's (its request-id or
	// x-request-id response header), "" when it sent none or was not
	// reached.
	ID, UpstreamID string
	// Status is the response's status code.
	Status int
	// Kind is the wire kind served: KindANTH, KindSSE, KindJSON,
	// KindProxy, KindPreflight or KindVocabulary.
	Kind string
	// Coding is the content coding of an ANTH stream ("anth-deflate"),
	// else "".
	Coding string
	// In and Out are the bytes of the request body read and of the
	// response body written.
	In, Out int64
	// FirstByte is the time from the request to the response body's
	// first byte written (0 when there was none); Duration the time to
	// the response's end.
	FirstByte, Duration time.Duration
	// End says how the response ended.
	End End
	// Fault is the upstream's failure, "" when it did not fail; Err is
	// the failure itself for the log, which may name internal addresses
	// and is never sent to the client.
	Fault Fault
	Err   error
	// Frames is the ANTH frames (for an ANTH stream) or the events (for
	// an event stream) relayed to the client; InputTokens and
	// OutputTokens the token counts of a stream's last USAGE frame, or of
	// its events when the API reads them (bridge.Usage); 0 for other
	// responses.
	Frames                    int64
	InputTokens, OutputTokens int64
	// ResumeID is the Anth-Resume-Id of a resumable response (SPEC.md
	// §13), given to it or, for a resume (Resumed), asked for; "" for
	// others. ResumeFrom is a resume's cursor (the frame offset it asked
	// for). ResumeErr is why a response the gateway would have kept is
	// not resumable, or not past some point: the store's Create failed,
	// or a later Append did (the tail grew past ResumeMaxBytes, the store
	// evicted it to stay in its own bound, or the store went down), after
	// which the stream went on unkept; nil if it was kept whole.
	ResumeID   string
	Resumed    bool
	ResumeFrom int64
	ResumeErr  error
}

// The wire kinds of Record.Kind.
const (
	KindANTH  = "anth"  // a bridged stream served as ANTH
	KindSSE   = "sse"   // a bridged stream served as the API's event stream
	KindJSON  = "json"  // a response on the API's path that is not a stream, or the gateway's own error
	KindProxy = "proxy" // any other path, passed through
	// KindPreflight is a CORS preflight the gateway answered itself
	// (GatewayOptions.CORSOrigins).
	KindPreflight = "preflight"
)

// End says how a response ended.
type End uint8

const (
	// EndDone: the response ended as its grammar says (a stream with its
	// last event, DONE), or was written whole.
	EndDone End = iota
	// EndError: the upstream failed (Record.Fault says how), or sent an
	// error event of its own: a stream's client got an ERROR frame or the
	// API's error event, a request not yet answered the API's error JSON.
	EndError
	// EndCut: the gateway ended the response unfinished when the server's
	// drain time was up (ErrShutdown): a stream's client got an ERROR
	// frame or error event of overloaded_error saying so, a request not
	// yet answered 503 with the API's error JSON.
	EndCut
	// EndClientLeft: the client went away before the response's end.
	EndClientLeft
)

var endNames = [...]string{EndDone: "done", EndError: "error", EndCut: "cut", EndClientLeft: "client_left"}

// String returns the end's name in the log and in metrics: done, error,
// cut or client_left.
func (e End) String() string {
	if int(e) < len(endNames) {
		return endNames[e]
	}
	return "unknown"
}

// Fault is a kind of upstream failure, as Record.Fault and the metrics
// name it.
type Fault string

// The upstream failures a Gateway tells apart. What a client is told of
// each names no address; the log gets the cause (Record.Err).
const (
	// FaultUnreachable: no connection could be made (refused, no route,
	// no such host, a TLS handshake that failed). 502, "upstream
	// unreachable".
	FaultUnreachable Fault = "unreachable"
	// FaultConnectTimeout: connecting took longer than the transport's
	// dial timeout. 504, "upstream unreachable: connecting timed out".
	FaultConnectTimeout Fault = "connect_timeout"
	// FaultHeaderTimeout: connected, but the response's headers did not
	// come in time (http.Transport.ResponseHeaderTimeout). 504.
	FaultHeaderTimeout Fault = "header_timeout"
	// FaultReset: the connection failed after it was made, before the
	// response's headers (502) or during its body (an ERROR frame or
	// error event: "upstream reset the stream").
	FaultReset Fault = "reset"
	// FaultIdleTimeout: a stream sent no event for
	// GatewayOptions.UpstreamIdleTimeout. An ERROR frame or error event
	// of timeout_error.
	FaultIdleTimeout Fault = "idle_timeout"
	// FaultTruncated: a stream ended before its response did
	// (ErrTruncated).
	FaultTruncated Fault = "truncated"
	// FaultMalformed: a stream the API's bridge refuses (ErrMalformed),
	// or one over a bound (ErrTooLarge).
	FaultMalformed Fault = "malformed"
)

// Observer counts a Gateway's requests, for metrics: Observe is called
// once per request, as it ends, with its Record, which is valid only
// during the call. It is called from many requests at once and must be
// safe for concurrent use; it runs on the request's goroutine, before the
// handler returns, so it should not block. A stream's events cost an
// Observer nothing: they are counted in the Record.
type Observer interface {
	Observe(rec *Record)
}

// maxAttrs bounds the attributes of a Record's log line: appendAttrs
// writes at most this many.
const maxAttrs = 22

// appendAttrs appends rec's log line attributes to a, in a fixed order.
// The gateway passes a stack array's slice, so that a line costs no slice
// of its own (slog.Record copies what it keeps).
func (rec *Record) appendAttrs(a []slog.Attr) []slog.Attr {
	a = append(a,
		slog.String("client", rec.Client),
	)
	if rec.Caller != "" {
		a = append(a, slog.String("caller", rec.Caller))
	}
	a = append(a,
		slog.String("id", rec.ID),
		slog.String("upstream_id", rec.UpstreamID),
		slog.String("method", rec.Method),
		slog.String("path", rec.Path),
		slog.Int("status", rec.Status),
		slog.String("kind", rec.Kind),
		slog.String("coding", rec.Coding),
		slog.Int64("in", rec.In),
		slog.Int64("out", rec.Out),
		slog.Float64("ttfb_ms", ms(rec.FirstByte)),
		slog.Float64("duration_ms", ms(rec.Duration)),
		slog.String("end", rec.End.String()),
	)
	if rec.Kind == KindANTH || rec.Kind == KindSSE {
		a = append(a, slog.Int64("frames", rec.Frames), slog.Int64("input_tokens", rec.InputTokens), slog.Int64("output_tokens", rec.OutputTokens))
	}
	if rec.Fault != "" {
		a = append(a, slog.String("fault", string(rec.Fault)))
	}
	if rec.Err != nil {
		a = append(a, slog.String("error", rec.Err.Error()))
	}
	if rec.ResumeID != "" {
		a = append(a, slog.String("resume_id", rec.ResumeID))
	}
	if rec.Resumed {
		a = append(a, slog.Int64("resume_from", rec.ResumeFrom))
	}
	if rec.ResumeErr != nil {
		a = append(a, slog.String("resume_error", rec.ResumeErr.Error()))
	}
	return a
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
