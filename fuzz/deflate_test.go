package fuzz

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/layer0/anth/deflate"
)

var fuzzDict = deflate.NewDictionary([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`))

// FuzzDeflateReader feeds arbitrary bytes to deflate.Reader: it ends in
// io.EOF or an *deflate.Error (or, for bytes compress/flate reads as a
// final block, io.EOF), never a panic, and gives at most DEFLATE's 1,032
// bytes for each byte of input.
func FuzzDeflateReader(f *testing.F) {
	f.Add(coded([]byte("The model streams"), 3))
	f.Add(coded(bytes.Repeat([]byte("token "), 500), 7))
	f.Add([]byte{0})
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Fuzz(func(t *testing.T, in []byte) {
		n, err := io.Copy(io.Discard, deflate.NewReader(bytes.NewReader(in), fuzzDict))
		var e *deflate.Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %v is not a *deflate.Error", err)
		}
		if n > 1032*int64(len(in)) {
			t.Fatalf("%d bytes out of %d in", n, len(in))
		}
	})
}

// FuzzDeflateRoundTrip writes arbitrary bytes through deflate.Writer,
// flushing every step bytes, and reads them back whole.
func FuzzDeflateRoundTrip(f *testing.F) {
	f.Add([]byte("The model streams each token"), uint16(4))
	f.Add(bytes.Repeat([]byte{0xE4, 0xBD, 0xA0}, 5000), uint16(1000))
	f.Fuzz(func(t *testing.T, in []byte, step uint16) {
		got, err := io.ReadAll(deflate.NewReader(bytes.NewReader(coded(in, int(step))), fuzzDict))
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("%d bytes back (%v), want %d", len(got), err, len(in))
		}
	})
}

// coded writes in through a deflate.Writer, step bytes per record.
func coded(in []byte, step int) []byte {
	step = max(step, 1)
	var out bytes.Buffer
	w := deflate.NewWriter(&out, fuzzDict)
	for len(in) > 0 {
		k := min(step, len(in))
		w.Write(in[:k])
		w.Flush()
		in = in[k:]
	}
	return out.Bytes()
}
