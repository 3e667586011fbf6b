package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"sort"
	"testing"
	"testing/iotest"

	"github.com/layer0/anth/deflate"
)

var fuzzDict = deflate.NewDictionary([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`))

// FuzzDeflateReader feeds arbitrary records to deflate.Reader, after the
// dictionary's DICTID (which the fuzzer would otherwise spend its time
// guessing; TestFaults covers it): it ends in io.EOF or an
// *deflate.Error (or, for bytes compress/flate reads as a final block,
// io.EOF), never a panic, and gives at most DEFLATE's 1,032 bytes for each
// byte of records, the zero bytes put back after them included (SPEC.md
// §11.2).
func FuzzDeflateReader(f *testing.F) {
	f.Add(coded([]byte("The model streams"), 3)[4:])
	f.Add(coded(bytes.Repeat([]byte("token "), 500), 7)[4:])
	// A record that holds its whole sync flush, as zlib writes it, and
	// one whose codes ask for a third zero byte (SPEC.md §11.5).
	f.Add([]byte{0x03, 0xAA, 0x00, 0x00})
	f.Add([]byte{0x01, 0x1A})
	f.Add([]byte{0})
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	id := binary.BigEndian.AppendUint32(nil, fuzzDict.ID())
	f.Fuzz(func(t *testing.T, in []byte) {
		body := append(id[:4:4], in...)
		n, err := io.Copy(io.Discard, deflate.NewReader(bytes.NewReader(body), fuzzDict))
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

// FuzzDeflateRecords writes arbitrary bytes as records of arbitrary sizes
// (the bytes of splits, each a record's length of input) and checks the
// record-level invariants of SPEC.md §11.2: the whole body reads back
// exactly, read at once or a byte at a time; cut at a record's end it reads
// back exactly what those records hold and ends cleanly; cut inside a
// record it is ErrTruncated, after at least what the records before the
// cut hold; and no read gives more than 1,032 bytes per byte of input.
func FuzzDeflateRecords(f *testing.F) {
	f.Add([]byte("The model streams each token"), []byte{1, 2, 3, 0, 22})
	f.Add(bytes.Repeat([]byte("你好 "), 300), []byte{255, 7, 0, 0, 1})
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, in, splits []byte) {
		var body bytes.Buffer
		w := deflate.NewWriter(&body, fuzzDict)
		ends := []int{0} // body offsets at which a record ends
		held := []int{0} // input bytes the records up to there hold
		rest := in
		for i := 0; len(rest) > 0; i++ {
			k := len(rest)
			if i < len(splits) {
				k = min(int(splits[i]), len(rest))
			}
			w.Write(rest[:k])
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			rest = rest[k:]
			if body.Len() > ends[len(ends)-1] {
				ends, held = append(ends, body.Len()), append(held, len(in)-len(rest))
			}
		}
		b := body.Bytes()
		for _, r := range []io.Reader{bytes.NewReader(b), iotest.OneByteReader(bytes.NewReader(b))} {
			if got, err := io.ReadAll(deflate.NewReader(r, fuzzDict)); err != nil || !bytes.Equal(got, in) {
				t.Fatalf("%d bytes back (%v), want %d", len(got), err, len(in))
			}
		}
		// Cuts at each record's end and a byte to either side of it: where
		// the reader's record logic decides.
		var cuts []int
		for _, e := range ends {
			for _, c := range []int{e - 1, e, e + 1} {
				if c >= 0 && c < len(b) {
					cuts = append(cuts, c)
				}
			}
		}
		for _, cut := range cuts {
			got, err := io.ReadAll(deflate.NewReader(bytes.NewReader(b[:cut]), fuzzDict))
			if len(got) > 1032*cut {
				t.Fatalf("cut at %d: %d bytes out", cut, len(got))
			}
			i := sort.SearchInts(ends, cut)
			if i < len(ends) && ends[i] == cut {
				if err != nil || !bytes.Equal(got, in[:held[i]]) {
					t.Fatalf("cut at a record's end, %d: %d bytes (%v), want %d", cut, len(got), err, held[i])
				}
				continue
			}
			if !errors.Is(err, deflate.ErrTruncated) || !bytes.HasPrefix(in, got) || len(got) < held[i-1] {
				t.Fatalf("cut inside a record, at %d: %d bytes (%v), want ErrTruncated after at least %d", cut, len(got), err, held[i-1])
			}
		}
	})
}
