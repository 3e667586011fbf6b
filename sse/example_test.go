package sse_test

import (
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/layer0/anth/sse"
)

// A Scanner splits an event stream into events as browsers do: comments
// and fields it does not know are skipped, data lines are joined with LF,
// and any line end goes. AppendEvent writes one back.
func ExampleScanner() {
	stream := ": keep-alive\r\nevent: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\r\ndata: \"index\":0}\r\n\r\nid: 7\ndata: [DONE]\n\n"
	sc := sse.NewScanner(strings.NewReader(stream), 0)
	for {
		name, data, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%q %q\n", name, data)
	}
	fmt.Printf("%q\n", sse.AppendEvent(nil, []byte("ping"), []byte("a\nb")))
	// Output:
	// "content_block_delta" "{\"type\":\"content_block_delta\",\n\"index\":0}"
	// "" "[DONE]"
	// "event: ping\ndata: a\ndata: b\n\n"
}
