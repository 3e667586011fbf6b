package fuzz

import (
	"bytes"
	"errors"
	"io"
	"slices"
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
	var e frame.TokenEncoder
	f.Add(frame.AppendDone(e.AppendPackedToken(e.AppendPackedToken(frame.AppendMagic(nil), 42, 42, 100276, 42), 100276, 7, 1<<31), 0, ""))
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
	var ids frame.TokenDecoder
	for {
		var fr frame.Frame
		if fr, err = r.Next(); err != nil {
			break
		}
		if fr.Type.IsToken() {
			// The Reader has checked a PACKED_TOKEN frame's places against
			// the frames before it: its IDs read.
			got, terr := ids.Tokens(nil, fr)
			if terr != nil || len(got) != fr.TokenCount() {
				t.Fatalf("%v frame the Reader returned: %d IDs, TokenCount %d, %v", fr.Type, len(got), fr.TokenCount(), terr)
			}
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

// FuzzPackedToken reads arbitrary bytes as a PACKED_TOKEN payload after a
// frame of 64 IDs (so that every place is one the list holds): a payload
// that reads gives at most 4 IDs a byte (SPEC.md §12), as many as
// TokenCount says, and the IDs, written again by an encoder at the same
// state, read back the same; one that does not is an *frame.Error at a
// byte of the payload, the list unchanged, as Parse finds it unless only
// the list's state made it wrong.
func FuzzPackedToken(f *testing.F) {
	f.Add([]byte{0x36, 0x6A, 0x80, 0x00, 0x30, 0xFE, 0x90, 0x40})
	f.Add([]byte{0x01, 0xFF})
	f.Add([]byte{0x00, 0x55, 0x55})
	f.Add([]byte{0xFD, 0x30, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		first := make([]uint32, frame.RecentTokens)
		for i := range first {
			first[i] = uint32(i * 977)
		}
		var enc frame.TokenEncoder
		var dec frame.TokenDecoder
		b := enc.AppendPackedToken(nil, first...)
		f0, _, err := frame.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dec.Tokens(nil, f0); err != nil {
			t.Fatal(err)
		}
		fr := frame.Frame{Type: frame.TypePackedToken, Payload: in}
		ids, err := dec.Tokens(nil, fr)
		if err != nil {
			var e *frame.Error
			if !errors.As(err, &e) || !errors.Is(err, frame.ErrMalformed) || e.Offset < 0 || e.Offset > int64(len(in)) || len(ids) != 0 {
				t.Fatalf("error %v, IDs %v; want an *frame.Error in the payload", err, ids)
			}
			// The list is as it was: the frame of 64 reads again as places.
			again, err := dec.Tokens(nil, frame.Frame{Type: frame.TypePackedToken, Payload: enc.AppendPackedToken(nil, first...)[frame.HeaderSize:]})
			if err != nil || len(again) != len(first) {
				t.Fatalf("after a failed frame the list changed: %v", err)
			}
			return
		}
		if _, _, perr := frame.Parse(fr.Append(nil)); perr != nil && len(in) <= frame.MaxPayload {
			t.Fatalf("TokenDecoder reads what Parse refuses: %v", perr)
		}
		if len(ids) > 4*len(in) || len(ids) != fr.TokenCount() {
			t.Fatalf("%d IDs from %d bytes, TokenCount %d", len(ids), len(in), fr.TokenCount())
		}
		// Written again at the list's state before: the same IDs.
		var enc2 frame.TokenEncoder
		var dec2 frame.TokenDecoder
		b0 := enc2.AppendPackedToken(nil, first...)
		f0, _, _ = frame.Parse(b0)
		dec2.Tokens(nil, f0)
		for len(ids) > 0 {
			n := min(len(ids), 5000)
			bb := enc2.AppendPackedToken(nil, ids[:n]...)
			g, _, err := frame.Parse(bb)
			if err != nil {
				t.Fatalf("the encoder's frame: %v", err)
			}
			got, err := dec2.Tokens(nil, g)
			if err != nil || !slices.Equal(got, ids[:n]) {
				t.Fatalf("written again and read: %v, %v; want %v", got, err, ids[:n])
			}
			ids = ids[n:]
		}
	})
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
