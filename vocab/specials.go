package vocab

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	stdutf8 "unicode/utf8"
)

// SizeDigest is the size of a special table's digest (SPEC.md §3.12).
const SizeDigest = 8

// MaxNameLen bounds a vocabulary's name: one length byte in the VOCAB frame
// and the vocabulary file (SPEC.md §3.13, §3.15).
const MaxNameLen = 255

// Name returns the vocabulary's name as people know it ("o200k_base"), or ""
// when it has none. Names are for messages, never for matching: Hash and the
// special table are what match.
func (v *Vocabulary) Name() string { return v.name }

// Named returns a Vocabulary that is v with the given name; the two share
// their tables. The name is UTF-8 of at most MaxNameLen bytes, as the VOCAB
// frame and the vocabulary file carry it.
func (v *Vocabulary) Named(name string) (*Vocabulary, error) {
	if len(name) > MaxNameLen || !stdutf8.ValidString(name) {
		return nil, &Error{Offset: -1, Index: -1, Err: ErrMalformed, Detail: "name " + strconv.Quote(name) + ", want UTF-8 of at most 255 bytes"}
	}
	w := *v
	w.name = name
	return &w, nil
}

// AppendSpecials appends the vocabulary's special table as SPEC.md §3.12
// encodes it — count u32, then by ascending ID each id u32, name length
// u16, name — and returns the extended slice. The VOCAB frame and the
// vocabulary file carry it so.
func (v *Vocabulary) AppendSpecials(dst []byte) []byte {
	_, table := v.summary()
	return append(dst, table...)
}

func (v *Vocabulary) appendSpecials(dst []byte) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	count := uint32(0)
	for id, e := range v.tab {
		if e.flag != special {
			continue
		}
		count++
		dst = binary.BigEndian.AppendUint32(dst, uint32(id))
		dst = binary.BigEndian.AppendUint16(dst, e.n)
		dst = append(dst, v.data[e.off:e.off+uint32(e.n)]...)
	}
	binary.BigEndian.PutUint32(dst[at:], count)
	return dst
}

// SpecialsDigest returns the digest of the vocabulary's special table: the
// first 8 bytes of the SHA-256 of AppendSpecials' encoding (SPEC.md §3.12),
// which a VOCAB frame may carry instead of the table.
func (v *Vocabulary) SpecialsDigest() [SizeDigest]byte {
	_, table := v.summary()
	return specialsDigest(table)
}

func specialsDigest(table []byte) [SizeDigest]byte {
	sum := sha256.Sum256(table)
	return [SizeDigest]byte(sum[:SizeDigest])
}

// specialEntry is one entry of a special table.
type specialEntry struct {
	id   uint32
	name []byte
	at   int // the entry's offset in the table
}

// consumeSpecials reads a special table from the start of b (SPEC.md
// §3.12): entries by strictly ascending ID, each below n, names 1 to
// MaxTokenLen bytes. It calls each for every entry, and returns the bytes
// read, or the offset in b of the fault and what was expected. The count is
// checked against the bytes left before anything is read (an entry takes at
// least 7), so a claim costs nothing.
func consumeSpecials(b []byte, n uint64, each func(e specialEntry)) (read int, at int, kind error, detail string) {
	if len(b) < 4 {
		return 0, len(b), ErrTruncated, "special count, want 4 bytes"
	}
	count := uint64(binary.BigEndian.Uint32(b))
	if count*7 > uint64(len(b)-4) {
		return 0, 0, ErrTruncated, "special count " + strconv.FormatUint(count, 10) + ", more than the bytes left hold"
	}
	pos := 4
	last := int64(-1)
	for range count {
		if len(b)-pos < 6 {
			return 0, len(b), ErrTruncated, "special entry, want 6 bytes"
		}
		id := binary.BigEndian.Uint32(b[pos:])
		if int64(id) <= last {
			return 0, pos, ErrMalformed, "special ID " + strconv.FormatUint(uint64(id), 10) + ", want above " + strconv.FormatInt(last, 10)
		}
		if uint64(id) >= n {
			return 0, pos, ErrMalformed, "special ID " + strconv.FormatUint(uint64(id), 10) + ", want below " + strconv.FormatUint(n, 10)
		}
		ln := int(binary.BigEndian.Uint16(b[pos+4:]))
		if ln == 0 {
			return 0, pos + 4, ErrMalformed, "special name of 0 bytes, want 1 to 65535"
		}
		if len(b)-pos-6 < ln {
			return 0, len(b), ErrTruncated, "special name of " + strconv.Itoa(ln) + " bytes"
		}
		each(specialEntry{id: id, name: b[pos+6 : pos+6+ln], at: pos})
		last = int64(id)
		pos += 6 + ln
	}
	return pos, 0, nil, ""
}
