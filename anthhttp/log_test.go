package anthhttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// capture is a slog.Handler keeping each record it is given.
type capture struct{ recs []slog.Record }

func (*capture) Enabled(context.Context, slog.Level) bool { return true }
func (c *capture) Handle(_ context.Context, r slog.Record) error {
	c.recs = append(c.recs, r.Clone())
	return nil
}
func (c *capture) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *capture) WithGroup(string) slog.Handler      { return c }

// nopHandler is a slog.Handler that takes every record and does nothing.
type nopHandler struct{}

func (nopHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (nopHandler) Handle(context.Context, slog.Record) error { return nil }
func (h nopHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h nopHandler) WithGroup(string) slog.Handler           { return h }

// wantLine is a Record's log line as GatewayOptions.Logger documents it,
// written out field by field: the level, then each attribute as key=value
// in order.
func wantLine(rec *Record) []string {
	level := "INFO"
	if rec.End == EndError || rec.End == EndCut {
		level = "WARN"
	}
	l := []string{level, "request", "client=" + rec.Client}
	if rec.Caller != "" {
		l = append(l, "caller="+rec.Caller)
	}
	l = append(l, "id="+rec.ID, "upstream_id="+rec.UpstreamID, "method="+rec.Method, "path="+rec.Path,
		"status="+slog.IntValue(rec.Status).String(), "kind="+rec.Kind, "coding="+rec.Coding,
		"in="+slog.Int64Value(rec.In).String(), "out="+slog.Int64Value(rec.Out).String(),
		"ttfb_ms="+slog.Float64Value(float64(rec.FirstByte.Microseconds())/1000).String(),
		"duration_ms="+slog.Float64Value(float64(rec.Duration.Microseconds())/1000).String(),
		"end="+rec.End.String())
	if rec.Kind == KindANTH || rec.Kind == KindSSE {
		l = append(l, "frames="+slog.Int64Value(rec.Frames).String(),
			"input_tokens="+slog.Int64Value(rec.InputTokens).String(), "output_tokens="+slog.Int64Value(rec.OutputTokens).String())
	}
	if rec.Fault != "" {
		l = append(l, "fault="+string(rec.Fault))
	}
	if rec.Err != nil {
		l = append(l, "error="+rec.Err.Error())
	}
	if rec.ResumeID != "" {
		l = append(l, "resume_id="+rec.ResumeID)
	}
	if rec.Resumed {
		l = append(l, "resume_from="+slog.Int64Value(rec.ResumeFrom).String())
	}
	if rec.ResumeErr != nil {
		l = append(l, "resume_error="+rec.ResumeErr.Error())
	}
	return l
}

func gotLine(r slog.Record) []string {
	l := []string{r.Level.String(), r.Message}
	r.Attrs(func(a slog.Attr) bool {
		l = append(l, a.Key+"="+a.Value.String())
		return true
	})
	return l
}

func recordGen() *rapid.Generator[*Record] {
	str := rapid.SampledFrom([]string{"", "a", "x y", "127.0.0.1:1234", "é\"=\n"})
	dur := rapid.Map(rapid.Int64Range(0, int64(time.Hour)), func(n int64) time.Duration { return time.Duration(n) })
	errs := rapid.SampledFrom([]error{nil, errors.New("boom"), ErrTruncated})
	return rapid.Custom(func(t *rapid.T) *Record {
		return &Record{
			Method: str.Draw(t, "method"), Path: str.Draw(t, "path"), Client: str.Draw(t, "client"), Caller: str.Draw(t, "caller"),
			ID: str.Draw(t, "id"), UpstreamID: str.Draw(t, "upstreamID"), Status: rapid.IntRange(0, 599).Draw(t, "status"),
			Kind:   rapid.SampledFrom([]string{KindANTH, KindSSE, KindJSON, KindProxy, KindPreflight}).Draw(t, "kind"),
			Coding: rapid.SampledFrom([]string{"", "anth-deflate"}).Draw(t, "coding"),
			In:     rapid.Int64().Draw(t, "in"), Out: rapid.Int64().Draw(t, "out"),
			FirstByte: dur.Draw(t, "ttfb"), Duration: dur.Draw(t, "duration"),
			End:   End(rapid.IntRange(0, 4).Draw(t, "end")),
			Fault: rapid.SampledFrom([]Fault{"", FaultReset, FaultTruncated}).Draw(t, "fault"), Err: errs.Draw(t, "err"),
			Frames: rapid.Int64().Draw(t, "frames"), InputTokens: rapid.Int64().Draw(t, "input"), OutputTokens: rapid.Int64().Draw(t, "output"),
			ResumeID: str.Draw(t, "resumeID"), Resumed: rapid.Bool().Draw(t, "resumed"), ResumeFrom: rapid.Int64().Draw(t, "resumeFrom"),
			ResumeErr: errs.Draw(t, "resumeErr"),
		}
	})
}

// TestGatewayLogLine: the access-log line of any Record has the level,
// message and attributes GatewayOptions.Logger documents, in order, and
// its source is log's caller (the gateway's finish), as Logger.LogAttrs's
// would be.
func TestGatewayLogLine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rec := recordGen().Draw(t, "rec")
		var c capture
		g := &Gateway{opts: GatewayOptions{Logger: slog.New(&c)}}
		g.log(rec)
		g.log(rec) // the second, with the caller found by the first
		if len(c.recs) != 2 {
			t.Fatalf("%d lines, want 2", len(c.recs))
		}
		for _, r := range c.recs {
			if d := cmp.Diff(wantLine(rec), gotLine(r)); d != "" {
				t.Fatalf("log line (-want +got):\n%s", d)
			}
			fr, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
			if !strings.Contains(fr.Function, ".TestGatewayLogLine") {
				t.Fatalf("line's source %q, want log's caller", fr.Function)
			}
		}
	})
}

// TestGatewayLogText: a text handler's line, source and all, is the one
// Logger.LogAttrs gives from the same place.
func TestGatewayLogText(t *testing.T) {
	var got, want bytes.Buffer
	opts := &slog.HandlerOptions{AddSource: true, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	rec := &Record{Method: "POST", Path: "/v1/messages", Client: "127.0.0.1:1", ID: "00ff", Status: 200, Kind: KindANTH, Err: errors.New("a b"), End: EndError}
	g := &Gateway{opts: GatewayOptions{Logger: slog.New(slog.NewTextHandler(&got, opts))}}
	g.log(rec)
	slog.New(slog.NewTextHandler(&want, opts)).LogAttrs(context.Background(), slog.LevelWarn, "request", rec.appendAttrs(nil)...)
	// The sources differ in their line only.
	trim := func(s string) string {
		i := strings.Index(s, ".go:")
		j := strings.IndexByte(s[i:], ' ')
		return s[:i] + s[i+j:]
	}
	if d := cmp.Diff(trim(want.String()), trim(got.String())); d != "" {
		t.Errorf("line (-Logger.LogAttrs +gateway):\n%s", d)
	}
}

// TestGatewayLogAllocs: a log line costs the gateway one allocation, the
// slog.Record's attributes past its first five; the handler's own are its
// business.
func TestGatewayLogAllocs(t *testing.T) {
	if RaceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	g := &Gateway{opts: GatewayOptions{Logger: slog.New(nopHandler{})}}
	rec := &Record{Method: "POST", Path: "/v1/messages", Client: "127.0.0.1:1", ID: "00ff", Status: 200, Kind: KindANTH}
	if n := testing.AllocsPerRun(100, func() { g.log(rec) }); n > 1 {
		t.Errorf("%v allocations a line, want at most 1", n)
	}
}

// BenchmarkGatewayLog is a stream's access-log line through slog's text
// handler (anth proxy's), the handler's own formatting and all.
func BenchmarkGatewayLog(b *testing.B) {
	g := &Gateway{opts: GatewayOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	rec := benchRecord()
	b.ReportAllocs()
	for b.Loop() {
		g.log(rec)
	}
}

// benchRecord is a typical stream's Record.
func benchRecord() *Record {
	return &Record{Method: "POST", Path: "/v1/messages", Client: "127.0.0.1:54321", ID: "0123456789abcdef", UpstreamID: "req_011CUzKx",
		Status: 200, Kind: KindANTH, In: 312, Out: 4123, FirstByte: 1234567, Duration: 45678901, Frames: 120, InputTokens: 12, OutputTokens: 400}
}
