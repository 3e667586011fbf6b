package deflate_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/layer0/anth/deflate"
)

// A server compresses each frame as it writes it and flushes; the client
// inflates each record as it arrives. A record costs about a byte
// beyond its symbols (its length, a block header, the end of block and the
// flush, less the zero bytes that end the flush, which it leaves out); text
// the window has seen before costs a match of about two bytes.
func Example() {
	var body bytes.Buffer
	w := deflate.NewWriter(&body, nil)
	tokens := []string{"The", " model", " streams", " each", " token", " as", " it", " is", " sampled."}
	for pass := range 2 {
		before := body.Len()
		for _, token := range tokens {
			w.Write([]byte(token))
			w.Flush() // one record: everything so far can be read
		}
		fmt.Printf("pass %d: %d records, %d bytes\n", pass+1, len(tokens), body.Len()-before)
	}

	text, err := io.ReadAll(deflate.NewReader(&body, nil))
	fmt.Printf("%q %v\n", text, err)
	// Output:
	// pass 1: 9 records, 67 bytes
	// pass 2: 9 records, 36 bytes
	// "The model streams each token as it is sampled.The model streams each token as it is sampled." <nil>
}
