package request_test

import (
	"fmt"
	"log"

	"github.com/layer0/anth/request"
)

// A request is one message: the model, the conversation and max_tokens.
// Content of any length is carried whole.
func ExampleAppend() {
	req := request.Seed{
		Model:     "claude-sonnet-4-5",
		Messages:  []request.Message{{Role: request.RoleUser, Content: "你好"}},
		MaxTokens: 64_000,
	}
	b, err := request.Append(nil, req)
	if err != nil {
		log.Fatal(err)
	}
	back, err := request.Parse(b)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(b), back.Messages[0].Content, back.MaxTokens)
	// Output: 34 你好 64000
}

// A Chat Completions request body travels as ANTX version 2: any JSON, its
// keys and common values a byte each from the Chat Completions dictionary,
// an image sent inline as a data URL as its bytes. It comes back as the
// same JSON, compact.
func ExampleAppendChatANTH() {
	body := []byte(`{
  "model": "gpt-4o",
  "messages": [{"role": "user", "content": [
    {"type": "text", "text": "What is this?"},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
  ]}],
  "stream": true,
  "stream_options": {"include_usage": true}
}`)
	anth, err := request.AppendChatANTH(nil, body)
	if err != nil {
		log.Fatal(err)
	}
	back, err := request.AppendChatJSON(nil, anth)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d bytes of JSON, %d of ANTH (%q, version %d)\n", len(body), len(anth), anth[:4], anth[4])
	fmt.Println(string(back))
	// A Messages reader refuses it at its version byte.
	_, err = request.AppendJSON(nil, anth)
	fmt.Println(err != nil)
	// Output:
	// 271 bytes of JSON, 82 of ANTH ("ANTX", version 2)
	// {"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}],"stream":true,"stream_options":{"include_usage":true}}
	// true
}
