package chat

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/sse"
)

// FuzzDecoder: any SSE either fails with a typed error of the module's
// kinds or decodes within the Decoder's budget to ANTH that the Encoder
// writes back as the same events, and that decodes again to the same
// bytes (SPEC.md §7b: typed only when exact); the Encoder keeps its budget
// too. The seed corpus is every stream of testdata/chat and SPEC's
// vectors.
func FuzzDecoder(f *testing.F) {
	for _, name := range sortedNames(recordings(f)) {
		if b := recordings(f)[name]; len(b) < 8192 {
			f.Add(b)
		}
	}
	f.Add([]byte("data: [DONE]\n\n"))
	f.Add([]byte(textChunk("a") + textChunk("b") + "data: [DONE]\n\n"))
	f.Add([]byte("event: x\ndata: {}\n\ndata: {\"error\":{\"message\":\"m\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n"))
	// The stream's error as Groq and OpenRouter send it (SPEC.md §7b.3).
	f.Add([]byte(textChunk("a") + "event: error\ndata: {\"error\":{\"message\":\"m\",\"code\":\"x\"}}\n\n"))
	f.Add([]byte(`data: {"choices":[{"index":0,"delta":{"content":""}}],"error":{"code":400,"message":"m"}}` + "\n\ndata: [DONE]\n\n"))
	// Together AI's copies of the text and its token's ID (§7b.2, item 6).
	f.Add([]byte(`data: {"choices":[{"index":0,"text":"a","delta":{"token_id":7,"content":"a"}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"text":"b","delta":{"token_id":0,"content":"b"}}]}` + "\n\ndata: [DONE]\n\n"))
	f.Add([]byte(`data: {"choices":[{"index":0,"delta":{"reasoning":"a","reasoning_details":[{"type":"reasoning.text","text":"a","index":0}]}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"text":"","delta":{"reasoning":"b","reasoning_details":[{"type":"reasoning.text","text":"","index":0}]}}]}` + "\n\ndata: [DONE]\n\n"))
	// Running usage counts, Perplexity's (§7b.2, item 5).
	f.Add([]byte(`data: {"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5}}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"content":"b"}}],"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}}` + "\n\ndata: [DONE]\n\n"))
	// Writer's: the delta again in choices[0].message, and no [DONE] after
	// the usage chunk (§7b.2 item 6, §7b.3).
	f.Add([]byte(`data: {"choices":[{"index":0,"message":{"content":"a"},"delta":{"content":"a"},"finish_reason":null}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"message":{"content":"b"},"delta":{"content":"b"},"finish_reason":"stop"}]}` + "\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}}` + "\n\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		anth, err := io.ReadAll(NewDecoder(bytes.NewReader(src), DecoderOptions{}))
		if whole := relayWhole(src); (err == nil || errors.Is(err, ErrTruncated)) && whole != (err == nil) {
			t.Fatalf("the Decoder says %v; the gateway's relay (CheckEvent, EndsAtEOF) says whole: %v", err, whole)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !(errors.Is(err, ErrMalformed) || errors.Is(err, ErrTruncated) || errors.Is(err, ErrTooLarge)) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(anth) > decoderBudget*len(src)+len(frame.Magic) {
			t.Fatalf("%d B of ANTH for %d B of SSE", len(anth), len(src))
		}
		var out bytes.Buffer
		e := NewEncoder(&out, EncoderOptions{})
		if _, err := e.Write(anth); err != nil {
			t.Fatalf("the Decoder's ANTH does not encode: %v", err)
		}
		if err := e.Close(); err != nil {
			t.Fatalf("the Decoder's ANTH does not end: %v", err)
		}
		if out.Len() > encoderBudget*len(anth) {
			t.Fatalf("%d B of SSE for %d B of ANTH", out.Len(), len(anth))
		}
		if d := diffEvents(t, src, out.Bytes()); d != "" {
			t.Fatalf("SSE → ANTH → SSE differs:\n%s", d)
		}
		if again := toANTH(t, out.Bytes(), DecoderOptions{}); !bytes.Equal(again, anth) {
			t.Fatalf("ANTH → SSE → ANTH differs:\n% X\n% X", anth, again)
		}
	})
}

// relayWhole judges an SSE stream as the gateway's relay does, by
// CheckEvent and EndsAtEOF alone: whole when an event ends it, or when its
// bytes end after an event with which a stream with no [DONE] may end.
func relayWhole(src []byte) bool {
	sc := sse.NewScanner(bytes.NewReader(src), sse.DefaultMaxEvent)
	var last, lastName []byte
	for {
		name, data, err := sc.Next()
		if err == io.EOF {
			return (API{}).EndsAtEOF(lastName, last)
		}
		if err != nil {
			return false
		}
		ends, err := (API{}).CheckEvent(name, data)
		if err != nil {
			return false
		}
		if ends {
			return true
		}
		last, lastName = append(last[:0], data...), append(lastName[:0], name...)
	}
}

// FuzzEncoder: any ANTH either fails with a typed error or encodes within
// the Encoder's budget to SSE that the Decoder reads without error.
func FuzzEncoder(f *testing.F) {
	for _, name := range sortedNames(recordings(f)) {
		if b := recordings(f)[name]; len(b) < 8192 {
			f.Add(toANTH(f, b, DecoderOptions{}))
		}
	}
	f.Add(worstEncoderInput()[:200])
	f.Fuzz(func(t *testing.T, anth []byte) {
		var out bytes.Buffer
		e := NewEncoder(&out, EncoderOptions{})
		_, err := e.Write(anth)
		if err == nil {
			err = e.Close()
		}
		if out.Len() > encoderBudget*len(anth)+256 {
			t.Fatalf("%d B of SSE for %d B of ANTH", out.Len(), len(anth))
		}
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrTooLarge) &&
				!errors.Is(err, frame.ErrBadMagic) && !errors.Is(err, frame.ErrUnknownType) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if _, err := io.ReadAll(NewDecoder(bytes.NewReader(out.Bytes()), DecoderOptions{})); err != nil {
			t.Fatalf("the Encoder's SSE does not decode: %v\n%s", err, out.Bytes())
		}
	})
}
