package deflate

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
)

// markerWriter writes the start of a dynamic block (RFC 1951 §3.2.7) in
// which every bit is output: its literal/length code is length 258 (0),
// 'a' (10) and length code 284 (11), which with extra bits 11111 is 258
// too; its distance code is 1 (0) and 2 (1). Its first symbol is an 'a',
// so matches have a byte to copy. A zero byte is four matches of 258, and
// the four bytes a reader once put back after a record, 00 00 FF FF, read
// as codes of this block, are ten: 2,580 bytes for none received.
func markerWriter() bitWriter {
	var w bitWriter
	code := func(c uint64, n uint) { // Huffman codes go most significant bit first
		for i := n; i > 0; i-- {
			w.Bits(c>>(i-1)&1, 1)
		}
	}
	w.Bits(0, 1) // BFINAL
	w.Bits(2, 2) // BTYPE 10, dynamic codes
	w.Bits(286-257, 5)
	w.Bits(2-1, 5)
	w.Bits(19-4, 4) // all the code length codes
	// Code lengths of the code length code: a run of zeros (18) 1 bit,
	// code lengths 1 and 2 two bits: 18 is 0, 1 is 10, 2 is 11.
	for _, sym := range [...]int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15} {
		switch sym {
		case 18:
			w.Bits(1, 3)
		case 1, 2:
			w.Bits(2, 3)
		default:
			w.Bits(0, 3)
		}
	}
	zeros := func(n int) { // a run of zeros (18), 7 extra bits of n - 11
		for n > 0 {
			k := min(n, 138)
			code(0, 1)
			w.Bits(uint64(k-11), 7)
			n -= k
		}
	}
	zeros('a')
	code(3, 2) // 'a': 2
	zeros(284 - 'a' - 1)
	code(3, 2) // 284: 2
	code(2, 2) // 285: 1
	code(2, 2) // distance 1: 1
	code(2, 2) // distance 2: 1
	code(2, 2) // 'a'
	return w
}

// markerBlock is markerWriter's bits padded to a byte with zero bits:
// matches of 258 at distance 1.
func markerBlock() []byte {
	w := markerWriter()
	w.Align()
	return w.B
}

// worstRecords is the input that gives the most output per byte when a
// record may end inside a block: markerBlock as a record, then n records
// of one zero byte, each followed by the four bytes put back.
func worstRecords(n int) []byte {
	head := markerBlock()
	in := body(nil, append([]byte{byte(len(head))}, head...)...)
	for range n {
		in = append(in, 1, 0)
	}
	return in
}

// TestRecordEndsOnSyncFlush: the four bytes a reader puts back after a
// record are the LEN and NLEN of an empty stored block, never codes or
// stored data, and it puts back at most two zero bytes before them
// (SPEC.md §11.2). Before, a record that ended inside a block had the
// marker read as codes: worstRecords(16), 47 bytes, gave 60,631 bytes
// (1,290 a byte, over the documented 1,032; 1,806 a byte as the records go
// on) and io.EOF; worstRecords(10), 35 bytes, is the seed of
// FuzzDeflateReader that failed its bound (38,959 bytes out). The zero
// bytes put back after markerBlock are eight matches of 258, and then its
// third is malformed: still under 1,032 a byte of the record and its
// length, since its code tables, which give nothing, are longer than two
// bytes.
func TestRecordEndsOnSyncFlush(t *testing.T) {
	in := worstRecords(16)
	n, err := io.Copy(io.Discard, NewReader(bytes.NewReader(in), nil))
	var e *Error
	if !errors.As(err, &e) || e.Err != ErrMalformed || e.Offset != int64(idSize+1+len(markerBlock())) {
		t.Errorf("a record that ends inside a block: %d bytes, %v; want ErrMalformed at %d", n, err, idSize+1+len(markerBlock()))
	}
	// What the block's own zero bits give, and then the two zero bytes.
	pad := int(8 - markerWriter().nbits%8)
	if want := int64(1 + 258*(pad/2+8)); n != want {
		t.Errorf("%d bytes out, want %d: 'a', the matches of the record's last %d bits, and 8 of the zero bytes", n, want, pad)
	}
	if n > 1032*int64(1+len(markerBlock())) {
		t.Errorf("%d bytes out of a record of %d, over 1,032 a byte", n, len(markerBlock()))
	}
}

// TestOutputBound: 1,032 bytes out per byte in, DEFLATE's limit (a
// 258-byte match in 2 bits), holds for the input that comes closest to it,
// one record of a dynamic block of such matches; and the Reader holds the
// same memory whatever it gives out.
func TestOutputBound(t *testing.T) {
	var w bitWriter
	data := markerBlock()
	w.B = data
	for range 1 << 16 {
		w.Bits(0, 8) // four matches of 258
	}
	// This block has no end-of-block code, so no sync flush can follow
	// it: the record ends inside the block, which is ErrMalformed once
	// all the record holds is out.
	in := body(nil, append(appendLen(nil, len(w.B)), w.B...)...)
	alloc := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.TotalAlloc
	}
	buf := make([]byte, 32<<10)
	r := NewReader(bytes.NewReader(in), nil)
	before := alloc()
	var n int64
	var err error
	for err == nil {
		var k int
		k, err = r.Read(buf)
		n += int64(k)
	}
	held := alloc() - before
	var e *Error
	if !errors.As(err, &e) || e.Err != ErrMalformed || e.Offset != int64(len(in)) {
		t.Errorf("%v, want ErrMalformed at %d", err, len(in))
	}
	ratio := float64(n) / float64(len(in))
	t.Logf("%d bytes in, %d out: %.1f a byte; %d bytes allocated", len(in), n, ratio, held)
	if ratio > 1032 || ratio < 1000 {
		t.Errorf("%.1f bytes out a byte in, want 1,000 to 1,032", ratio)
	}
	if held > 64<<10 {
		t.Errorf("%d bytes allocated reading %d bytes out, want at most 64 KiB", held, n)
	}
}

func appendLen(b []byte, n int) []byte {
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}
