package vocab

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	stdutf8 "unicode/utf8"
)

// The vocabulary file of SPEC.md §3.15:
//
//	magic        "ANTV"
//	version      u8 = 1
//	kind         u8: 0 byte-level, 1 SentencePiece
//	name length  u8, name (UTF-8)
//	hash         32 bytes: Hash (§3.12)
//	n            u32: IDs 0 to n-1, n ≤ MaxTokens
//	specials     the special table (§3.12), each ID below n
//	lengths      n uvarints: 0 no ordinary token, else byte length + 1
//	bytes        the ordinary tokens' bytes by ascending ID
//	check        32 bytes: SHA-256 of every byte before it
const (
	// FileMagic starts every vocabulary file.
	FileMagic   = "ANTV"
	fileVersion = 1
	// fixed is the size of a file with no name, tokens or specials.
	fileFixed = len(FileMagic) + 3 + sha256.Size + 4 + 4 + sha256.Size
)

// AppendFile appends v as a vocabulary file (SPEC.md §3.15) and returns the
// extended slice: every token in one table, with v's hash and name in front
// and a SHA-256 of the whole behind, so ParseFile catches a change of any
// byte. A SentencePiece byte piece is written as its piece, "<0x0A>".
func (v *Vocabulary) AppendFile(dst []byte) []byte {
	start := len(dst)
	dst = append(dst, FileMagic...)
	dst = append(dst, fileVersion, byte(v.kind), byte(len(v.name)))
	dst = append(dst, v.name...)
	h := v.Hash()
	dst = append(dst, h[:]...)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(v.tab)))
	dst = v.AppendSpecials(dst)
	for _, e := range v.tab {
		switch e.flag {
		case ordinary:
			dst = binary.AppendUvarint(dst, uint64(e.n)+1)
		case bytePc:
			dst = binary.AppendUvarint(dst, 6+1)
		default:
			dst = append(dst, 0)
		}
	}
	for _, e := range v.tab {
		switch e.flag {
		case ordinary:
			dst = append(dst, v.data[e.off:e.off+uint32(e.n)]...)
		case bytePc:
			dst = appendBytePiece(dst, v.data[e.off])
		}
	}
	sum := sha256.Sum256(dst[start:])
	return append(dst, sum[:]...)
}

func appendBytePiece(dst []byte, b byte) []byte {
	const hex = "0123456789ABCDEF"
	return append(dst, '<', '0', 'x', hex[b>>4], hex[b&15], '>')
}

// ParseFile reads a vocabulary file (SPEC.md §3.15). It checks every length
// against the bytes left before it reads or allocates for it, so memory
// stays in proportion to the file (the table is 8 bytes an ID, the tokens'
// bytes once), then the SHA-256 at the end against the bytes before it,
// then the hash in the header against the hash of the tokens read: a change
// of any byte is an *Error (ErrMalformed at the check's offset, or at the
// hash's when the check was recomputed over changed tokens). Other faults
// are *Error with the offset of the field at fault. The Vocabulary holds no
// reference to data.
func ParseFile(data []byte) (*Vocabulary, error) {
	if len(data) < len(FileMagic) {
		return nil, fileErr(len(data), ErrTruncated, "magic, want \"ANTV\"")
	}
	if string(data[:4]) != FileMagic {
		return nil, fileErr(0, ErrMalformed, "magic "+strconv.Quote(string(data[:4]))+", want \"ANTV\"")
	}
	if len(data) < fileFixed {
		return nil, fileErr(len(data), ErrTruncated, "header, want at least "+strconv.Itoa(fileFixed)+" bytes")
	}
	if data[4] != fileVersion {
		return nil, fileErr(4, ErrMalformed, "version "+strconv.Itoa(int(data[4]))+", want 1")
	}
	kind := Kind(data[5])
	if kind > SentencePiece {
		return nil, fileErr(5, ErrMalformed, "kind "+strconv.Itoa(int(kind))+", want 0 or 1")
	}
	nameLen := int(data[6])
	pos := 7
	// The name, the vocabulary's hash, n, and the file's own SHA-256 at
	// its end: a file shorter than these is cut.
	if len(data)-pos < nameLen+sha256.Size+4+sha256.Size {
		return nil, fileErr(len(data), ErrTruncated, "name, hash, n and the file's SHA-256")
	}
	name := data[pos : pos+nameLen]
	if !stdutf8.Valid(name) {
		return nil, fileErr(pos, ErrMalformed, "name is not UTF-8")
	}
	pos += nameLen
	hashAt := pos
	want := [sha256.Size]byte(data[pos : pos+sha256.Size])
	pos += sha256.Size
	n := uint64(binary.BigEndian.Uint32(data[pos:]))
	if n > MaxTokens {
		return nil, fileErr(pos, ErrTooLarge, "n "+strconv.FormatUint(n, 10)+", want at most "+strconv.Itoa(MaxTokens))
	}
	// Each ID takes at least one byte of lengths: the table is bounded by
	// the file before it is made.
	if n > uint64(len(data)-pos-4) {
		return nil, fileErr(pos, ErrTruncated, "n "+strconv.FormatUint(n, 10)+", more IDs than the bytes left hold")
	}
	pos += 4
	v := &Vocabulary{kind: kind, bos: -1, tab: make([]entry, n), name: string(name), sum: new(summary)}
	var names []specialEntry
	specialsAt := pos
	read, at, kerr, detail := consumeSpecials(data[pos:len(data)-sha256.Size], n, func(e specialEntry) { names = append(names, e) })
	if kerr != nil {
		return nil, fileErr(pos+at, kerr, detail)
	}
	pos += read
	body := data[:len(data)-sha256.Size]
	total := 0
	for id := range v.tab {
		x, k := binary.Uvarint(body[pos:])
		switch {
		case k == 0:
			return nil, fileErr(len(body), ErrTruncated, "length of ID "+strconv.Itoa(id))
		case k < 0 || x > MaxTokenLen+1 || k != uvarintLen(x):
			return nil, fileErr(pos, ErrMalformed, "length of ID "+strconv.Itoa(id)+", want a minimal varint of at most 65536")
		}
		if x > 0 {
			v.tab[id] = entry{off: uint32(total), n: uint16(x - 1), flag: ordinary}
			total += int(x - 1)
		}
		pos += k
	}
	if len(body)-pos != total {
		if len(body)-pos < total {
			return nil, fileErr(len(body), ErrTruncated, "token bytes, want "+strconv.Itoa(total))
		}
		return nil, fileErr(pos+total, ErrMalformed, "bytes after the tokens, want the check")
	}
	// The tokens' bytes, then the specials' names, then the 256 bytes a
	// SentencePiece byte piece points into.
	named := 0
	for _, s := range names {
		named += len(s.name)
	}
	buf := make([]byte, 0, total+named+256)
	buf = append(buf, body[pos:]...)
	for _, s := range names {
		if v.tab[s.id].flag != absent {
			return nil, fileErr(specialsAt+s.at, ErrMalformed, "special ID "+strconv.FormatUint(uint64(s.id), 10)+" has an ordinary token")
		}
		v.tab[s.id] = entry{off: uint32(len(buf)), n: uint16(len(s.name)), flag: special}
		buf = append(buf, s.name...)
		if kind == SentencePiece && string(s.name) == "<s>" {
			v.bos = int64(s.id)
		}
	}
	if kind == SentencePiece {
		bytesAt := uint32(len(buf))
		for b := range 256 {
			buf = append(buf, byte(b))
		}
		for id, e := range v.tab {
			if e.flag == ordinary {
				if b, ok := bytePiece(buf[e.off : e.off+uint32(e.n)]); ok {
					v.tab[id] = entry{off: bytesAt + uint32(b), n: 1, flag: bytePc}
				}
			}
		}
	}
	v.data = buf
	v.finish()
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], data[len(body):]) {
		return nil, fileErr(len(body), ErrMalformed, "check is not the SHA-256 of the file before it")
	}
	if h := v.Hash(); h != want {
		return nil, fileErr(hashAt, ErrMalformed, "hash is not the hash of the tokens")
	}
	return v, nil
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}
