package fuzz

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/request"
)

// FuzzReader feeds arbitrary bytes to frame.Reader. Read as raw frames,
// whatever it reads, skipped frames included, re-encodes to exactly the bytes
// it consumed, and the slice layer agrees with the streaming layer frame for
// frame. Read as a response, it gives the same frames and the same error
// from an io.Reader and pushed in pieces, and those frames, written again,
// are the bytes they came from. A failure is an *frame.Error (or a clean
// io.EOF), never a panic.
func FuzzReader(f *testing.F) {
	f.Add([]byte("ANTH"))
	f.Add(frame.AppendDone(frame.AppendToken(frame.AppendMagic(nil), 1, 70000), frame.StopEndTurn, ""))
	f.Add(frame.AppendDone(frame.AppendShortToken(frame.AppendShortToken(frame.AppendMagic(nil), 42), 200018), frame.StopEndTurn, ""))
	f.Add(frame.AppendError(frame.AppendMagic(nil), frame.CodeAPI, string(make([]byte, 70000))))
	f.Add(frame.AppendDone(frame.AppendVocab(frame.AppendMagic(nil), frame.Vocab{Name: []byte("ab"), Specials: []byte("\x00\x00\x00\x01\x00\x00\x00\x02\x00\x01s")}), 0, ""))
	f.Add(frame.AppendVocab(frame.AppendMagic(nil), frame.Vocab{Flags: frame.VocabDigest | frame.VocabText, Kind: 1}))
	f.Fuzz(func(t *testing.T, in []byte) {
		raw(t, in)
		response(t, in)
	})
}

func raw(t *testing.T, in []byte) {
	var re []byte
	r := frame.NewReader(bytes.NewReader(in), frame.ReaderOptions{RawFrames: true, OnSkip: func(fr frame.Frame) { re = fr.Append(re) }})
	rest := in
	var err error
	for {
		var fr frame.Frame
		fr, err = r.Next()
		if err != nil {
			break
		}
		re = fr.Append(re)
		if fr.Type == frame.TypeVocab {
			// SPEC.md §3.13: a VOCAB frame that parses reads through its
			// accessor and writes back the same.
			v, verr := fr.Vocab()
			if verr != nil || !bytes.Equal(frame.AppendVocab(nil, v), fr.Append(nil)) {
				t.Fatalf("VOCAB % X: accessor %v, or writes back otherwise", fr.Payload, verr)
			}
		}
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
	checkEnd(t, in, re, err)
}

// checkEnd checks how reading in ended, with re the frames read, encoded.
func checkEnd(t *testing.T, in, re []byte, err error) {
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
}

func response(t *testing.T, in []byte) {
	var re bytes.Buffer
	w := frame.NewWriter(&re, frame.WriterOptions{})
	r := frame.NewReader(bytes.NewReader(in), frame.ReaderOptions{OnSkip: func(fr frame.Frame) { w.WriteFrame(fr) }})
	var frames [][]byte
	var err error
	for {
		var fr frame.Frame
		if fr, err = r.Next(); err != nil {
			break
		}
		if werr := w.WriteFrame(fr); werr != nil {
			t.Fatalf("a frame the Reader returned does not write: %v", werr)
		}
		frames = append(frames, fr.Append(nil))
	}
	checkEnd(t, in, bytes.TrimPrefix(re.Bytes(), []byte(frame.Magic)), err)

	// Pushed in three pieces cut where the input's length says.
	p := frame.NewPushReader(frame.ReaderOptions{})
	var pushed [][]byte
	var perr error
	cuts := []int{0, len(in) / 3, len(in) * 2 / 3, len(in)}
	for i := 1; i < len(cuts) && perr == nil; i++ {
		p.Write(in[cuts[i-1]:cuts[i]])
		if i == len(cuts)-1 {
			p.CloseWrite()
		}
		for {
			fr, err := p.Next()
			if err == frame.ErrNeedMore {
				break
			}
			if err != nil {
				perr = err
				break
			}
			pushed = append(pushed, fr.Append(nil))
		}
	}
	if len(pushed) != len(frames) || (perr == nil) != (err == nil) || (perr != nil && perr.Error() != err.Error()) {
		t.Fatalf("pull: %d frames, %v; push: %d frames, %v", len(frames), err, len(pushed), perr)
	}
	for i := range frames {
		if !bytes.Equal(frames[i], pushed[i]) {
			t.Fatalf("frame %d differs between pull and push", i)
		}
	}
}

// FuzzParseRequest feeds arbitrary bytes to request.Parse: a request
// that parses re-encodes to the same bytes (the encoding is canonical), and
// anything else is an *request.Error.
func FuzzParseRequest(f *testing.F) {
	b, _ := request.Append(nil, request.Seed{Model: "m", Messages: []request.Message{{Content: "hi"}}, MaxTokens: 70000})
	f.Add(b)
	f.Fuzz(func(t *testing.T, in []byte) {
		req, err := request.Parse(in)
		if err != nil {
			var e *request.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *request.Error", err, err)
			}
			return
		}
		out, err := request.Append(nil, req)
		if err != nil {
			t.Fatalf("parsed request does not encode: %v", err)
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("re-encoded\n% X\nfrom\n% X", out, in)
		}
	})
}
