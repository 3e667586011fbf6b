package anthhttp

import (
	"net/http"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/vocab"
)

// vocabFrames are the two VOCAB frames that may name a model's vocabulary
// in its streams (GatewayOptions.ModelVocabularies, SPEC.md §3.13), made
// once: with the special table, and with its digest for a client that
// lists the vocabulary's hash in vocab.Header (§3.14). Both have the text
// flag: the bridge carries the text beside the IDs.
type vocabFrames struct {
	hash          [32]byte
	whole, digest []byte
}

func newVocabFrames(byModel map[string]*vocab.Vocabulary) map[string]vocabFrames {
	if len(byModel) == 0 {
		return nil
	}
	m := make(map[string]vocabFrames, len(byModel))
	for model, v := range byModel {
		if v == nil {
			continue
		}
		m[model] = vocabFrames{
			hash:   v.Hash(),
			whole:  frame.AppendVocab(nil, v.Vocab(frame.VocabText)),
			digest: frame.AppendVocab(nil, v.Vocab(frame.VocabText|frame.VocabDigest)),
		}
	}
	return m
}

// frame returns the VOCAB frame for a request with header h, or nil for
// a model without a vocabulary: the whole table unless the client lists
// the hash (a client that holds the vocabulary has its table), §3.13.
func (f vocabFrames) frame(h http.Header) []byte {
	if f.whole == nil {
		return nil
	}
	if v := h.Get(vocab.Header); v != "" {
		if holds, err := vocab.ParseHolds(v); err == nil && holds.Has(f.hash) {
			return f.digest
		}
	}
	return f.whole
}

// modelOf is the model a request's JSON asks for, "" if it names none.
func modelOf(body []byte) string {
	raw, ok := jsonlex.Field(body, "model")
	if !ok {
		return ""
	}
	name, ok := jsonlex.AppendUnquoted(nil, raw)
	if !ok {
		return ""
	}
	return string(name)
}
