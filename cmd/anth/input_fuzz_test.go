package main

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
)

// FuzzOpenANTH: whatever the input, openANTH decides without panicking; ANTH
// comes back byte for byte; what any reader it returns gives is at most
// DEFLATE's 1,032 bytes per input byte (anth-deflate's bound; the bridge's
// ANTH is smaller than its SSE), plus the bridge's fixed frames; an error
// is one of the kinds it names.
func FuzzOpenANTH(f *testing.F) {
	first, rest := textResponseSSE()
	var coded bytes.Buffer
	z := deflate.NewWriter(&coded, eventDict())
	z.Write(frame.AppendDone(frame.AppendText(frame.AppendMagic(nil), 0, []byte("hi")), frame.StopEndTurn, ""))
	z.Flush()
	for _, seed := range [][]byte{
		frame.AppendDone(frame.AppendText(frame.AppendMagic(nil), 0, []byte("hi")), frame.StopEndTurn, ""),
		[]byte(first + rest),
		coded.Bytes(),
		[]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
		[]byte("HTTP/1.1 200 OK\r\n\r\n"),
		{0xFF, 0x00},
		nil,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, kind, err := openANTH(bytes.NewReader(in))
		if err != nil {
			var api *apiErrorBody
			if !errors.Is(err, errNotANTH) && !errors.As(err, &api) {
				t.Fatalf("error of no named kind: %v", err)
			}
			return
		}
		out, _ := io.ReadAll(io.LimitReader(r, int64(1032*len(in)+4096)+1))
		switch kind {
		case kindANTH:
			if !bytes.Equal(out, in) {
				t.Fatalf("ANTH changed: %d bytes in, %d out", len(in), len(out))
			}
		case kindDeflate, kindSSE:
			if len(out) > 1032*len(in)+4096 {
				t.Fatalf("%s: %d bytes out of %d in", kind, len(out), len(in))
			}
		default:
			t.Fatalf("kind %q", kind)
		}
	})
}
