package anthhttp

import (
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/vocab"
)

// vocabFrames are the two VOCAB frames that may name a model's vocabulary
// in its streams (GatewayOptions.ModelVocabularies, SPEC.md §3.13), made
// once: with the special table, and with its digest for a client that
// lists the vocabulary's hash in vocab.Header (§3.14). Both have the text
// flag: the bridge carries the text beside the IDs. lookup, for a
// byte-level vocabulary, maps a token's bytes to its ID, for a Decoder
// that can carry IDs its API reports only as bytes (lookupSetter).
type vocabFrames struct {
	hash          [32]byte
	whole, digest []byte
	lookup        func(b []byte) (id uint32, ok bool)
}

// lookupSetter is a Decoder that adds the token IDs of the bytes its API
// reports of each token, given the vocabulary's lookup: chat.Decoder
// turns OpenAI's logprobs into token_ids (SetLookup). anthhttp knows no
// API's JSON: the bridge does the reading.
type lookupSetter interface {
	SetLookup(lookup func(b []byte) (id uint32, ok bool))
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
		f := vocabFrames{
			hash:   v.Hash(),
			whole:  frame.AppendVocab(nil, v.Vocab(frame.VocabText)),
			digest: frame.AppendVocab(nil, v.Vocab(frame.VocabText|frame.VocabDigest)),
		}
		if v.Kind() == vocab.ByteLevel {
			// Built on its first call, by the first request that asks.
			f.lookup = v.Lookup
		}
		m[model] = f
	}
	return m
}

// forRequest returns, for a request whose vocab.Header value is h, the
// VOCAB frame (nil for a model without a vocabulary: the whole table
// unless the client lists the hash, as a client that holds the
// vocabulary has its table, §3.13), and the lookup that lets the bridge
// add IDs the upstream reports only as bytes, or nil. That lookup is
// given only to a client that lists the hash and text (§3.14: "IDs and
// text"): IDs it did not ask for would cost it bytes, and one that does
// not hold the vocabulary cannot read them; the decision is the
// request's, so a stream of any other costs nothing a chunk.
func (f vocabFrames) forRequest(h string) (vocabFrame []byte, lookup func(b []byte) (id uint32, ok bool)) {
	if f.whole == nil {
		return nil, nil
	}
	if h != "" {
		if holds, err := vocab.ParseHolds(h); err == nil && holds.Has(f.hash) {
			if holds.Text {
				lookup = f.lookup
			}
			return f.digest, lookup
		}
	}
	return f.whole, nil
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
