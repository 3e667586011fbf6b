package deflate

import "hash/adler32"

// Dictionary is a preset dictionary, prepared once: the bytes a stream's
// window starts with, already in the encoder's hash chains, so that
// starting a stream from it costs a copy rather than hashing every
// position of it again. A Dictionary is immutable and safe to share.
type Dictionary struct {
	b      []byte
	id     uint32 // its DICTID
	head   [1 << hashBits]uint32
	head3  [1 << hash3Bits]uint32
	prev   []uint16 // the chains of the dictionary's positions
	hashed int
}

// NewDictionary prepares dict, of which at most the last 32 KiB count (the
// reach of DEFLATE's window). It copies dict.
func NewDictionary(dict []byte) *Dictionary {
	d := &Dictionary{b: append([]byte(nil), dict[max(0, len(dict)-window):]...)}
	d.id = adler32.Checksum(d.b)
	var prev [window]uint16
	insert(&d.head, &d.head3, &prev, d.b, 0, &d.hashed, len(d.b))
	d.prev = prev[:len(d.b)]
	return d
}

// Bytes returns the dictionary's bytes, which a Reader is given too. The
// caller must not modify them.
func (d *Dictionary) Bytes() []byte { return d.b }

// ID returns the dictionary's DICTID: the Adler-32 of its bytes, as RFC
// 1950 names a zlib stream's preset dictionary. A coded body starts with
// it, so a reader given another dictionary refuses the body rather than
// inflate it to the wrong text (SPEC.md §11.2). A nil Dictionary, no
// dictionary, has the ID of no bytes: 1.
func (d *Dictionary) ID() uint32 {
	if d == nil {
		return 1
	}
	return d.id
}
