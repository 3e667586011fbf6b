//go:build ignore

// anthz writes, for the SSE on standard input, the anth-deflate body Go's
// anthhttp.Proxy sends a client that asks for ANTH in anth-deflate, when
// the upstream gives it an event a Read: the DICTID and one record per
// event, as testdata/golden/*.anthz (anthhttp's TestCodedGolden). It is
// how browser-bench.js codes its synthetic response.
//
//	go run ./interop/ts/bench/anthz.go < response.sse > response.anthz
package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http/httptest"
	"os"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/messages"
)

// events reads an event stream an event (up to its blank line) a Read.
type events struct{ rest []byte }

func (e *events) Read(p []byte) (int, error) {
	if len(e.rest) == 0 {
		return 0, io.EOF
	}
	n := len(e.rest)
	if i := bytes.Index(e.rest, []byte("\n\n")); i >= 0 {
		n = i + 2
	}
	n = copy(p, e.rest[:n])
	e.rest = e.rest[n:]
	return n, nil
}

func (e *events) Close() error { return nil }

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	r := httptest.NewRequest("POST", "/v1/messages", nil)
	r.Header.Set("Accept", "application/x-anthropic-binary")
	r.Header.Set("Accept-Encoding", "anth-deflate")
	w := httptest.NewRecorder()
	if err := anthhttp.Proxy(w, r, &events{in}, messages.API{}, anthhttp.ProxyOptions{}); err != nil {
		fail(err)
	}
	if ce := w.Header().Get("Content-Encoding"); ce != "anth-deflate" {
		fail(fmt.Errorf("Content-Encoding %q, want anth-deflate", ce))
	}
	os.Stdout.Write(w.Body.Bytes())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "anthz:", err)
	os.Exit(1)
}
