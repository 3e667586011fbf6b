package vocab_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/vocab"
)

// A byte-level vocabulary splits "你" (E4 BD A0) between two tokens; the
// Detokenizer emits the character once it is whole and reports the
// special token by name, never as text.
func ExampleDetokenizer() {
	v, err := vocab.ParseTiktoken([]byte("SGk= 0\nIA== 1\n5L0= 2\noA== 3\n"), map[string]uint32{"<|endoftext|>": 4})
	if err != nil {
		panic(err)
	}
	d := vocab.NewDetokenizer(v)
	for _, frame := range [][]uint32{{0, 1, 2}, {3, 4}, {9}} { // IDs as TOKEN frames bring them
		var text []byte
		for len(frame) > 0 {
			var n int
			text, n, err = d.AppendText(text, frame)
			fmt.Printf("%q", text)
			if err != nil {
				fmt.Printf(" error: %v\n", err)
				return
			}
			if name, ok := v.Special(frame[n-1]); ok {
				fmt.Printf(" then special %s", name)
			}
			frame = frame[n:]
		}
		fmt.Println()
	}
	// Output:
	// "Hi "
	// "你" then special <|endoftext|>
	// "" error: vocab: ID 9 at index 5: unknown token ID
}

// Hash names a vocabulary: the SHA-256 of its tokens as tiktoken lines,
// here what `printf 'YQ== 0\nYg== 1\n' | sha256sum` prints.
func ExampleVocabulary_Hash() {
	v, _ := vocab.ParseTiktoken([]byte("YQ== 0\nYg== 1\n"), nil)
	fmt.Printf("%q\n%x\n", v.AppendTiktoken(nil), v.Hash())
	// Output:
	// "YQ== 0\nYg== 1\n"
	// 2c0963e372087fb07b6c2d82640331995306884f7c8ca28dd13c572100ddcb3f
}

// A server names the vocabulary of its token frames in a VOCAB frame; a
// client reads the response's text through Text.AppendFrame, whatever
// frames carry it, and a stream naming another vocabulary is an error.
func ExampleText() {
	v, _ := vocab.ParseTiktoken([]byte("SGk= 0\nIA== 1\n5L0= 2\noA== 3\n"), map[string]uint32{"<|endoftext|>": 4})
	v, _ = v.Named("tiny")

	// The server: VOCAB, then IDs — "你" split between two tokens.
	stream := frame.AppendMagic(nil)
	stream = frame.AppendVocab(stream, v.Vocab(0))
	stream = frame.AppendToken(stream, 0, 1, 2)
	stream = frame.AppendToken(stream, 3)
	stream = frame.AppendDone(stream, frame.StopEndTurn, "")

	// The client.
	r := frame.NewReader(bytes.NewReader(stream), frame.ReaderOptions{})
	t := vocab.NewText(v)
	var text []byte
	for f, err := range r.All() {
		if err != nil {
			panic(err)
		}
		if text, err = t.AppendFrame(text, f); err != nil {
			panic(err)
		}
		fmt.Printf("%v %q\n", f.Type, text)
	}

	// A client holding another vocabulary refuses the stream.
	w, _ := vocab.ParseTiktoken([]byte("SGk= 0\n"), nil)
	_, err := vocab.NewText(w).AppendFrame(nil, frame.Frame{Type: frame.TypeVocab, Payload: frame.AppendVocab(nil, v.Vocab(0))[frame.HeaderSize:]})
	fmt.Println(errors.Is(err, vocab.ErrUnknownVocabulary))
	// Output:
	// VOCAB ""
	// TOKEN "Hi "
	// TOKEN "Hi 你"
	// DONE "Hi 你"
	// true
}

// A vocabulary file holds every token in one table, checked on load: here
// two tokens and a special, 105 bytes, read back as the same vocabulary.
func ExampleVocabulary_AppendFile() {
	v, _ := vocab.ParseTiktoken([]byte("YQ== 0\nYg== 1\n"), map[string]uint32{"<|endoftext|>": 2})
	v, _ = v.Named("ab")
	file := v.AppendFile(nil)
	w, err := vocab.ParseFile(file)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(file), w.Name(), w.Hash() == v.Hash())
	file[len(file)/2] ^= 1 // a byte changed anywhere is caught
	_, err = vocab.ParseFile(file)
	fmt.Println(errors.Is(err, vocab.ErrMalformed))
	// Output:
	// 105 ab true
	// true
}

// A client lists the vocabularies it holds; a server checks its model's.
func ExampleParseHolds() {
	v, _ := vocab.ParseTiktoken([]byte("YQ== 0\nYg== 1\n"), nil)
	header := vocab.AppendHolds(nil, vocab.Holds{Hashes: [][32]byte{v.Hash()}})
	fmt.Printf("%s: %s\n", vocab.Header, header)
	h, err := vocab.ParseHolds(string(header) + ", text")
	fmt.Println(h.Has(v.Hash()), h.Text, err)
	// Output:
	// Anth-Vocabularies: sha256=LAlj43IIf7B7bC2CZAMxmVMGiE98jKKN0TxXIQDdyz8=
	// true true <nil>
}

// Lookup turns a token's bytes, as OpenAI's logprobs report them, back
// into its ID; a special token's name and bytes no token has are not found.
func ExampleVocabulary_Lookup() {
	v, _ := vocab.ParseTiktoken([]byte("SGk= 0\nIA== 1\n5L0= 2\noA== 3\n"), map[string]uint32{"<|endoftext|>": 4})
	for _, b := range [][]byte{{72, 105}, {228, 189}, []byte("<|endoftext|>"), []byte("Hi ")} {
		id, ok := v.Lookup(b)
		fmt.Println(id, ok)
	}
	// Output:
	// 0 true
	// 2 true
	// 0 false
	// 0 false
}
