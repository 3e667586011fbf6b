package vocab

import (
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"sync"
	stdutf8 "unicode/utf8"
)

// Limits on what a loader accepts, so that a file's claims cannot make it
// allocate more than the file itself justifies.
const (
	// MaxTokens bounds the IDs of a Vocabulary: every ID is below it.
	// o200k_base's largest is 200,018.
	MaxTokens = 1 << 22
	// MaxTokenLen bounds the bytes of one token or special token's name.
	MaxTokenLen = 1<<16 - 1
)

// Kind says how a Vocabulary's tokens become text.
type Kind uint8

const (
	// ByteLevel vocabularies (tiktoken, Hugging Face byte-level BPE) map
	// each ID to bytes that do not depend on the neighbouring tokens.
	ByteLevel Kind = iota
	// SentencePiece vocabularies (llama2.c's tokenizer.bin, Llama 2) hold
	// pieces with spaces as ' ' (SentencePiece's U+2581 replaced), byte
	// pieces "<0xXX>" that stand for one byte, and drop one leading space
	// of the piece after BOS, as llama2.c's run.c decode does.
	SentencePiece
)

// String returns "byte-level" or "sentencepiece".
func (k Kind) String() string {
	switch k {
	case ByteLevel:
		return "byte-level"
	case SentencePiece:
		return "sentencepiece"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Flags of an entry.
const (
	absent   = 0 // no token has this ID
	ordinary = 1 // text
	special  = 2 // a special token; its bytes are its name
	bytePc   = 3 // a SentencePiece byte piece "<0xXX>"; its bytes are the one byte
)

// entry locates one ID's bytes in Vocabulary.data.
type entry struct {
	off  uint32
	n    uint16
	flag uint8
	// text says whether an ordinary token's bytes, or a byte piece's
	// byte, are valid UTF-8, whole characters only: after text that ended
	// on a character boundary such a token is its own text, with no
	// decoding (Detokenizer's fast paths).
	text uint8
}

// Values of entry.text. One byte for both facts keeps the fast path's
// test to one compare.
const (
	notWhole   = 0 // a special, a byte piece of a non-ASCII byte, or bytes not whole characters
	whole      = 1 // whole characters, more than pieceSlack bytes
	wholeShort = 2 // whole characters, at most pieceSlack bytes: appendWhole copies them
)

// pieceSlack is the spare capacity a Vocabulary keeps after data's last
// byte, so that any piece of up to pieceSlack bytes can be read as one
// [pieceSlack]byte: Detokenizer's fast path copies it with one 16-byte
// load and store (MOVUPS on amd64) instead of calling memmove for a 2–6
// byte piece, which cost a fifth of the time a token took (issue 23).
const pieceSlack = 16

// finish sets each entry's text, once the bytes are in, and gives data its
// pieceSlack. Every loader calls it last.
func (v *Vocabulary) finish() {
	for id, e := range v.tab {
		switch {
		case e.flag == bytePc && v.data[e.off] < stdutf8.RuneSelf:
			// An ASCII byte piece ("<0x0A>") is a whole character too,
			// and SentencePiece spells newlines and tabs with them.
			v.tab[id].text = wholeShort
		case e.flag != ordinary || !stdutf8.Valid(v.data[e.off:e.off+uint32(e.n)]):
			v.tab[id].text = notWhole
		case e.n <= pieceSlack:
			v.tab[id].text = wholeShort
		default:
			v.tab[id].text = whole
		}
	}
	if cap(v.data)-len(v.data) < pieceSlack {
		v.data = append(make([]byte, 0, len(v.data)+pieceSlack), v.data...)
	}
}

// Vocabulary maps token IDs to bytes and names the special tokens. It is
// immutable once loaded and safe for concurrent use; a Detokenizer reads it.
type Vocabulary struct {
	kind Kind
	tab  []entry  // by ID
	data []byte   // the bytes tab points into
	bos  int64    // the BOS ID for SentencePiece's space rule, or -1
	name string   // for messages (Named, ParseFile)
	sum  *summary // computed once, shared by Named copies; nil: computed on each call
}

// summary is what a Vocabulary computes once, on first use: its hash and
// special table, which every response that names it needs (SPEC.md §3.13).
type summary struct {
	once     sync.Once
	hash     [sha256.Size]byte
	specials []byte
	lookup   lookupTable // Lookup's, built on its first call (lookup.go)
}

func (v *Vocabulary) summary() (hash [sha256.Size]byte, specials []byte) {
	if v.sum == nil {
		return v.computeHash(), v.appendSpecials(nil)
	}
	v.sum.once.Do(func() { v.sum.hash, v.sum.specials = v.computeHash(), v.appendSpecials(nil) })
	return v.sum.hash, v.sum.specials
}

// Kind returns how the vocabulary's tokens become text.
func (v *Vocabulary) Kind() Kind { return v.kind }

// Len returns one more than the largest ID the vocabulary holds. IDs below
// it may still be absent (o200k_base has gaps before its special tokens).
func (v *Vocabulary) Len() int { return len(v.tab) }

// Bytes returns the bytes of an ordinary token as it stands alone (for a
// SentencePiece byte piece, the one byte), and false for a special token or
// an ID the vocabulary lacks. The slice aliases the Vocabulary: do not
// modify it.
func (v *Vocabulary) Bytes(id uint32) ([]byte, bool) {
	if int64(id) >= int64(len(v.tab)) {
		return nil, false
	}
	e := v.tab[id]
	if e.flag != ordinary && e.flag != bytePc {
		return nil, false
	}
	return v.data[e.off : e.off+uint32(e.n) : e.off+uint32(e.n)], true
}

// Special returns the name of a special token ("<|endoftext|>", "<s>"), and
// false when id is not a special token.
func (v *Vocabulary) Special(id uint32) (string, bool) {
	if int64(id) >= int64(len(v.tab)) || v.tab[id].flag != special {
		return "", false
	}
	e := v.tab[id]
	return string(v.data[e.off : e.off+uint32(e.n)]), true
}

// SpecialID returns the ID of the special token with the given name.
func (v *Vocabulary) SpecialID(name string) (uint32, bool) {
	for id, e := range v.tab {
		if e.flag == special && string(v.data[e.off:e.off+uint32(e.n)]) == name {
			return uint32(id), true
		}
	}
	return 0, false
}

// AppendTiktoken appends the vocabulary's ordinary tokens as tiktoken
// lines, base64(bytes) SP rank LF, by rank, and returns the extended slice:
// the form whose SHA-256 is Hash (SPEC.md §3.12). Special tokens are not
// part of it (a .tiktoken file does not hold them either); a SentencePiece
// byte piece is rendered as its piece, "<0x0A>".
func (v *Vocabulary) AppendTiktoken(dst []byte) []byte {
	for id := range v.tab {
		dst = v.appendLine(dst, uint32(id))
	}
	return dst
}

func (v *Vocabulary) appendLine(dst []byte, id uint32) []byte {
	e := v.tab[id]
	var piece []byte
	switch e.flag {
	case ordinary:
		piece = v.data[e.off : e.off+uint32(e.n)]
	case bytePc:
		const hex = "0123456789ABCDEF"
		b := v.data[e.off]
		piece = []byte{'<', '0', 'x', hex[b>>4], hex[b&15], '>'}
	default:
		return dst
	}
	dst = base64.StdEncoding.AppendEncode(dst, piece)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, uint64(id), 10)
	return append(dst, '\n')
}

// Hash returns the SHA-256 of AppendTiktoken's rendering (SPEC.md §3.12).
// For a .tiktoken file written by rank, which tiktoken's own files are, it
// is the SHA-256 of the file: tiktoken pins cl100k_base as 223921b7… and
// o200k_base as 446a9538…. A Vocabulary computes it on first use (a few
// milliseconds for o200k_base) and keeps it.
func (v *Vocabulary) Hash() [sha256.Size]byte {
	h, _ := v.summary()
	return h
}

func (v *Vocabulary) computeHash() [sha256.Size]byte {
	h := sha256.New()
	buf := make([]byte, 0, 8192)
	for id := range v.tab {
		buf = v.appendLine(buf, uint32(id))
		if len(buf) > 4096 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}
