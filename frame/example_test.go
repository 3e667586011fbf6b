package frame_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/layer0/anth/frame"
)

// A server streams a response; the slice layer builds frames in a reused
// buffer with no allocation.
func ExampleAppendToken() {
	b := frame.AppendMagic(nil)
	b = frame.AppendToken(b, 9906)   // fits in 16 bits: a 5-byte TOKEN frame
	b = frame.AppendToken(b, 100276) // a cl100k ID: a TOKEN32 frame
	b = frame.AppendDone(b, frame.StopEndTurn, "")
	fmt.Printf("% X\n", b)
	// Output: 41 4E 54 48 00 00 02 26 B2 04 00 04 00 01 87 B4 03 00 01 01
}

// Parse reads one frame from a byte slice and says how many bytes it used.
func ExampleParse() {
	b := frame.AppendText(nil, 0, []byte("Hello"))
	b = frame.AppendUsage(b, frame.Usage{InputTokens: 12, OutputTokens: 1})
	for len(b) > 0 {
		f, n, err := frame.Parse(b)
		if err != nil {
			log.Fatal(err)
		}
		switch f.Type {
		case frame.TypeText:
			block, text, _ := f.Text()
			fmt.Printf("text block %d: %q\n", block, text)
		case frame.TypeUsage:
			u, _ := f.Usage()
			fmt.Printf("usage: %d in, %d out\n", u.InputTokens, u.OutputTokens)
		}
		b = b[n:]
	}
	// Output:
	// text block 0: "Hello"
	// usage: 12 in, 1 out
}

// A server writes frames as the model produces them; each call is one Write,
// at once. On an http.ResponseWriter, Flush also flushes the response.
func ExampleWriter() {
	var conn bytes.Buffer // an http.ResponseWriter or net.Conn in a server
	w := frame.NewWriter(&conn, frame.WriterOptions{})
	for _, piece := range []string{"Hello", ", ", "世界"} {
		if err := w.WriteText(0, []byte(piece)); err != nil {
			log.Fatal(err)
		}
	}
	_ = w.WriteUsage(frame.Usage{InputTokens: 9, OutputTokens: 3})
	_ = w.WriteDone(frame.StopEndTurn, "")
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(conn.Len(), "bytes")
	// Output: 51 bytes
}

// A client reads frames until the end of the stream. Frames borrow the
// Reader's buffer until the next call.
func ExampleReader() {
	stream := frame.AppendMagic(nil)
	stream = frame.AppendText(stream, 0, []byte("Hi"))
	stream = frame.AppendPad(stream, 5)
	stream = frame.AppendDone(stream, frame.StopMaxTokens, "")

	r := frame.NewReader(bytes.NewReader(stream), frame.ReaderOptions{})
	for f, err := range r.All() {
		if err != nil {
			log.Fatal(err)
		}
		switch f.Type {
		case frame.TypeText:
			_, text, _ := f.Text()
			os.Stdout.Write(text)
			fmt.Println()
		case frame.TypeDone:
			reason, _, _ := f.Done()
			fmt.Println("stop:", reason)
		}
	}
	// Output:
	// Hi
	// stop: MaxTokens
}

// Errors say where the input went wrong and match the kinds with errors.Is.
func ExampleError() {
	stream := []byte("ANTH\x01\x00\x0B") // a USAGE frame must be 12 bytes
	_, err := frame.NewReader(bytes.NewReader(stream), frame.ReaderOptions{}).Next()
	var e *frame.Error
	if errors.As(err, &e) && errors.Is(err, frame.ErrMalformed) {
		fmt.Println(e.Offset, e.Type)
	}
	fmt.Println(err)

	_, err = frame.NewReader(bytes.NewReader([]byte("ANTH\x00\x00\x02\x00")), frame.ReaderOptions{}).Next()
	fmt.Println(errors.Is(err, io.ErrUnexpectedEOF))
	// Output:
	// 5 USAGE
	// frame: offset 5: USAGE frame: malformed: payload length 11, want 12
	// true
}
