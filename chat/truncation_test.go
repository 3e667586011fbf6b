package chat

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/layer0/anth/frame"
)

// TestEveryCut: every prefix of every recording decodes to ErrTruncated,
// at the prefix's end, unless the response ended inside it; then it gives
// the ANTH of the whole stream up to there, never a shorter response
// (SPEC.md §7b.3, §3.11), or, cut after a chunk with which a stream with
// no [DONE] may end, the ANTH up to that chunk and the end that gives. The same for the ANTH: every cut of it makes the
// Encoder's Close report ErrTruncated unless the DONE or ERROR frame is in.
func TestEveryCut(t *testing.T) {
	recs := recordings(t)
	for _, name := range sortedNames(recs) {
		src := recs[name]
		full := toANTH(t, src, DecoderOptions{})
		for _, n := range cuts(src) {
			out, err := io.ReadAll(NewDecoder(bytes.NewReader(src[:n]), DecoderOptions{}))
			if err == nil {
				prefix := out
				if i := bytes.LastIndex(out, eofEvent); i >= 0 && i+len(eofEvent) < len(out) && out[i+len(eofEvent)] == byte(frame.TypeDone) {
					prefix = out[:i] // the end with the bytes: EVENT eof, DONE
				}
				if !bytes.HasPrefix(full, prefix) || !endsResponse(t, out) {
					t.Fatalf("%s cut at %d: no error, and not a whole response", name, n)
				}
				continue
			}
			var e *Error
			if !errors.Is(err, ErrTruncated) || !errors.As(err, &e) || e.Offset != int64(n) {
				t.Fatalf("%s cut at %d: %v, want ErrTruncated at %d", name, n, err, n)
			}
		}
		for _, n := range cuts(full) {
			e := NewEncoder(io.Discard, EncoderOptions{})
			_, err := e.Write(full[:n])
			if err == nil {
				err = e.Close()
			}
			if err == nil {
				if !endsResponse(t, full[:n]) {
					t.Fatalf("%s: ANTH cut at %d encodes with no error", name, n)
				}
			} else if !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s: ANTH cut at %d: %v, want ErrTruncated", name, n, err)
			}
		}
	}
}

// TestCutAfterEnd: bytes after a response's end that complete no event (a
// connection cut after the response) leave it whole: the ANTH of the
// stream alone and no error, as the gateway's relay judges it (SPEC.md
// §7b.3). A stream whose end is only the end of its bytes (no [DONE]) is
// cut by them, as before.
func TestCutAfterEnd(t *testing.T) {
	recs := recordings(t)
	for _, name := range sortedNames(recs) {
		src := recs[name]
		full := toANTH(t, src, DecoderOptions{})
		cutByTail := bytes.Contains(full, eofEvent)
		for _, tail := range []string{"0", `data: {"x":`, "data: {}\n", ": c", "data: [DONE]\n"} {
			in := append(append([]byte{}, src...), tail...)
			got, err := io.ReadAll(NewDecoder(bytes.NewReader(in), DecoderOptions{}))
			if cutByTail {
				if !errors.Is(err, ErrTruncated) || relayWhole(in) {
					t.Errorf("%s + %q: %v (relay says whole: %v), want ErrTruncated", name, tail, err, relayWhole(in))
				}
				continue
			}
			if err != nil || !bytes.Equal(got, full) || !relayWhole(in) {
				t.Errorf("%s + %q: %v, the stream's ANTH %v, relay says whole: %v; want the stream alone", name, tail, err, bytes.Equal(got, full), relayWhole(in))
			}
		}
	}
}

// eofEvent is the EVENT eof a Decoder writes when a stream with no [DONE]
// ends with its bytes (SPEC.md §7b.3).
var eofEvent = (&toFrames{}).whole(nil, "eof", []byte("null"))

// endsResponse reports whether an ANTH stream holds a DONE or ERROR frame.
func endsResponse(t testing.TB, anth []byte) bool {
	t.Helper()
	enc := NewEncoder(io.Discard, EncoderOptions{})
	if _, err := enc.Write(anth); err != nil {
		return false
	}
	return enc.Close() == nil && enc.core.ended
}

// cuts returns where to cut b: everywhere in a short stream; in a long one
// (openai-go's is 75 KB, and each cut decodes from the start) everywhere in
// its first and last KiB, next to every blank line, and every 251st byte.
func cuts(b []byte) []int {
	var out []int
	for n := 0; n < len(b); n++ {
		near := n < 1024 || n > len(b)-1024 || n%251 == 0
		for d := -1; d <= 1 && !near; d++ {
			near = n+d > 0 && n+d < len(b) && b[n+d-1] == '\n' && b[n+d] == '\n'
		}
		if len(b) < 8192 || near {
			out = append(out, n)
		}
	}
	return out
}
