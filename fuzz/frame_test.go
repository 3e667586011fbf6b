package fuzz

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/layer0/anth/frame"
)

// FuzzReader feeds arbitrary bytes to frame.Reader. Whatever it reads,
// skipped frames included, re-encodes to exactly the bytes it consumed; the
// slice layer agrees with the streaming layer frame for frame; and a failure
// is an *frame.Error (or a clean io.EOF), never a panic.
func FuzzReader(f *testing.F) {
	f.Add([]byte("ANTH"))
	f.Add(frame.AppendDone(frame.AppendToken(frame.AppendMagic(nil), 1, 70000), frame.StopEndTurn, ""))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := frame.NewReader(bytes.NewReader(in))
		var re []byte
		r.OnSkip = func(fr frame.Frame) { re = fr.Append(re) }
		rest := in
		var err error
		for {
			var fr frame.Frame
			fr, err = r.Next()
			if err != nil {
				break
			}
			re = fr.Append(re)
			if len(rest) == len(in) {
				rest = rest[len(frame.Magic):]
			}
			// The slice layer must agree with the Reader on every frame.
			for {
				pf, n, perr := frame.Parse(rest)
				if perr != nil {
					t.Fatalf("Parse fails where Reader succeeded: %v", perr)
				}
				rest = rest[n:]
				if pf.Type.Known() {
					if pf.Type != fr.Type || !bytes.Equal(pf.Payload, fr.Payload) {
						t.Fatalf("Parse and Reader disagree: %v vs %v", pf, fr)
					}
					break
				}
			}
		}
		var e *frame.Error
		switch {
		case err == io.EOF:
			if want := in[len(frame.Magic):]; !bytes.Equal(re, want) {
				t.Fatalf("clean end, but frames re-encode to\n% X\nnot\n% X", re, want)
			}
		case errors.As(err, &e):
			if e.Offset < 0 || e.Offset > int64(len(in)) {
				t.Fatalf("error offset %d outside the %d-byte input", e.Offset, len(in))
			}
			if len(in) >= len(frame.Magic) && !bytes.HasPrefix(in[len(frame.Magic):], re) {
				t.Fatalf("frames before the error re-encode to bytes not in the input")
			}
		default:
			t.Fatalf("error %v (%T), want *frame.Error or io.EOF", err, err)
		}
	})
}

// FuzzParseRequest feeds arbitrary bytes to frame.ParseRequest: a request
// that parses re-encodes to the same bytes (the encoding is canonical), and
// anything else is an *frame.Error.
func FuzzParseRequest(f *testing.F) {
	b, _ := frame.AppendRequest(nil, frame.Request{Model: "m", Messages: []frame.Message{{Content: "hi"}}, MaxTokens: 70000})
	f.Add(b)
	f.Fuzz(func(t *testing.T, in []byte) {
		req, err := frame.ParseRequest(in)
		if err != nil {
			var e *frame.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *frame.Error", err, err)
			}
			return
		}
		out, err := frame.AppendRequest(nil, req)
		if err != nil {
			t.Fatalf("parsed request does not encode: %v", err)
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("re-encoded\n% X\nfrom\n% X", out, in)
		}
	})
}
