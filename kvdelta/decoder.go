package kvdelta

import (
	"bufio"
	"bytes"
	"io"
	"strconv"

	"github.com/klauspost/compress/huff0"
	"github.com/klauspost/compress/zstd"

	"github.com/layer0/anth/internal/iox"
	"github.com/layer0/anth/tiling"
)

// Limits bound what a Decoder may allocate. A zero field takes the default.
type Limits struct {
	// MaxBytes bounds the memory one call may use: the snapshot's Data and
	// Hashes (unless the Snapshot given to ApplyTo has room for them), the
	// tiles it decodes before it can allocate them, and the Decoder's
	// scratch, kept between calls. A delta that would need more fails with
	// ErrTooLarge before the memory is allocated. Default 1 GiB; see the
	// package doc for why, and for what a call allocates as it goes.
	MaxBytes int64
}

// DefaultMaxBytes is Limits.MaxBytes when it is zero.
const DefaultMaxBytes = 1 << 30

func (l Limits) maxBytes() int64 {
	if l.MaxBytes > 0 {
		return l.MaxBytes
	}
	return DefaultMaxBytes
}

// Decoder applies deltas. It keeps scratch space between calls, no more
// after a failed call than before it; it is not safe for concurrent use.
type Decoder struct {
	Limits Limits

	// Scratch, kept between calls.
	planes [8]spool // a record's byte planes, one spool each
	crcs   spool    // a record's tile CRC32Cs
	hashes spool    // a record's tile hashes
	in     []byte   // a coded chunk, as read
	dense  []byte   // a ROWS record's rows
	huff   huff0.Scratch
	zstd   *zstd.Decoder

	// One call's state; fields, so that a call in a loop allocates nothing.
	st    state
	src   input
	bytes bytes.Reader
	prog  iox.Reader
	stats Stats

	late bool // tests: build every snapshot from parts, its buffer last
}

// Stats is what a Decoder's last call read and allocated: what a delta cost,
// in the terms the package doc's memory budget is stated in.
type Stats struct {
	// Read is the bytes of the delta read.
	Read int64
	// Justified is the bytes the call had in hand: Read, the size of each
	// RLE, huff0 and zstd chunk decoded (each checked as it is decoded), the
	// bytes of base tiles and hashes KEEP and ROWS records name, and 32
	// bytes for each record (its bookkeeping).
	Justified int64
	// Allocated is the bytes the call allocated, scratch included; the
	// zstd decoder counts 256 KiB when a call creates it.
	Allocated int64
	// Scratch is the bytes the Decoder keeps for its next call.
	Scratch int64
}

// NewDecoder returns a Decoder with limits l.
func NewDecoder(l Limits) *Decoder { return &Decoder{Limits: l} }

// Stats returns what the last call read and allocated.
func (d *Decoder) Stats() Stats { return d.stats }

// Apply returns the snapshot that delta turns base into, with default
// Limits. See Decoder.Apply.
func Apply(base *Snapshot, delta []byte) (*Snapshot, error) {
	return NewDecoder(Limits{}).Apply(base, delta)
}

// Apply returns the snapshot that delta turns base into. base is only read:
// on any error it is untouched and no snapshot is returned. delta must be
// one whole delta, with nothing after it. Every error is an *Error with the
// offset in delta; errors.Is tells ErrChecksum, ErrBase, ErrTooLarge,
// ErrMalformed and ErrTruncated apart.
func (d *Decoder) Apply(base *Snapshot, delta []byte) (*Snapshot, error) {
	s := &Snapshot{}
	if err := d.ApplyTo(s, base, delta); err != nil {
		return nil, err
	}
	return s, nil
}

// ApplyTo is Apply into dst, which lends its Data and Hashes when they have
// room for the result: the form for a receiver that applies deltas in a
// loop, which then allocates nothing. dst must not share memory with base.
// On error dst is emptied (Tokens 0, no data), never left half-written.
func (d *Decoder) ApplyTo(dst, base *Snapshot, delta []byte) error {
	d.bytes.Reset(delta)
	before := d.scratch()
	err := d.apply(dst, base, &d.bytes)
	if err == nil && d.bytes.Len() > 0 {
		err = &Error{Offset: int64(len(delta) - d.bytes.Len()), Err: ErrMalformed, Detail: strconv.Itoa(d.bytes.Len()) + " bytes after the delta"}
		if d.scratch() > before {
			// A failed call keeps no more than it found, as apply's own
			// failures do: the delta decoded, then bytes followed it.
			d.release()
			d.stats.Scratch = d.scratch()
		}
	}
	if err != nil {
		*dst = Snapshot{Data: dst.Data[:0], Hashes: dst.Hashes[:0]}
	}
	d.bytes.Reset(nil)
	return err
}

// ApplyFrom is Apply for a delta read from r, a record at a time. If r is
// not an io.ByteReader it is buffered, and may be read past the delta's
// end. A reader that returns no bytes and no error 100 times in a row fails
// the call with io.ErrNoProgress; an error of r's own is returned inside an
// *Error and stays matchable with errors.Is.
func (d *Decoder) ApplyFrom(base *Snapshot, r io.Reader) (*Snapshot, error) {
	s := &Snapshot{}
	if err := d.apply(s, base, r); err != nil {
		*s = Snapshot{}
		return nil, err
	}
	return s, nil
}

// ReadGeometry returns the geometry a delta's header declares, so that a
// caller can lay out the base it needs (from a raw dump, say) before
// applying it. It checks the header, and nothing after it.
func ReadGeometry(delta []byte) (tiling.Geometry, error) {
	r := bytes.NewReader(delta)
	h, err := readHeader(&input{r: r, br: r})
	return h.g, err
}

// apply decodes a delta read from r into dst.
func (d *Decoder) apply(dst, base *Snapshot, r io.Reader) error {
	d.prog = iox.Reader{R: r}
	d.src = input{r: &d.prog}
	if br, ok := r.(io.ByteReader); ok {
		d.src.br = br
	} else {
		b := bufio.NewReader(&d.prog)
		d.src.r, d.src.br = b, b
	}
	scratch := d.scratch()
	st := &d.st
	*st = state{d: d, in: &d.src, base: base, b: budget{max: d.Limits.maxBytes() - scratch}, data: st.data, hashes: st.hashes}
	err := st.run(dst)
	if err != nil && d.scratch() > scratch {
		d.release() // a failed call keeps no more than it found
	}
	st.data.drop()
	st.hashes.drop()
	d.stats = Stats{Read: d.src.off, Justified: d.src.off + st.b.justified, Allocated: st.b.allocated, Scratch: d.scratch()}
	d.prog, d.src, st.d, st.in, st.base = iox.Reader{}, input{}, nil, nil, nil
	return err
}

// scratch returns the bytes of scratch the Decoder holds.
func (d *Decoder) scratch() int64 {
	n := d.crcs.bytes() + d.hashes.bytes() + cap(d.in) + cap(d.dense)
	for i := range d.planes {
		n += d.planes[i].bytes()
	}
	n += (cap(d.st.data.parts) + cap(d.st.hashes.parts)) * 24
	if d.zstd != nil {
		n += zstdCost
	}
	return int64(n)
}

// release drops the Decoder's scratch.
func (d *Decoder) release() {
	d.planes = [8]spool{}
	d.crcs, d.hashes = spool{}, spool{}
	d.in, d.dense = nil, nil
	d.st.data.parts, d.st.hashes.parts = nil, nil
	if d.zstd != nil {
		d.zstd.Close()
		d.zstd = nil
	}
}
