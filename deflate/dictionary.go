package deflate

// Dictionary is a preset dictionary, prepared once: the bytes a stream's
// window starts with, already in the encoder's hash chains, so that
// starting a stream from it costs a copy rather than hashing every
// position of it again. A Dictionary is immutable and safe to share.
type Dictionary struct {
	b      []byte
	head   [1 << hashBits]uint32
	prev   []uint16 // the chains of the dictionary's positions
	hashed int
}

// NewDictionary prepares dict, of which at most the last 32 KiB count (the
// reach of DEFLATE's window). It copies dict.
func NewDictionary(dict []byte) *Dictionary {
	d := &Dictionary{b: append([]byte(nil), dict[max(0, len(dict)-window):]...)}
	var prev [window]uint16
	insert(&d.head, &prev, d.b, 0, &d.hashed, len(d.b))
	d.prev = prev[:len(d.b)]
	return d
}

// Bytes returns the dictionary's bytes, which a Reader is given too. The
// caller must not modify them.
func (d *Dictionary) Bytes() []byte { return d.b }
