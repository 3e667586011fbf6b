package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/layer0/anth/chat"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
)

// FuzzOpenANTH: whatever the input, openANTH decides without panicking; ANTH
// comes back byte for byte; what any reader it returns gives is at most
// DEFLATE's 1,032 bytes per input byte (anth-deflate's bound; the bridge's
// ANTH is smaller than its SSE), plus the bridge's fixed frames; an error
// is one of the kinds it names, or a given --api that the input
// contradicts. Seeds: both APIs' streams as SSE, ANTH and anth-deflate.
func FuzzOpenANTH(f *testing.F) {
	first, rest := textResponseSSE()
	hi := frame.AppendDone(frame.AppendText(frame.AppendMagic(nil), 0, []byte("hi")), frame.StopEndTurn, "")
	chatSSE := `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}` + "\n\n" +
		`data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	chatANTH, _ := io.ReadAll(chat.NewDecoder(strings.NewReader(chatSSE), chat.DecoderOptions{}))
	coded := func(a *streamAPI, anth []byte) []byte {
		var b bytes.Buffer
		z := deflate.NewWriter(&b, a.Dictionary())
		z.Write(anth)
		z.Flush()
		return b.Bytes()
	}
	for _, seed := range [][]byte{
		hi,
		[]byte(first + rest),
		coded(apiMessages, hi),
		[]byte(chatSSE),
		chatANTH,
		coded(apiChat, chatANTH),
		[]byte("data: [DONE]\n\n"),
		[]byte(`{"error":{"message":"Overloaded","type":"server_error","param":null,"code":null}}`),
		[]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
		[]byte("HTTP/1.1 200 OK\r\n\r\n"),
		{0xFF, 0x00},
		nil,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var given *streamAPI // nil: tell by the input
		switch len(in) % 3 {
		case 1:
			given = apiMessages
		case 2:
			given = apiChat
		}
		src, err := openANTH(bytes.NewReader(in), given)
		r, kind := src.r, src.kind
		if err != nil {
			var api *apiErrorBody
			var mismatch *apiMismatch
			if !errors.Is(err, errNotANTH) && !errors.As(err, &api) && !(errors.As(err, &mismatch) && given != nil) {
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
