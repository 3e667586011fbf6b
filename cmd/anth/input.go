package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
)

// Input kinds that anth decode and anth dump recognise (openANTH).
const (
	kindANTH    = "ANTH"
	kindDeflate = "anth-deflate"
	kindSSE     = "SSE"
)

// maxSniff bounds what openANTH reads of a JSON body to say what it is: the
// Messages API's error bodies are a few hundred bytes.
const maxSniff = 64 << 10

// errNotANTH is the kind of input that anth cannot read as a response: an
// API error body, a JSON body that is not a stream, or bytes of no known
// format.
var errNotANTH = errors.New("input is not ANTH")

// input is what openANTH found: a reader of the ANTH response the input
// carries, what the input was, and the API of its stream.
type input struct {
	r       io.Reader
	kind    string     // kindANTH, kindDeflate or kindSSE
	api     *streamAPI // given by --api, found in the input, or guessed
	guessed bool       // neither --api nor the input said: Messages, taken
}

// openANTH looks at the start of in and returns a reader of the ANTH
// response it carries, what the input was, and its API (given, the one
// --api names, or nil to tell by the input):
//
//   - ANTH (SPEC.md §3.1's Magic first): in as it is; its API by the names
//     of the EVENT frames before its first must-understand frame (sniffANTH);
//   - anth-deflate (SPEC.md §11), a body anthhttp.Proxy sends a client that asked
//     for it, known by the DICTID it starts with, the Messages API's
//     dictionary's or Chat Completions': inflated with that dictionary;
//   - Server-Sent Events, the API's own stream, its API by its first event
//     (sniffSSE): converted through that API's bridge (messages.Decoder,
//     chat.Decoder): the Decoder's errors give offsets in the SSE, the
//     frame reader's in the ANTH the bridge made;
//   - a JSON body: the API's error ({"type":"error",...} or {"error":{...}},
//     what a 401, 429 or 529 carries) is returned as an error that gives its
//     type and message, any other JSON as "not a stream";
//   - anything else: an error that says what the input starts with.
//
// An input that says it is one API's, given the other's, is an error that
// names both. Bounds: deciding holds at most maxSniff (64 KiB) of input,
// and reads no more than that, nor more than the first SSE event or the
// ANTH frames before the first must-understand one, so a live stream is
// not held back; past the decision, the returned reader holds what its
// format's reader holds (a frame.Reader's limits, or deflate's fixed 36 KiB
// and at most 1,032 bytes out per byte in, or the Decoder's limits).
func openANTH(in io.Reader, given *streamAPI) (input, error) {
	br := bufio.NewReaderSize(in, maxSniff)
	head, err := br.Peek(len(frame.Magic))
	if err != nil && len(head) == 0 {
		if err == io.EOF {
			return input{}, fmt.Errorf("%w: it is empty", errNotANTH)
		}
		return input{}, err
	}
	var found *streamAPI
	var kind string
	switch {
	case string(head) == frame.Magic:
		found, kind = sniffANTH(br), kindANTH
	case apiOfDictID(head) != nil:
		found, kind = apiOfDictID(head), kindDeflate
	case looksLikeSSE(head):
		found, kind = sniffSSE(br), kindSSE
	case looksLikeJSON(head):
		return input{}, jsonBody(br)
	case bytes.HasPrefix(head, []byte("HTTP")):
		return input{}, fmt.Errorf("%w: it starts with HTTP headers (%s); give anth the body alone (curl without -i)", errNotANTH, startOf(head, br))
	default:
		return input{}, fmt.Errorf("%w: it starts with %s", errNotANTH, startOf(head, br))
	}
	a, guessed, err := chooseAPI(given, found, kind)
	if err != nil {
		return input{}, err
	}
	in = br
	switch kind {
	case kindDeflate:
		in = deflate.NewReader(br, a.Dictionary())
	case kindSSE:
		in = a.NewDecoder(br, false)
	}
	return input{r: in, kind: kind, api: a, guessed: guessed}, nil
}

// startOf quotes the first bytes of the input, for people: as text if they
// are printable, else in hex.
func startOf(b []byte, br *bufio.Reader) string {
	if len(b) < 16 {
		more, _ := br.Peek(16)
		if len(more) > len(b) {
			b = more
		}
	}
	if len(b) > 16 {
		b = b[:16]
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c >= 0x7F {
			return fmt.Sprintf("% X", b)
		}
	}
	return fmt.Sprintf("%q", b)
}

// looksLikeSSE reports whether b starts like an event stream: a field name
// the API sends, or a comment (WHATWG's "event stream" grammar).
func looksLikeSSE(b []byte) bool {
	for _, p := range []string{"even", "data", "id:", ":", "retr"} {
		if bytes.HasPrefix(b, []byte(p)) {
			return true
		}
	}
	return false
}

// looksLikeJSON reports whether b starts like a JSON object.
func looksLikeJSON(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) == 0 || b[0] == '{' || b[0] == '['
}

// apiError is the APIs' error body: the Messages API's, and the Chat
// Completions API's, which has no "type".
type apiError struct {
	Type  string `json:"type"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// jsonBody reads a JSON body of at most maxSniff bytes and returns the
// error that it is: the API's error, or a body that is not a stream.
func jsonBody(br *bufio.Reader) error {
	// In br's buffer, of maxSniff bytes: no copy.
	b, err := br.Peek(maxSniff)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return err
	}
	var e apiError
	// The Messages API's error says "type":"error"; the Chat Completions
	// API's is {"error":{...}} alone.
	if json.Unmarshal(b, &e) == nil && (e.Type == "error" || e.Type == "") && e.Error != nil {
		return &apiErrorBody{Type: e.Error.Type, Message: e.Error.Message}
	}
	start := b
	if len(start) > 40 {
		start = start[:40]
	}
	return fmt.Errorf("%w: it is a JSON body, not a stream (it starts with %q); ask the API with \"stream\": true", errNotANTH, start)
}

// apiErrorBody is the error the API returned instead of a stream.
type apiErrorBody struct{ Type, Message string }

func (e *apiErrorBody) Error() string {
	return fmt.Sprintf("the API returned an error instead of a stream: %s: %s", e.Type, e.Message)
}
