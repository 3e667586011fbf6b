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
