package messages

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/layer0/anth/internal/testdata"
	"pgregory.net/rapid"
)

// decodeAll reads r through a Decoder and returns the ANTH and the error
// that ended it (nil at a clean end).
func decodeAll(r io.Reader, opts DecoderOptions) ([]byte, error) {
	b, err := io.ReadAll(NewDecoder(r, opts))
	return b, err
}

// TestScannerChunking: how the input arrives — whole, a byte at a time,
// in halves — changes nothing: the same ANTH, the same error at the same
// offset, for any mix of line ends, comments, long lines and bad events
// around the event limit.
func TestScannerChunking(t *testing.T) {
	pieces := []string{
		"event: message_start\n", "data: {\"type\":\"message_start\",\"message\":{}}\n",
		"event: message_stop\n", "data: {\"type\":\"message_stop\"}\n",
		"event: ping\n", "data: {\"type\":\"ping\"}\n", "data: {}\n", "data: [1,\n", "data: 2]\n",
		"data: {nope}\n", "data:" + strings.Repeat("7", 30) + "\n", "data: \"" + strings.Repeat("x", 20) + "\"\n",
		"event: " + strings.Repeat("n", 40) + "\n", ": comment\n", "id: 3\n", "retry: 9\n", "data\n",
		"\n", "\r", "\r\n", "\n\n", "\uFEFF", "event: error\n",
		"data: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"x\"}}\n",
	}
	rapid.Check(t, func(t *rapid.T) {
		var in []byte
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 20).Draw(t, "pieces") {
			in = append(in, p...)
		}
		if rapid.Bool().Draw(t, "CR line ends") {
			in = bytes.ReplaceAll(in, []byte("\n"), []byte("\r"))
		}
		opts := DecoderOptions{MaxEvent: rapid.IntRange(1, 40).Draw(t, "max event")}
		want, werr := decodeAll(bytes.NewReader(in), opts)
		for name, r := range map[string]io.Reader{
			"a byte at a time": iotest.OneByteReader(bytes.NewReader(in)),
			"in halves":        iotest.HalfReader(bytes.NewReader(in)),
			"with its EOF":     iotest.DataErrReader(bytes.NewReader(in)),
		} {
			got, gerr := decodeAll(r, opts)
			if !bytes.Equal(got, want) || errString(gerr) != errString(werr) {
				t.Fatalf("%q read %s: % X, %v; read whole: % X, %v", in, name, got, gerr, want, werr)
			}
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestDecoderOffsets: an event that is not JSON, or that the core refuses,
// is reported at the offset of its first line, whatever the line ends,
// comments and byte order mark before it.
func TestDecoderOffsets(t *testing.T) {
	start := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
	bad := ": note\nevent: x\ndata: {nope}\n\n"
	for _, eol := range []string{"\n", "\r", "\r\n"} {
		for _, lead := range []string{"", "\uFEFF", ": keep-alive\n\n", "\n\n"} {
			in := strings.ReplaceAll(lead+start+"\n"+bad, "\n", eol)
			want := int64(strings.Index(in, ": note"))
			_, err := decodeAll(strings.NewReader(in), DecoderOptions{})
			var e *Error
			if !errors.Is(err, ErrMalformed) || !errors.As(err, &e) || e.Offset != want {
				t.Errorf("%q: %v, want ErrMalformed at %d", in, err, want)
			}
		}
	}
}

// TestDecoderPool: a Decoder from an API's DecoderPool reads each stream
// whole with the options of the API that took it, goes back to the pool on
// Release, and comes out again reset; without a pool Release does nothing.
func TestDecoderPool(t *testing.T) {
	in := []byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	want, err := io.ReadAll(NewDecoder(bytes.NewReader(in), DecoderOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	pool := &DecoderPool{}
	api := API{Decoders: pool}
	var seen *Decoder
	for i := range 3 {
		d := api.NewDecoder(bytes.NewReader(in), false).(*Decoder)
		if got, err := io.ReadAll(d); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("stream %d: % X, %v; want % X", i, got, err, want)
		}
		if seen != nil && d != seen && !raceEnabled {
			t.Logf("stream %d: a new Decoder (the pool may drop what it holds)", i)
		}
		d.Release()
		seen = d
	}
	// Options are the taker's: a tiny MaxEvent fails the same stream.
	small := API{Decoders: pool, Decoder: DecoderOptions{MaxEvent: 8}}
	d := small.NewDecoder(bytes.NewReader(in), false).(*Decoder)
	if _, err := io.ReadAll(d); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("MaxEvent 8 from the pool: %v, want ErrTooLarge", err)
	}
	d.Release()
	alone := API{}.NewDecoder(bytes.NewReader(in), false).(*Decoder)
	alone.Release()
	if alone.pool != nil {
		t.Fatal("a Decoder of no pool has one after Release")
	}
}

// TestDecoderResetAllocs: a Decoder that has bridged the recordings of
// testdata/sse once bridges them again, each after a Reset, allocating
// nothing: what a pooled Decoder costs a gateway per stream is its CPU,
// not garbage (issue 26).
func TestDecoderResetAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	recs := testdata.SSE(t)
	readers := make([]bytes.Reader, 0, len(recs))
	for _, in := range recs {
		readers = append(readers, *bytes.NewReader(in))
	}
	for _, raw := range []bool{false, true} {
		d := NewDecoder(nil, DecoderOptions{RawEvents: raw})
		run := func() {
			for i := range readers {
				readers[i].Seek(0, io.SeekStart)
				d.Reset(&readers[i])
				for {
					if _, err := d.Next(); err != nil {
						if err != io.EOF {
							t.Fatal(err)
						}
						break
					}
				}
			}
		}
		run()
		if n := testing.AllocsPerRun(10, run); n != 0 {
			t.Errorf("RawEvents %v: %v allocations a run of %d streams, want 0", raw, n, len(readers))
		}
	}
}
