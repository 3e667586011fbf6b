package messages_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
)

const stream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}

event: message_stop
data: {"type":"message_stop"}

`

// A Decoder reads the API's SSE and gives ANTH; an Encoder writes it back
// as SSE. Usage and the stop reason travel as typed frames.
func ExampleDecoder() {
	anth, err := io.ReadAll(messages.NewDecoder(strings.NewReader(stream), messages.DecoderOptions{}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("SSE %d bytes, ANTH %d bytes\n", len(stream), len(anth))
	for f, err := range frame.NewReader(bytes.NewReader(anth), frame.ReaderOptions{}).All() {
		if err != nil {
			log.Fatal(err)
		}
		switch f.Type {
		case frame.TypeText:
			_, text, _ := f.Text()
			fmt.Printf("text %q\n", text)
		case frame.TypeUsage:
			u, _ := f.Usage()
			fmt.Println("usage", u.InputTokens, u.OutputTokens)
		case frame.TypeDone:
			reason, _, _ := f.Done()
			fmt.Println("stop", messages.StopReasonName(reason))
		}
	}
	// Output:
	// SSE 739 bytes, ANTH 80 bytes
	// text "Hello"
	// usage 12 2
	// stop end_turn
}

// An Encoder turns ANTH from a server that never saw SSE into the stream
// the official SDKs read.
func ExampleEncoder() {
	b := frame.AppendMagic(nil)
	b = frame.AppendText(b, 0, []byte("Hi"))
	b = frame.AppendUsage(b, frame.Usage{OutputTokens: 1})
	b = frame.AppendDone(b, frame.StopEndTurn, "")
	e := messages.NewEncoder(os.Stdout, messages.EncoderOptions{Model: "my-model", MessageID: "msg_1"})
	if _, err := e.Write(b); err != nil {
		log.Fatal(err)
	}
	if err := e.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// event: message_start
	// data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"my-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}
	//
	// event: content_block_start
	// data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}
	//
	// event: content_block_delta
	// data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}
	//
	// event: content_block_stop
	// data: {"type":"content_block_stop","index":0}
	//
	// event: message_delta
	// data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}
	//
	// event: message_stop
	// data: {"type":"message_stop"}
}
