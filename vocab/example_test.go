package vocab_test

import (
	"fmt"

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
