package chat_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/vocab"
)

// A Chat Completions stream read as frames, the way a client reads either
// API's stream, and written back as the chunks an SDK reads.
func Example() {
	sse := `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":", world"},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: [DONE]

`
	anth, err := io.ReadAll(chat.NewDecoder(strings.NewReader(sse), chat.DecoderOptions{}))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d bytes of SSE, %d of ANTH\n", len(sse), len(anth))

	r := frame.NewReader(bytes.NewReader(anth), frame.ReaderOptions{})
	for {
		f, err := r.Next()
		if err != nil {
			break
		}
		switch f.Type {
		case frame.TypeText:
			block, text, _ := f.Text()
			fmt.Printf("TEXT block %d: %q\n", block, text)
		case frame.TypeDone:
			reason, _, _ := f.Done()
			fmt.Println("DONE", reason)
		}
	}

	e := chat.NewEncoder(os.Stdout, chat.EncoderOptions{})
	e.Write(anth)
	if err := e.Close(); err != nil {
		panic(err)
	}
	// Output:
	// 643 bytes of SSE, 105 of ANTH
	// TEXT block 0: ""
	// TEXT block 0: "Hello"
	// TEXT block 0: ", world"
	// DONE EndTurn
	// data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}
	//
	// data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}
	//
	// data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":", world"},"finish_reason":null}]}
	//
	// data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}
	//
	// data: [DONE]
}

// A gateway that holds the model's vocabulary gives the Decoder its
// Lookup: the logprobs' bytes of each token become its ID, in a TOKEN
// frame beside the text, and written back the chunk has vLLM's token_ids.
func ExampleDecoder_SetLookup() {
	v, _ := vocab.ParseTiktoken([]byte("SGk= 0\nIQ== 1\n"), nil) // "Hi" 0, "!" 1
	sse := `data: {"choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[]}],"refusal":null}}]}

data: [DONE]

`
	d := chat.NewDecoder(strings.NewReader(sse), chat.DecoderOptions{RawEvents: true})
	d.SetLookup(v.Lookup)
	anth, _ := io.ReadAll(d)
	for f, err := range frame.NewReader(bytes.NewReader(anth), frame.ReaderOptions{}).All() {
		if err != nil {
			panic(err)
		}
		if f.Type.IsToken() {
			ids, _ := f.Tokens(nil)
			fmt.Println(f.Type, ids) // a lone ID in the 3-byte SHORT_TOKEN frame
		}
	}
	e := chat.NewEncoder(os.Stdout, chat.EncoderOptions{})
	e.Write(anth)
	e.Close()
	// Output:
	// SHORT_TOKEN [0]
	// data: {"choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[]}],"refusal":null},"token_ids":[0]}]}
	//
	// data: [DONE]
}
