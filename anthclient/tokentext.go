package anthclient

import (
	"io"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/vocab"
)

// tokenText is an ANTH stream with the IDs a server sent as the response's
// text made TEXT frames of block 0, for the API's Encoder, which reads
// text: Transport.Vocabularies. Only a VOCAB frame without the text flag
// says the IDs are the text (SPEC.md §3.14); until one comes every frame
// passes as it is, so IDs a bridged API carries beside its text (vLLM's
// token_ids, §7b.2) stay IDs, and after one with the flag they pass on for
// the Encoder as before. The VOCAB frame is checked against the held
// vocabulary of its hash (vocab.Text: ErrUnknownVocabulary when none is
// held) and not passed on; an ID the vocabulary lacks is ErrUnknownToken.
// It holds one frame and its text, which a token frame of MaxPayload bytes
// bounds (16,383 IDs, each at most the vocabulary's longest token).
type tokenText struct {
	r       *frame.Reader
	held    []*vocab.Vocabulary
	t       *vocab.Text // once a VOCAB frame named the vocabulary
	started bool
	out     []byte // frames not yet read
	text    []byte
	err     error
}

func newTokenText(src io.Reader, held []*vocab.Vocabulary) *tokenText {
	// Raw frames, so each goes on as it came (a DONE's continuations
	// too); the Encoder checks the response's grammar.
	return &tokenText{r: frame.NewReader(src, frame.ReaderOptions{RawFrames: true}), held: held}
}

func (s *tokenText) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.next()
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// next puts the next frame, or what it becomes, in s.out.
func (s *tokenText) next() {
	s.out = s.out[:0]
	if !s.started {
		s.started = true
		s.out = frame.AppendMagic(s.out)
	}
	f, err := s.r.Next()
	if err != nil {
		s.err = err
		return
	}
	switch f.Type {
	case frame.TypeVocab:
		fv, err := f.Vocab()
		if err != nil {
			s.err = err
			return
		}
		if s.t == nil {
			s.t = vocab.NewText(s.heldFor(fv.Hash))
		}
		_, s.err = s.t.AppendFrame(nil, f)
		return
	case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24, frame.TypePackedToken, frame.TypeDone:
		if s.t == nil {
			break
		}
		if _, textToo := s.t.Named(); textToo {
			break
		}
		if s.text, s.err = s.t.AppendFrame(s.text[:0], f); s.err != nil {
			return
		}
		for text := s.text; len(text) > 0; {
			n := min(len(text), frame.MaxPayload-2)
			s.out = frame.AppendText(s.out, 0, text[:n])
			text = text[n:]
		}
		if f.Type != frame.TypeDone {
			return
		}
	}
	s.out = f.Append(s.out)
}

// heldFor returns the held vocabulary with hash, or nil.
func (s *tokenText) heldFor(hash [32]byte) *vocab.Vocabulary {
	for _, v := range s.held {
		if v.Hash() == hash {
			return v
		}
	}
	return nil
}
