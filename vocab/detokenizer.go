package vocab

import "github.com/layer0/anth/utf8"

// Detokenizer turns a stream of token IDs into text, exactly: it emits
// whole UTF-8 characters only, holding back at most the 3 bytes of a
// character that the next token may complete, and replaces ill-formed
// bytes as package utf8 does (SPEC.md §7), so the text does not depend on
// how the IDs were split into calls or frames. A special token is reported
// as such and never becomes text; it ends the text before it, so a
// character cut off by it becomes U+FFFD, as it would if the special's name
// stood between the bytes. An ID the Vocabulary lacks is an *Error of kind
// ErrUnknownToken, and errors are final: every later call returns the same
// one.
//
// A Detokenizer allocates nothing of its own; Next and AppendText grow dst
// as append does, and may write in dst's spare capacity beyond what they
// append (Next says why). It is not safe for concurrent use; many
// Detokenizers may share one Vocabulary. Make one with NewDetokenizer: the
// zero value has no Vocabulary.
type Detokenizer struct {
	v        *Vocabulary
	dec      utf8.Decoder
	afterBOS bool // the last ID was BOS (SentencePiece's space rule)
	// clean is set by Next when no error stopped d, nothing is held and
	// the last ID was not BOS: appendWhole's condition in one load. Only
	// Next sets it; false merely sends the next ID through Next.
	clean bool
	index int64 // IDs taken since made or Reset
	err   *Error
}

// NewDetokenizer returns a Detokenizer reading IDs of v.
func NewDetokenizer(v *Vocabulary) *Detokenizer { return &Detokenizer{v: v} }

// Next decodes one ID. For an ordinary token it appends the text the token
// completes to dst. For a special token it appends what ends the text
// before it (U+FFFD for a held, incomplete character) and reports
// isSpecial true: ask the Vocabulary's Special for its name. For an ID the
// Vocabulary lacks it appends nothing and returns an *Error with the ID and
// its index.
//
// Next may write anywhere in dst's spare capacity, dst[len(dst):cap(dst)],
// not only where the bytes it appends go: a short token's bytes are copied
// as one 16-byte block. The bytes past the returned slice's length are
// then unspecified. Keep nothing there that you need (pass dst[:n:n] to keep
// bytes beyond n), and let no other goroutine read it meanwhile.
func (d *Detokenizer) Next(dst []byte, id uint32) (out []byte, isSpecial bool, err error) {
	if out, ok := d.appendWhole(dst, id); ok {
		return out, false, nil
	}
	out, isSpecial, err = d.next(dst, id)
	d.clean = d.err == nil && !d.afterBOS && d.dec.Pending() == 0
	return out, isSpecial, err
}

// next is Next for every case appendWhole leaves, the common one included
// (a piece too long for appendWhole's copy, or dst without the room).
func (d *Detokenizer) next(dst []byte, id uint32) (out []byte, isSpecial bool, err error) {
	if d.err != nil {
		return dst, false, d.err
	}
	if int64(id) >= int64(len(d.v.tab)) {
		return dst, false, d.unknown(id)
	}
	e := d.v.tab[id]
	piece := d.v.data[e.off : e.off+uint32(e.n)]
	switch e.flag {
	case ordinary:
		// run.c's decode: "following BOS (1) token, sentencepiece decoder
		// strips any leading whitespace".
		if d.afterBOS && len(piece) > 0 && piece[0] == ' ' {
			piece = piece[1:]
		}
		if e.text != notWhole && d.dec.Pending() == 0 {
			// Nothing held and the token is whole characters: its bytes
			// are its text (SPEC.md §7 item 1), as Append would give them;
			// the decoder, neither strict nor stripping a BOM, keeps no
			// state for them.
			d.index++
			d.afterBOS = false
			return append(dst, piece...), false, nil
		}
	case bytePc:
	case special:
		d.index++
		d.afterBOS = int64(id) == d.v.bos
		return d.dec.Flush(dst), true, nil
	default:
		return dst, false, d.unknown(id)
	}
	d.index++
	d.afterBOS = false
	return d.dec.Append(dst, piece), false, nil
}

// appendWhole is Next for the common case, kept small enough to inline
// into the loops over a frame's IDs (Text.AppendFrame): d.clean (no
// error, nothing held, not after BOS) and an ordinary token of whole
// characters or a byte piece of an ASCII byte (entry.text is wholeShort),
// whose bytes are then its text (SPEC.md §7 item 1), as
// Append would give them; the decoder, neither strict nor stripping a BOM,
// keeps no state for them. Otherwise it reports false having changed
// nothing, and Next does the work.
//
// The piece, at most pieceSlack bytes, is copied as one [pieceSlack]byte
// (one 16-byte move, no call) into dst's spare capacity, when dst has that
// much: the bytes of dst[len(out):cap(dst)] it also writes are the
// Vocabulary's bytes after the piece, beyond the returned length. Next's
// doc says what that means for a caller.
func (d *Detokenizer) appendWhole(dst []byte, id uint32) ([]byte, bool) {
	tab, n := d.v.tab, len(dst)
	if uint64(id) >= uint64(len(tab)) {
		return dst, false
	}
	e := tab[id]
	if e.text != wholeShort || cap(dst)-n < pieceSlack || !d.clean {
		return dst, false
	}
	d.index++
	*(*[pieceSlack]byte)(dst[n:cap(dst)]) = [pieceSlack]byte(d.v.data[e.off:cap(d.v.data)])
	return dst[:n+int(e.n)], true
}

func (d *Detokenizer) unknown(id uint32) *Error {
	d.err = &Error{Offset: -1, Index: d.index, ID: id, Err: ErrUnknownToken}
	return d.err
}

// AppendText decodes ids in order, appending their text to dst, up to and
// including the first special token. It returns the extended slice and n,
// the number of IDs taken: when n > 0 and ids[n-1] is special (the
// Vocabulary's Special says so), that token stopped it; call again with
// ids[n:]. On an unknown ID it returns the text before it and an *Error,
// and ids[n] is the ID at fault. Like Next, it may write anywhere in dst's
// spare capacity.
func (d *Detokenizer) AppendText(dst []byte, ids []uint32) (out []byte, n int, err error) {
	for i, id := range ids {
		var sp bool
		dst, sp, err = d.Next(dst, id)
		if err != nil {
			return dst, i, err
		}
		if sp {
			return dst, i + 1, nil
		}
	}
	return dst, len(ids), nil
}

// Flush ends the stream: a held, incomplete character becomes U+FFFD,
// appended to dst (SPEC.md §7 item 5). The Detokenizer is then ready for
// more text, as after a special token.
func (d *Detokenizer) Flush(dst []byte) []byte {
	if d.err != nil {
		return dst
	}
	return d.dec.Flush(dst)
}

// Pending returns the number of bytes held for a character not yet whole.
func (d *Detokenizer) Pending() int { return d.dec.Pending() }

// Err returns the error that stopped the Detokenizer, or nil.
func (d *Detokenizer) Err() error {
	if d.err == nil {
		return nil
	}
	return d.err
}

// Reset makes d ready for a new stream of IDs of the same Vocabulary.
func (d *Detokenizer) Reset() { *d = Detokenizer{v: d.v} }
