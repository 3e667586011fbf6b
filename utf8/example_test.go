package utf8_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/layer0/anth/utf8"
)

// Byte-level BPE tokens split "你好" (E4 BD A0 E5 A5 BD) anywhere; the
// Decoder emits each character once it is whole.
func ExampleDecoder() {
	var d utf8.Decoder
	for _, token := range [][]byte{{0xE4, 0xBD}, {0xA0, 0xE5}, {0xA5}, {0xBD, '!'}} {
		out := d.Append(nil, token)
		fmt.Printf("%q (holding %d)\n", out, d.Pending())
	}
	// Output:
	// "" (holding 2)
	// "你" (holding 1)
	// "" (holding 2)
	// "好!" (holding 0)
}

// Ill-formed input becomes one U+FFFD per maximal subpart, and valid text
// after it is never lost; Flush turns a cut-off character into U+FFFD.
func ExampleDecoder_Flush() {
	var d utf8.Decoder
	out := d.Append(nil, []byte("\xC3A\xF0\x9F\x98B \xE4\xBD"))
	out = d.Flush(out)
	fmt.Printf("%+q\n", out)
	// Output: "\ufffdA\ufffdB \ufffd"
}

// A strict Decoder stops at the first ill-formed byte and says where it is.
func ExampleDecoder_strict() {
	d := utf8.Decoder{Strict: true}
	out := d.Append(nil, []byte("chunk one "))
	out = d.Append(out, []byte("and \xED\xA0\x80 a surrogate"))
	fmt.Printf("%q\n%v\n", out, d.Err())
	// Output:
	// "chunk one and "
	// utf8: offset 14: ill-formed UTF-8: ed
}

// NewReader makes any io.Reader yield whole characters only.
func ExampleNewReader() {
	body := strings.NewReader("caf\xC3\xA9 \xE2\x98\x95")
	text, _ := io.ReadAll(utf8.NewReader(body))
	fmt.Println(string(text))
	// Output: café ☕
}

// AppendClean drops a byte order mark, a zero-width space, a bidi override
// and text hidden in tag characters ("ig") from a prompt.
func ExampleAppendClean() {
	prompt := []byte("\uFEFFPlease\u200B summarize\u202E this\U000E0069\U000E0067")
	fmt.Printf("%q\n", utf8.AppendClean(nil, prompt))
	// Output: "Please summarize this"
}

// To clean a stream, clean what a Decoder emits: only whole characters, so
// a character split between pieces (here U+202E, E2 80 AE) is removed as if
// it had come in one piece.
func ExampleAppendClean_stream() {
	var d utf8.Decoder
	var text, prompt []byte
	for _, piece := range [][]byte{[]byte("safe\xE2\x80"), []byte("\xAEevil")} {
		text = d.Append(text[:0], piece)
		prompt = utf8.AppendClean(prompt, text)
	}
	prompt = utf8.AppendClean(prompt, d.Flush(text[:0]))
	fmt.Printf("%q\n", prompt)
	// Output: "safeevil"
}

// Text returns clean input itself, without a copy, and keeps only the cut
// character at its end for the next call.
func ExampleDecoder_Text() {
	var d utf8.Decoder
	piece := []byte("clean text \xE4\xBD")
	text := d.Text(nil, piece)
	fmt.Printf("%q, aliases the piece: %v, holding %d\n", text, &text[0] == &piece[0], d.Pending())
	fmt.Printf("%q\n", d.Text(nil, []byte("\xA0!")))
	// Output:
	// "clean text ", aliases the piece: true, holding 2
	// "你!"
}

// StripBOM drops a byte order mark that starts the stream, and only that
// one: a mark later in the stream is text.
func ExampleDecoder_stripBOM() {
	d := utf8.Decoder{StripBOM: true}
	out := d.Append(nil, []byte("\xEF\xBB\xBFfirst "))
	out = d.Append(out, []byte("\xEF\xBB\xBFsecond"))
	fmt.Printf("%+q\n", out)
	// Output: "first \ufeffsecond"
}
