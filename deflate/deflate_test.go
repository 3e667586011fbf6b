package deflate

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

var testDict = NewDictionary([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`))

// piece draws bytes to write: text that repeats as prose does, random
// bytes, or long runs.
func piece(t *rapid.T) []byte {
	switch rapid.IntRange(0, 3).Draw(t, "kind") {
	case 0:
		words := rapid.SliceOfN(rapid.SampledFrom([]string{" the", " model", " streams", " 令牌", "\n", ".", string(testDict.Bytes()[:20])}), 0, 30).Draw(t, "words")
		return []byte(strings.Join(words, ""))
	case 1:
		return rapid.SliceOfN(rapid.Byte(), 0, 200).Draw(t, "bytes")
	case 2:
		return bytes.Repeat([]byte{rapid.Byte().Draw(t, "b")}, rapid.IntRange(0, 70_000).Draw(t, "run"))
	}
	return bytes.Repeat([]byte("abcdefgh"), rapid.IntRange(0, 10_000).Draw(t, "times"))
}

// recordWriter notes where each record the Writer writes ends.
type recordWriter struct {
	bytes.Buffer
	ends []int
}

func (w *recordWriter) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	w.ends = append(w.ends, w.Len())
	return n, err
}

// TestRoundTrip: whatever is written, in whatever pieces, with flushes
// anywhere, reads back exactly, whatever the read sizes; and the coded
// bytes up to any record's end read back as all that was written before
// the write or flush that ended it, and then io.EOF.
func TestRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var out recordWriter
		w := NewWriter(&out, testDict)
		var want []byte
		var flushed []int // bytes written when each record ended
		for range rapid.IntRange(0, 20).Draw(t, "writes") {
			p := piece(t)
			records := len(out.ends)
			if _, err := w.Write(p); err != nil {
				t.Fatal(err)
			}
			want = append(want, p...)
			for range len(out.ends) - records {
				flushed = append(flushed, -1) // ended by itself, inside this write
			}
			if rapid.Bool().Draw(t, "flush") {
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				if len(out.ends) > len(flushed) {
					flushed = append(flushed, len(want))
				}
			}
		}
		w.Flush()
		if len(out.ends) > len(flushed) {
			flushed = append(flushed, len(want))
		}
		coded := out.Bytes()
		got, err := io.ReadAll(iotest.OneByteReader(NewReader(bytes.NewReader(coded), testDict)))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read back %d bytes (%v), want %d", len(got), err, len(want))
		}
		got, err = io.ReadAll(NewReader(iotest.HalfReader(bytes.NewReader(coded)), testDict))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read back %d bytes in halves (%v), want %d", len(got), err, len(want))
		}
		// Coded bytes in pieces of random sizes, read into buffers of
		// random sizes: a record's end, and the zero bytes put back
		// after it (SPEC.md §11.2), fall anywhere in them.
		in := &chunkReader{b: coded, sizes: rapid.SliceOfN(rapid.IntRange(1, 40), 1, 8).Draw(t, "pieces")}
		r := NewReader(in, testDict)
		got = got[:0]
		for _, size := range rapid.SliceOfN(rapid.IntRange(1, 300), 1, 8).Draw(t, "reads") {
			buf := make([]byte, size)
			n, _ := r.Read(buf) // an error is sticky: ReadAll sees it
			got = append(got, buf[:n]...)
		}
		rest, err := io.ReadAll(r)
		if got = append(got, rest...); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read back %d bytes in pieces of %v (%v), want %d", len(got), in.sizes, err, len(want))
		}
		for i, end := range out.ends {
			if flushed[i] < 0 {
				continue
			}
			r := NewReader(bytes.NewReader(coded[:end]), testDict)
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, want[:flushed[i]]) {
				t.Fatalf("record %d: %d bytes read back (%v), want the %d written before it", i, len(got), err, flushed[i])
			}
			// The record leaves out every zero byte of its sync flush
			// it may (SPEC.md §11.2): the reader put at least one back,
			// and two, or the record ends on a byte that is not zero.
			if z := r.in.zeros; z == 0 || z < maxZeros && coded[end-1] == 0 {
				t.Fatalf("record %d ends % X, and the reader put back %d zero bytes", i, coded[max(0, end-3):end], z)
			}
		}
	})
}

// TestOtherEncoders: the Reader reads what any DEFLATE encoder writes when
// it is sync-flushed and cut the same way; the coding is not this Writer's.
func TestOtherEncoders(t *testing.T) {
	text := []string{"The model", " streams", " each token", " as it is", " sampled.", " The model streams", ""}
	coded := body(testDict)
	var want []byte
	var buf bytes.Buffer
	zw, _ := flate.NewWriterDict(&buf, flate.BestCompression, testDict.Bytes())
	for _, p := range text {
		zw.Write([]byte(p))
		zw.Flush()
		rec := bytes.TrimSuffix(buf.Bytes(), syncMarker[:])
		coded = binary.AppendUvarint(coded, uint64(len(rec)))
		coded = append(coded, rec...)
		want = append(want, p...)
		buf.Reset()
	}
	got, err := io.ReadAll(NewReader(bytes.NewReader(coded), testDict))
	if err != nil || string(got) != string(want) {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	// The same records without the zero byte before the marker, which
	// the inflater reads as bits whatever came before it (§11.2).
	short := body(testDict)
	for r := range records(t, coded) {
		if len(r) > 1 && r[len(r)-1] == 0 {
			r = r[:len(r)-1]
		}
		short = binary.AppendUvarint(short, uint64(len(r)))
		short = append(short, r...)
	}
	got, err = io.ReadAll(NewReader(bytes.NewReader(short), testDict))
	if err != nil || string(got) != string(want) || len(short) >= len(coded) {
		t.Fatalf("without their last zero byte: got %q, %v; want %q", got, err, want)
	}
	// And a stream that ends with a final block, as zlib's Z_FINISH does.
	zw.Close()
	coded = binary.AppendUvarint(coded, uint64(buf.Len()))
	coded = append(coded, buf.Bytes()...)
	got, err = io.ReadAll(NewReader(bytes.NewReader(coded), testDict))
	if err != nil || string(got) != string(want) {
		t.Fatalf("with a final block: got %q, %v; want %q", got, err, want)
	}
}

// chunkReader gives b in pieces of the sizes given, one after another,
// round and round.
type chunkReader struct {
	b     []byte
	sizes []int
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.sizes[c.i%len(c.sizes)])], c.b)
	c.b, c.i = c.b[n:], c.i+1
	return n, nil
}

// records yields the records of a coded body.
func records(t *testing.T, coded []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for b := coded[idSize:]; len(b) > 0; {
			n, k := binary.Uvarint(b)
			if k <= 0 || uint64(len(b)-k) < n {
				t.Fatalf("not a record: % X", b)
			}
			if !yield(b[k : k+int(n)]) {
				return
			}
			b = b[k+int(n):]
		}
	}
}

// body is a coded body of records from dict: its DICTID, then the records.
func body(dict *Dictionary, records ...byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, dict.ID()), records...)
}

func coded(t *testing.T, parts ...string) []byte {
	t.Helper()
	var out bytes.Buffer
	w := NewWriter(&out, testDict)
	for _, p := range parts {
		w.Write([]byte(p))
		w.Flush()
	}
	return out.Bytes()
}

// TestFaults: every way coded input can be wrong gives its kind, at the
// offset where it went wrong, after whatever came before it.
func TestFaults(t *testing.T) {
	good := coded(t, "hello, ", "world")
	first := idSize + int(good[idSize]) + 1 // the DICTID and the first record, with its one-byte length
	finalBlock := []byte{0x03, 0x00}
	tests := []struct {
		name string
		in   []byte
		want error
		off  int64
		read string
	}{
		{"zero length", append(good[:first:first], 0), ErrMalformed, int64(first), "hello, "},
		{"length over MaxRecord", append(good[:first:first], 0x80, 0x80, 0x80, 0x80, 0x08), ErrMalformed, int64(first), "hello, "},
		{"length of more than 5 bytes", append(good[:first:first], 0x81, 0x80, 0x80, 0x80, 0x80, 0x01), ErrMalformed, int64(first), "hello, "},
		{"length not in its shortest form", append(good[:first:first], 0x81, 0x00), ErrMalformed, int64(first), "hello, "},
		{"ends inside a length", append(good[:first:first], 0x81), ErrTruncated, int64(first + 1), "hello, "},
		// compress/flate gives what it decoded before the input ended:
		// the record's last byte holds the end of its text, since the
		// zero bytes of the flush are left out (§11.2).
		{"ends inside a record", good[:len(good)-1], ErrTruncated, int64(len(good) - 1), "hello, worl"},
		{"ends inside a record's text", good[:len(good)-3], ErrTruncated, int64(len(good) - 3), "hello, wo"},
		{"reserved block type", append(good[:first:first], 1, 0x07), ErrMalformed, int64(first + 2), "hello, "},
		// Found after reading the match: its offset is within the record.
		{"distance before the dictionary", body(testDict, farMatch()...), ErrMalformed, -1, ""},
		{"bytes after the final block", body(testDict, append([]byte{3}, append(finalBlock, 0)...)...), ErrMalformed, idSize + 3, ""},
		{"a record after the final block", body(testDict, append([]byte{2}, append(finalBlock, good[idSize:]...)...)...), ErrMalformed, idSize + 3, ""},
		// The DICTID first (§11.2): a body from another dictionary is
		// refused before a byte of it is inflated to the wrong text.
		{"another dictionary", append(body(nil), good[idSize:]...), ErrMalformed, 0, ""},
		{"ends inside the DICTID", good[:3], ErrTruncated, 3, ""},
	}
	for _, tt := range tests {
		got, err := io.ReadAll(NewReader(bytes.NewReader(tt.in), testDict))
		var e *Error
		if !errors.Is(err, tt.want) || !errors.As(err, &e) || e.Offset != tt.off && (tt.off >= 0 || e.Offset < 1 || e.Offset > int64(len(tt.in))) {
			t.Errorf("%s: %v, want %v at offset %d", tt.name, err, tt.want, tt.off)
		}
		if string(got) != tt.read {
			t.Errorf("%s: read %q before the error, want %q", tt.name, got, tt.read)
		}
	}
	// The underlying reader's error comes out as it is.
	boom := errors.New("boom")
	_, err := io.ReadAll(NewReader(io.MultiReader(bytes.NewReader(good[:3]), iotest.ErrReader(boom)), testDict))
	if err != boom {
		t.Errorf("underlying error: %v, want boom", err)
	}
	// A Writer's error is sticky.
	w := NewWriter(iotestErrWriter{boom}, nil)
	w.Write([]byte("x"))
	if err := w.Flush(); err != boom {
		t.Errorf("Flush: %v, want boom", err)
	}
	if _, err := w.Write([]byte("y")); err != boom {
		t.Errorf("Write after an error: %v, want boom", err)
	}
	// A Write that ends a record by itself and cannot write it counts the
	// bytes it took: the first chunk of maxChunk.
	noise := make([]byte, 3*maxChunk)
	rand.NewChaCha8([32]byte{2}).Read(noise)
	w = NewWriter(iotestErrWriter{boom}, nil)
	if n, err := w.Write(noise); n != maxChunk || err != boom {
		t.Errorf("Write of %d bytes of noise: %d, %v; want %d, boom", len(noise), n, err, maxChunk)
	}
}

// farMatch is a record whose match reaches back past the dictionary.
func farMatch() []byte {
	w := bitWriter{B: []byte{0}}
	w.StartBlock(false)
	w.Match(3, len(testDict.Bytes())+1)
	w.EndBlock()
	w.SyncFlush()
	w.B[0] = byte(len(w.B) - 1)
	return w.B
}

type iotestErrWriter struct{ err error }

func (w iotestErrWriter) Write([]byte) (int, error) { return 0, w.err }

// TestRecords: a Writer writes one record per Flush with something to
// say, none for a Flush with nothing, and ends a record by itself rather
// than hold more than maxRecord coded bytes.
func TestRecords(t *testing.T) {
	var out recordWriter
	w := NewWriter(&out, nil)
	w.Flush()
	if len(out.ends) != 0 {
		t.Fatalf("a Flush with nothing written wrote %d records", len(out.ends))
	}
	w.Write([]byte("a"))
	w.Flush()
	w.Flush()
	if len(out.ends) != 1 {
		t.Fatalf("Write, Flush, Flush wrote %d records, want 1", len(out.ends))
	}
	random := make([]byte, 200_000)
	rng := rand.NewChaCha8([32]byte{1})
	rng.Read(random)
	w.Write(random)
	w.Flush()
	prev := out.ends[0]
	for _, end := range out.ends[1:] {
		if end-prev > maxRecord+maxChunk*9/8+16 {
			t.Fatalf("a record of %d bytes", end-prev)
		}
		prev = end
	}
	if len(out.ends) < 4 {
		t.Fatalf("200 KB of noise in %d records", len(out.ends))
	}
	got, err := io.ReadAll(NewReader(bytes.NewReader(out.Bytes()), nil))
	if err != nil || !bytes.Equal(got, append([]byte("a"), random...)) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
}

// TestReset: a reset Writer and Reader give what new ones give.
func TestReset(t *testing.T) {
	var a, b bytes.Buffer
	w := NewWriter(&a, testDict)
	w.Write([]byte("some text that is not in the next stream"))
	w.Flush()
	w.Reset(&b)
	w.Write([]byte(`{"type":"content_block_delta" text`))
	w.Flush()
	fresh := coded(t, `{"type":"content_block_delta" text`)
	if diff := cmp.Diff(fresh, b.Bytes()); diff != "" {
		t.Fatalf("a reset Writer writes otherwise (-new +reset):\n%s", diff)
	}
	r := NewReader(bytes.NewReader([]byte{0}), testDict)
	io.ReadAll(r)
	r.Reset(bytes.NewReader(b.Bytes()))
	got, err := io.ReadAll(r)
	if err != nil || string(got) != `{"type":"content_block_delta" text` {
		t.Fatalf("a reset Reader reads %q, %v", got, err)
	}
}

// TestDictionary: the dictionary is what the first record matches
// against: a delta event in it codes to a few bytes.
func TestDictionary(t *testing.T) {
	with := coded(t, string(testDict.Bytes())+`Hello"}}`)
	var out bytes.Buffer
	w := NewWriter(&out, nil)
	w.Write([]byte(string(testDict.Bytes()) + `Hello"}}`))
	w.Flush()
	if len(with) > 16+idSize || out.Len() < 60+idSize {
		t.Fatalf("with the dictionary %d bytes, without %d", len(with), out.Len())
	}
}

func TestAllocs(t *testing.T) {
	text := []byte(" the model streams each token")
	var sink bytes.Buffer
	w := NewWriter(&sink, testDict)
	if n := testing.AllocsPerRun(1000, func() {
		sink.Reset()
		w.Write(text)
		w.Flush()
	}); n != 0 {
		t.Errorf("Write and Flush: %.1f allocations, want 0", n)
	}
	// The window slides in place: a long stream allocates nothing either.
	long := []byte(strings.Repeat(" the model streams each token as it is sampled", 40))
	if n := testing.AllocsPerRun(1000, func() {
		sink.Reset()
		w.Write(long)
		w.Flush()
	}); n != 0 {
		t.Errorf("Write and Flush of %d bytes: %.1f allocations, want 0", len(long), n)
	}
	// An Inflater inflates value after value into its own buffers.
	var inf Inflater
	value := AppendBlock(nil, []byte(`{"type":"message_start","message":{"id":"msg_1"}}`), testDict)
	if n := testing.AllocsPerRun(100, func() {
		if _, err := inf.Inflate(value, testDict, 1<<10); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Inflater.Inflate: %.1f allocations, want 0", n)
	}
	parts := make([]string, 1000)
	for i := range parts {
		parts[i] = " the model streams"
	}
	stream := coded(t, parts...)
	var src bytes.Reader
	src.Reset(stream)
	r := NewReader(&src, testDict)
	small := make([]byte, 64)
	if n := testing.AllocsPerRun(100, func() {
		for range 5 {
			if _, err := r.Read(small); err != nil {
				t.Fatal(err)
			}
		}
	}); n != 0 {
		t.Errorf("Read within a stream: %.1f allocations, want 0", n)
	}
	if raceEnabled {
		return // the race detector drops what sync.Pool holds: Reset may allocate
	}
	buf := make([]byte, 4096)
	if n := testing.AllocsPerRun(100, func() {
		src.Reset(stream)
		r.Reset(&src)
		for {
			if _, err := r.Read(buf); err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				break
			}
		}
	}); n != 0 {
		t.Errorf("Reset and Read to the end: %.1f allocations, want 0", n)
	}
}

// readEach reads r to its end in Reads of size bytes, failing the test if
// a Read returns neither bytes nor an error (io.ReadAll would hide it).
func readEach(t *testing.T, r io.Reader, size int) ([]byte, error) {
	t.Helper()
	var got []byte
	buf := make([]byte, size)
	for {
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			return got, err
		}
		if n == 0 {
			t.Fatalf("a Read returned no bytes and no error, after %q", got)
		}
	}
}

// TestRecordLength: a record's length is 1 to MaxRecord in its shortest
// form, 1 to 5 bytes; each fault has its kind, offset and message, after
// the record before it.
func TestRecordLength(t *testing.T) {
	good := coded(t, "hello, ")
	at := int64(len(good))
	for _, c := range []struct {
		length []byte
		kind   error
		off    int64
		msg    string
	}{
		{[]byte{0x00}, ErrMalformed, at, "malformed: record length 0, want 1 to 2147483647"},
		{[]byte{0x81, 0x00}, ErrMalformed, at, "malformed: record length not in its shortest form"},
		{[]byte{0xFF, 0x80, 0x00}, ErrMalformed, at, "malformed: record length not in its shortest form"},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x08}, ErrMalformed, at, "malformed: record length 2147483648, want 1 to 2147483647"},
		{[]byte{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, ErrMalformed, at, "malformed: record length 4294967295, want 1 to 2147483647"},
		{[]byte{0x81, 0x80, 0x80, 0x80, 0x80, 0x01}, ErrMalformed, at, "malformed: record length 34359738369, want 1 to 2147483647"},
		// The longest length and a 5-byte one are lengths: the input then
		// ends inside the record they begin.
		{[]byte{0xFF, 0xFF, 0xFF, 0xFF, 0x07}, ErrTruncated, at + 5, "unexpected EOF: input ends inside a record"},
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x01}, ErrTruncated, at + 5, "unexpected EOF: input ends inside a record"},
		{[]byte{0x81}, ErrTruncated, at + 1, "unexpected EOF: input ends inside a record"},
		{[]byte{0x80, 0x80, 0x80, 0x80}, ErrTruncated, at + 4, "unexpected EOF: input ends inside a record"},
	} {
		in := append(append([]byte(nil), good...), c.length...)
		got, err := readEach(t, NewReader(bytes.NewReader(in), testDict), 64)
		var e *Error
		if !errors.As(err, &e) || e.Err != c.kind || e.Offset != c.off || string(got) != "hello, " {
			t.Errorf("length % X: read %q, %v; want %v at %d", c.length, got, err, c.kind, c.off)
			continue
		}
		if want := fmt.Sprintf("deflate: offset %d: %s", c.off, c.msg); err.Error() != want {
			t.Errorf("length % X: %q, want %q", c.length, err.Error(), want)
		}
	}
	if got, want := (&Error{Offset: 7, Err: ErrTruncated}).Error(), "deflate: offset 7: unexpected EOF"; got != want {
		t.Errorf("an Error without detail: %q, want %q", got, want)
	}
}

// TestStoredBlockCut: a record of stored blocks (which another encoder may
// write) cut anywhere gives the bytes before the cut and ErrTruncated at
// it; whole, it reads to io.EOF. compress/flate reads stored blocks with
// Read rather than ReadByte.
func TestStoredBlockCut(t *testing.T) {
	const text = "hello, world"
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, flate.NoCompression)
	zw.Write([]byte(text))
	zw.Flush()
	rec := bytes.TrimSuffix(buf.Bytes(), syncMarker[:])
	in := body(nil, append([]byte{byte(len(rec))}, rec...)...)
	const header = idSize + 6 // the DICTID, the length, then the stored block's header, LEN and NLEN
	for cut := 1; cut <= len(in); cut++ {
		for _, size := range []int{1, 64} {
			got, err := readEach(t, NewReader(bytes.NewReader(in[:cut]), nil), size)
			var e *Error
			switch {
			case cut == len(in):
				if err != io.EOF || string(got) != text {
					t.Errorf("whole: read %q, %v", got, err)
				}
			case cut == idSize:
				// The DICTID and no record: a body that ends between
				// records, whose response the frame layer finds cut.
				if err != io.EOF || len(got) != 0 {
					t.Errorf("the DICTID alone: read %q, %v; want io.EOF", got, err)
				}
			case !errors.As(err, &e) || e.Err != ErrTruncated || e.Offset != int64(cut) || string(got) != text[:max(0, cut-header)]:
				t.Errorf("cut at %d, %d-byte reads: read %q, %v; want %q and ErrTruncated at %d", cut, size, got, err, text[:max(0, cut-header)], cut)
			}
		}
	}
}

// TestRecordInsideBlock: a record that ends inside a block, without the
// block's end and a sync flush even with the two zero bytes put back after
// it, is malformed at its end (SPEC.md §11.2), after the text it holds:
// the 00 00 FF FF put back after it are not codes. Before, compress/flate
// read the marker's zero bits as the end of the block and the start of a
// stored one, and the input read as text and io.EOF; at worst
// (TestRecordEndsOnSyncFlush) the marker was output.
func TestRecordInsideBlock(t *testing.T) {
	// 'a', then the first 5 bits of length code 280 (11000000): the zero
	// bytes complete it, a match of 115 at distance 1, but its 4 extra
	// bits, the 5 of its distance, the end of block and a stored header
	// want 22 bits, and two zero bytes and its last 3 are 19.
	w := bitWriter{}
	w.StartBlock(false)
	w.Literal('a')
	w.Bits(0b11, 5)
	w.Align() // 16 bits: Align adds none
	rec := append([]byte{byte(len(w.B))}, w.B...)
	// A stored block whose LEN and NLEN the record does not finish, and
	// one whose data would be the marker.
	storedHead := []byte{3, 0, 0x00, 0x00}
	storedData := []byte{5, 0, 0x04, 0x00, 0xFB, 0xFF}
	text := strings.Repeat("a", 116)
	for _, c := range []struct {
		in   []byte
		read string
		off  int64
	}{
		{rec, text, int64(len(rec))},
		{append(rec, coded(t, "x")[idSize:]...), text, int64(len(rec))},
		{storedHead, "", 4},
		{storedData, "", 6},
	} {
		c.in, c.off = body(nil, c.in...), c.off+idSize
		for _, size := range []int{1, 64} {
			got, err := readEach(t, NewReader(bytes.NewReader(c.in), nil), size)
			var e *Error
			if string(got) != c.read || !errors.As(err, &e) || e.Err != ErrMalformed || e.Offset != c.off {
				t.Errorf("% X: read %q, %v; want %q, ErrMalformed at %d", c.in, got, err, c.read, c.off)
			}
		}
	}
}

// TestZerosPutBack: the reader puts back the zero bytes a record leaves out
// of its sync flush, as many as the inflater asks for (SPEC.md §11.2): none
// for a record that holds its whole flush, as any encoder's sync flush cut
// before 00 00 FF FF does; one or two for a record whose codes end one or
// two bytes before it; and the zero bits may end a match the record began.
func TestZerosPutBack(t *testing.T) {
	for _, c := range []struct {
		name  string
		rec   []byte
		read  string
		zeros int
	}{
		// 'x' and the whole flush: 19 bits, then 5 zero bits, and 00.
		{"whole flush", wholeFlush("x"), "x", 0},
		{"one left out", wholeFlush("x")[:2], "x", 1},
		// 'a' and length code 285 (258), 19 bits: the 5 zero bits
		// left in the byte are the distance 1, and the two bytes put
		// back the end of block and the stored block's header.
		{"a match ended", matchRecord(), strings.Repeat("a", 259), 2},
		// A stored block of "hi": the next block's header is a zero
		// byte put back, an empty stored block whose LEN and NLEN are
		// the marker.
		{"after stored data", []byte{0x00, 0x02, 0x00, 0xFD, 0xFF, 'h', 'i'}, "hi", 1},
	} {
		in := body(nil, append([]byte{byte(len(c.rec))}, c.rec...)...)
		for _, size := range []int{1, 64} {
			r := NewReader(bytes.NewReader(in), nil)
			got, err := readEach(t, r, size)
			if err != io.EOF || string(got) != c.read || r.in.zeros != c.zeros {
				t.Errorf("%s, % X: read %q, %v, %d zero bytes put back; want %q, io.EOF, %d", c.name, in, got, err, r.in.zeros, c.read, c.zeros)
			}
		}
	}
}

// wholeFlush is a record of s's literals and the whole sync flush after
// them, as zlib writes it before 00 00 FF FF.
func wholeFlush(s string) []byte {
	w := bitWriter{}
	w.StartBlock(false)
	for _, c := range []byte(s) {
		w.Literal(c)
	}
	w.EndBlock()
	w.SyncFlush()
	return w.B
}

// matchRecord is 'a' and the length code of a 258-byte match, whose
// distance code, the end of block and the stored header are all zero bits
// after the record's last byte.
func matchRecord() []byte {
	w := bitWriter{}
	w.StartBlock(false)
	w.Literal('a')
	w.symbol(285)
	w.Align()
	return w.B
}

// TestRecordCut: a Writer ends a record by itself as soon as it holds
// maxRecord bytes, the room for the DICTID and the length included, and
// not before: these 16,382 bytes of 8-bit literals (and a few short matches) reach it
// exactly, and all but their last byte do not.
func TestRecordCut(t *testing.T) {
	b := make([]byte, 16382)
	rand.NewChaCha8([32]byte{9}).Read(b)
	for i := range b {
		b[i] %= 0x90 // the literals of 8-bit codes
	}
	for _, c := range []struct{ n, records int }{{16381, 0}, {16382, 1}} {
		var out recordWriter
		w := NewWriter(&out, nil)
		if n, err := w.Write(b[:c.n]); n != c.n || err != nil || len(out.ends) != c.records {
			t.Errorf("Write of %d bytes: %d, %v, %d records; want %d", c.n, n, err, len(out.ends), c.records)
		}
	}
}

// TestFixedMemory: however long the stream and however it is written, the
// Writer's history stays in the buffer it was made with (window +
// maxChunk bytes), sliding in place.
func TestFixedMemory(t *testing.T) {
	var sink bytes.Buffer
	w := NewWriter(&sink, testDict)
	text := []byte(strings.Repeat(" the model streams each token as it is sampled", 1000))
	for _, size := range []int{1, 100, 5000, maxChunk - 1, maxChunk, maxChunk + 1, len(text)} {
		for range 3 {
			w.Write(text[:size])
			w.Flush()
			if cap(w.hist) != window+maxChunk || len(w.hist) > cap(w.hist) {
				t.Fatalf("after writes of %d bytes: history of %d bytes in a buffer of %d", size, len(w.hist), cap(w.hist))
			}
			sink.Reset()
		}
	}
}

// TestDictionaryMismatch: a body coded from one dictionary and read with
// another is refused at offset 0, before any output (SPEC.md §11.2).
// Before the DICTID, it read back as other text and io.EOF: here "Hello,
// wprld" for "Hello, world", the match into the dictionary copying the
// reader's bytes.
func TestDictionaryMismatch(t *testing.T) {
	a, b := NewDictionary([]byte("the world is round")), NewDictionary([]byte("the wprld is round"))
	var out bytes.Buffer
	w := NewWriter(&out, a)
	w.Write([]byte("Hello, world"))
	w.Flush()
	for _, c := range []struct {
		dict *Dictionary
		name string
	}{{b, "another dictionary"}, {nil, "no dictionary"}} {
		got, err := io.ReadAll(NewReader(bytes.NewReader(out.Bytes()), c.dict))
		var e *Error
		if len(got) != 0 || !errors.As(err, &e) || e.Err != ErrMalformed || e.Offset != 0 {
			t.Errorf("%s: read %q, %v; want nothing and ErrMalformed at 0", c.name, got, err)
		}
	}
	if got, err := io.ReadAll(NewReader(bytes.NewReader(out.Bytes()), a)); err != nil || string(got) != "Hello, world" {
		t.Errorf("the same dictionary: %q, %v", got, err)
	}
	// Equal bytes are the same dictionary, whoever prepared them.
	if a.ID() != NewDictionary([]byte("the world is round")).ID() || a.ID() == b.ID() {
		t.Errorf("IDs %08x and %08x", a.ID(), b.ID())
	}
}
