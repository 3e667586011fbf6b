package vocab

import (
	"encoding/hex"
	"strconv"

	"github.com/layer0/anth/frame"
)

// Vocab returns the VOCAB frame payload that names v in a response (SPEC.md
// §3.13), with the given flags: its whole special table, or its digest when
// flags has frame.VocabDigest or the table does not fit the frame. Write it
// with frame.AppendVocab or Writer.WriteVocab before the response's first
// token frame. The result shares v's memory; build it once per vocabulary
// and reuse it for every response (it is only read).
func (v *Vocabulary) Vocab(flags frame.VocabFlags) frame.Vocab {
	h, table := v.summary()
	fv := frame.Vocab{Flags: flags, Kind: uint8(v.kind), Hash: h, Name: []byte(v.name)}
	if flags&frame.VocabDigest == 0 && frame.SizeVocab(frame.Vocab{Name: fv.Name, Specials: table}) > frame.MaxPayload {
		fv.Flags |= frame.VocabDigest
	}
	if fv.Flags&frame.VocabDigest != 0 {
		fv.Digest = specialsDigest(table)
	} else {
		fv.Specials = table
	}
	return fv
}

// Check reports whether a stream's VOCAB frame names v: the same hash,
// kind and special table (or its digest), SPEC.md §3.13. Otherwise it
// returns an *Error of kind ErrUnknownVocabulary naming both, and the
// stream's IDs must not be read with v. The name is not compared: it is
// for people.
func (v *Vocabulary) Check(fv frame.Vocab) error {
	h, table := v.summary()
	var what string
	switch {
	case fv.Hash != h:
		what = "hash"
	case fv.Kind != uint8(v.kind):
		what = "kind " + Kind(fv.Kind).String()
	case fv.Flags&frame.VocabDigest != 0 && fv.Digest != specialsDigest(table):
		what = "special table (digest)"
	case fv.Flags&frame.VocabDigest == 0 && string(fv.Specials) != string(table):
		what = "special table"
	default:
		return nil
	}
	return &Error{Offset: -1, Index: -1, Err: ErrUnknownVocabulary,
		Detail: "the stream names " + describe(string(fv.Name), fv.Hash) + ", another " + what + " than " + describe(v.name, h) + " held"}
}

// describe names a vocabulary in a message: its name, if any, and the
// first 8 bytes of its hash in hex.
func describe(name string, hash [32]byte) string {
	s := hex.EncodeToString(hash[:8]) + "…"
	if name != "" {
		return strconv.Quote(name) + " (" + s + ")"
	}
	return s
}
