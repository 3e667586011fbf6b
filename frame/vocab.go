package frame

import (
	"encoding/binary"
	"strconv"
)

// VocabFlags are the flags of a VOCAB frame (SPEC.md §3.13).
type VocabFlags uint8

const (
	// VocabText says the response's text travels in TEXT and DELTA frames
	// as well as IDs: a reader of text reads those and never turns the IDs
	// into text (SPEC.md §3.14).
	VocabText VocabFlags = 1 << 0
	// VocabDigest says the frame carries the special table's digest
	// instead of the table.
	VocabDigest VocabFlags = 1 << 1
	vocabFlags             = VocabText | VocabDigest
)

// Sizes of a VOCAB frame's fields (SPEC.md §3.13).
const (
	SizeVocabHash   = 32 // the vocabulary's hash, SHA-256
	SizeVocabDigest = 8  // a special table's digest
	// MaxVocabName is the longest vocabulary name: its length is a u8.
	MaxVocabName = 0xFF
	vocabFixed   = 2 + SizeVocabHash + 1 // flags, kind, hash, name length
)

// Vocab is the payload of a VOCAB frame: the vocabulary a response's TOKEN
// and TOKEN32 frames index (SPEC.md §3.13). The frame layer carries it and
// checks its layout; package vocab says whether a vocabulary matches it.
// From Frame.Vocab, Name and Specials alias the frame's payload.
type Vocab struct {
	Flags VocabFlags
	Kind  uint8 // 0 byte-level, 1 SentencePiece (SPEC.md §3.12)
	Hash  [SizeVocabHash]byte
	Name  []byte // at most MaxVocabName bytes, for messages
	// Specials is the special table as SPEC.md §3.12 encodes it, when
	// Flags lacks VocabDigest.
	Specials []byte
	// Digest is the special table's digest, when Flags has VocabDigest.
	Digest [SizeVocabDigest]byte
}

// AppendVocab appends v as a VOCAB frame and returns the extended slice.
// v must be valid, as Frame.Vocab returns it (Name at most MaxVocabName
// bytes, a special table that fits the frame, known flags and kind):
// anything else makes a frame that Parse rejects.
func AppendVocab(b []byte, v Vocab) []byte {
	n := SizeVocab(v)
	b = appendHeader(b, TypeVocab, n)
	b = append(b, byte(v.Flags), v.Kind)
	b = append(b, v.Hash[:]...)
	b = append(b, byte(len(v.Name)))
	b = append(b, v.Name...)
	if v.Flags&VocabDigest != 0 {
		return append(b, v.Digest[:]...)
	}
	return append(b, v.Specials...)
}

// SizeVocab returns the payload length AppendVocab writes for v.
func SizeVocab(v Vocab) int {
	n := vocabFixed + len(v.Name)
	if v.Flags&VocabDigest != 0 {
		return n + SizeVocabDigest
	}
	return n + len(v.Specials)
}

// Vocab returns the payload of a VOCAB frame.
func (f Frame) Vocab() (Vocab, error) {
	p := f.Payload
	if f.Type != TypeVocab || len(p) < vocabFixed || len(p) < vocabFixed+int(p[vocabFixed-1]) {
		return Vocab{}, f.wrongType("VOCAB")
	}
	v := Vocab{Flags: VocabFlags(p[0]), Kind: p[1], Hash: [SizeVocabHash]byte(p[2 : 2+SizeVocabHash])}
	n := vocabFixed + int(p[vocabFixed-1])
	v.Name = p[vocabFixed:n:n]
	if v.Flags&VocabDigest != 0 {
		if len(p)-n == SizeVocabDigest {
			v.Digest = [SizeVocabDigest]byte(p[n:])
		}
		return v, nil
	}
	v.Specials = p[n:]
	return v, nil
}

// checkVocab: SPEC.md §3.13's layout. Unknown flags and kinds are
// malformed; the name lies in the payload; the rest is the digest, exactly,
// or a special table (§3.12) that exactly fills it, by strictly ascending
// ID, each name 1 to 65,535 bytes.
func checkVocab(p []byte) (int, string, bool) {
	if f := VocabFlags(p[0]); f&^vocabFlags != 0 {
		return 0, "vocab flags 0x" + hex2(uint8(f)) + ", want bits 0 and 1 only", false
	}
	if p[1] > 1 {
		return 1, "vocab kind " + strconv.Itoa(int(p[1])) + ", want 0 or 1", false
	}
	n := vocabFixed + int(p[vocabFixed-1])
	if n > len(p) {
		return vocabFixed - 1, "vocab name of " + strconv.Itoa(int(p[vocabFixed-1])) + " bytes past the payload", false
	}
	rest := p[n:]
	if VocabFlags(p[0])&VocabDigest != 0 {
		if len(rest) != SizeVocabDigest {
			return n, "special table digest of " + strconv.Itoa(len(rest)) + " bytes, want 8", false
		}
		return 0, "", true
	}
	if len(rest) < 4 {
		return n, "special table of " + strconv.Itoa(len(rest)) + " bytes, want a count of 4", false
	}
	count := binary.BigEndian.Uint32(rest)
	pos, last := 4, int64(-1)
	for range count {
		if len(rest)-pos < 6 {
			return n + pos, "special entry past the payload", false
		}
		id := binary.BigEndian.Uint32(rest[pos:])
		if int64(id) <= last {
			return n + pos, "special ID " + strconv.FormatUint(uint64(id), 10) + ", want above " + strconv.FormatInt(last, 10), false
		}
		ln := int(binary.BigEndian.Uint16(rest[pos+4:]))
		if ln == 0 || len(rest)-pos-6 < ln {
			return n + pos + 4, "special name of " + strconv.Itoa(ln) + " bytes, want 1 to the payload's end", false
		}
		last = int64(id)
		pos += 6 + ln
	}
	if pos != len(rest) {
		return n + pos, "bytes after the special table", false
	}
	return 0, "", true
}
