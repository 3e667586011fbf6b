package compare

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// The floor is what a stream must cost at one flush per event, whatever the
// encoding: the transport's framing for every flush, and the least a
// general-purpose compressor sends for the text each event carries, given
// the whole response before it as context. Every byte of an encoding
// beyond that pays for something else: the events' structure, usage, stop
// reason, ids, the encoding's own framing. So a goal set below the floor
// cannot be met by any encoding that flushes each event; only fewer
// flushes (coalescing) can go under it.
//
// What the floor leaves out, which makes it a lower bound for ANTH: an
// event that carries no text costs one byte (a flush must carry something:
// an empty HTTP/1.1 chunk ends the body); JSON and tool input, thinking,
// signatures and ids cost nothing; and the text's records carry no length
// of their own, the transport's framing delimits them. What it keeps, which
// makes it tight: the text, compressed by the best of four codecs (or as
// is, if that is less) with the whole response as context, as anth-deflate
// codes it (a stream whose window runs across the response, flushed after
// each event).

// A textCodec compresses a response's texts as one stream flushed after
// each, and returns what each flush wrote, checked by decoding it.
type textCodec struct {
	name    string
	records func(texts [][]byte, dict []byte) ([][]byte, error)
}

// rawCodec sends each text as it is: the content floor of an encoding that
// does not compress the text, as plain ANTH does not (a TEXT frame carries
// its text as is, SPEC.md §3.5).
var rawCodec = textCodec{"none (the text as is)", func(texts [][]byte, _ []byte) ([][]byte, error) {
	recs := make([][]byte, len(texts))
	for i, t := range texts {
		recs[i] = bytes.Clone(t)
	}
	return recs, nil
}}

// syncMarker ends every DEFLATE sync flush: an empty stored block's
// lengths. A record delimited by its transport can leave it out, as
// permessage-deflate does (RFC 7692 §7.2.1) and anth-deflate does (SPEC.md
// §11), and a reader put it back. anth-deflate's records leave out the zero
// bytes of codes and headers before it too, up to two (§11.2).
var syncMarker = []byte{0, 0, 0xff, 0xff}

// textCodecs are the codings the content floor takes the best of: DEFLATE
// at its best level with and without the API's anth-deflate preset
// dictionary (what anth-deflate itself may use), zstd and brotli at
// theirs, and the text as is, which a short stream's few deltas may cost
// less than any compressor's flushes do.
var textCodecs = []textCodec{
	rawCodec,
	{"deflate 9", func(texts [][]byte, _ []byte) ([][]byte, error) { return deflateRecords(texts, nil) }},
	{"deflate 9 + dictionary", deflateRecords},
	{"zstd 19", zstdRecords},
	{"brotli 11", brotliRecords},
}

// deflateRecords sync-flushes a raw DEFLATE stream after each text, each
// record without its sync marker and, as anth-deflate's (SPEC.md §11.2),
// without the zero bytes before it that the inflater reads as codes or
// headers, up to two.
func deflateRecords(texts [][]byte, dict []byte) ([][]byte, error) {
	var buf bytes.Buffer
	z, err := flate.NewWriterDict(&buf, flate.BestCompression, dict)
	if err != nil {
		return nil, err
	}
	recs, err := flushRecords(z, &buf, texts)
	if err != nil {
		return nil, err
	}
	for i, r := range recs {
		if !bytes.HasSuffix(r, syncMarker) {
			return nil, errors.New("a sync flush without its marker")
		}
		recs[i] = r[:len(r)-len(syncMarker)]
	}
	// Which bytes the inflater reads as bits: those a record may leave
	// out when they are zero; never a stored block's lengths or data.
	var stream []byte
	for _, r := range recs {
		stream = append(append(stream, r...), syncMarker...)
	}
	kinds := &byteKinds{r: bytes.NewReader(stream)}
	if err := check(flate.NewReaderDict(kinds, dict), texts); err != nil {
		return nil, err
	}
	// Read back what is counted: each record with the zero bytes it left
	// out and the marker put back.
	stream, at := stream[:0:0], 0
	for i, r := range recs {
		end := at + len(r)
		k := 0
		for k < 2 && k < len(r)-1 && r[len(r)-1-k] == 0 && end-1-k < len(kinds.bits) && kinds.bits[end-1-k] {
			k++
		}
		recs[i] = r[:len(r)-k]
		stream = append(append(append(stream, recs[i]...), make([]byte, k)...), syncMarker...)
		at = end + len(syncMarker)
	}
	return recs, check(flate.NewReaderDict(bytes.NewReader(stream), dict), texts)
}

// byteKinds notes, for each byte compress/flate reads, whether it read it
// as codes or a block header (ReadByte) or as a stored block's lengths or
// data (Read).
type byteKinds struct {
	r    *bytes.Reader
	bits []bool
}

func (k *byteKinds) ReadByte() (byte, error) {
	b, err := k.r.ReadByte()
	if err == nil {
		k.bits = append(k.bits, true)
	}
	return b, err
}

func (k *byteKinds) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	for range n {
		k.bits = append(k.bits, false)
	}
	return n, err
}

func zstdRecords(texts [][]byte, _ []byte) ([][]byte, error) {
	var buf bytes.Buffer
	z, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
	if err != nil {
		return nil, err
	}
	recs, err := flushRecords(z, &buf, texts)
	if err != nil {
		return nil, err
	}
	d, err := zstd.NewReader(bytes.NewReader(bytes.Join(recs, nil)), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return recs, check(d, texts)
}

func brotliRecords(texts [][]byte, _ []byte) ([][]byte, error) {
	var buf bytes.Buffer
	recs, err := flushRecords(brotli.NewWriterLevel(&buf, 11), &buf, texts)
	if err != nil {
		return nil, err
	}
	return recs, check(brotli.NewReader(bytes.NewReader(bytes.Join(recs, nil))), texts)
}

// flushRecords writes each text to z and flushes it, and returns what each
// flush added to buf. The stream is not closed: a response's end is an
// event of its own, which the floor counts apart.
func flushRecords(z interface {
	io.Writer
	Flush() error
}, buf *bytes.Buffer, texts [][]byte) ([][]byte, error) {
	recs := make([][]byte, len(texts))
	for i, t := range texts {
		n := buf.Len()
		if _, err := z.Write(t); err != nil {
			return nil, err
		}
		if err := z.Flush(); err != nil {
			return nil, err
		}
		recs[i] = bytes.Clone(buf.Bytes()[n:])
	}
	return recs, nil
}

// check reads back the texts from a decoder of the records: a record that
// lost a byte of its text would make a floor that is too low.
func check(r io.Reader, texts [][]byte) error {
	want := bytes.Join(texts, nil)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil {
		return fmt.Errorf("decoding the records: %w", err)
	}
	if !bytes.Equal(got, want) {
		return errors.New("the records decode to other text")
	}
	return nil
}

// floorStream is the floor's payload for one stream: a record per event,
// in the order of the events.
type floorStream struct {
	payloads [][]byte
	codec    string // the codec whose records these are
	text     int    // bytes of records that carry text
}

// floors computes and keeps the floor's payloads of streams (a long
// response's text is the same for both APIs and with or without padding:
// brotli 11 codes it once).
type floors struct {
	codecs []textCodec // textCodecs if nil
	mu     sync.Mutex
	m      map[string]floorStream
}

// stream returns the floor's payload for one stream of API a: for each of
// its events, the record of the text it carries under the codec that codes
// the whole stream's text smallest, or a byte if it carries no text.
func (f *floors) stream(a *api, s []byte) (floorStream, error) {
	evs := events(s)
	texts := make([][]byte, 0, len(evs))
	var key bytes.Buffer
	key.WriteString(a.path)
	for _, ev := range evs {
		_, t := a.count(ev)
		texts = append(texts, []byte(t))
		fmt.Fprintf(&key, "\x00%d:%s", len(t), t)
	}
	f.mu.Lock()
	fs, ok := f.m[key.String()]
	f.mu.Unlock()
	if ok {
		return fs, nil
	}
	var nonEmpty [][]byte
	for _, t := range texts {
		if len(t) > 0 {
			nonEmpty = append(nonEmpty, t)
		}
	}
	dict := a.client.Dictionary().Bytes()
	var best [][]byte
	bestN := -1
	codecs := f.codecs
	if codecs == nil {
		codecs = textCodecs
	}
	for _, c := range codecs {
		recs, err := c.records(nonEmpty, dict)
		if err != nil {
			return floorStream{}, fmt.Errorf("%s: %w", c.name, err)
		}
		n := 0
		for _, r := range recs {
			n += len(r)
		}
		if bestN < 0 || n < bestN {
			best, bestN, fs.codec = recs, n, c.name
		}
	}
	fs.text = bestN
	for _, t := range texts {
		if len(t) == 0 {
			fs.payloads = append(fs.payloads, []byte{0})
			continue
		}
		fs.payloads = append(fs.payloads, best[0])
		best = best[1:]
	}
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]floorStream{}
	}
	f.m[key.String()] = fs
	f.mu.Unlock()
	return fs, nil
}
