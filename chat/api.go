package chat

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/eventframe"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/request"
)

// API is the Chat Completions API as a bridge.API, for packages anthhttp
// and anthclient: anthhttp's NewResponseWriter, Proxy and Gateway serve,
// and anthclient's NewFrameReader and Transport read, Chat Completions
// streams through it. The zero value is ready to
// use; its fields configure the Decoders and Encoders it makes.
type API struct {
	Decoder DecoderOptions
	Encoder EncoderOptions
	// Request bounds the requests AppendRequestANTH and AppendRequestJSON
	// convert.
	Request request.Limits
	// Decoders, if set, is where NewDecoder takes its Decoders and where
	// they go back when the stream is done: a gateway sets it.
	Decoders *DecoderPool
}

var (
	_ bridge.API   = API{}
	_ bridge.Usage = API{}
)

// EventUsage gives the token counts of a chunk's usage, prompt_tokens and
// completion_tokens, wherever a server puts it (SPEC.md §7b.2, §7b.3): the
// include_usage chunk, the last chunk of text, or every chunk as running
// counts; for bridge.Usage, so that a gateway relaying the stream as SSE
// counts what a frame client's USAGE would say. A named event, a chunk
// without usage, or one that is the stream's error (whose usage no frame
// carries), reports none. It reads the chunk without allocating.
func (API) EventUsage(name, data []byte) (input, output uint64, ok bool) {
	// Most chunks have no usage: one search skips them, not a walk.
	if len(name) > 0 || !bytes.Contains(data, []byte(`"usage"`)) {
		return 0, 0, false
	}
	usage, found := jsonlex.Field(data, "usage")
	if !found {
		return 0, 0, false
	}
	if errv, isErr := jsonlex.Field(data, "error"); isErr {
		if _, hasChoices := jsonlex.Field(data, "choices"); errorEnds(errv, isErr, hasChoices) {
			return 0, 0, false
		}
	}
	var inOK, outOK bool
	input, inOK = jsonlex.Uint(usage, "prompt_tokens")
	output, outOK = jsonlex.Uint(usage, "completion_tokens")
	return input, output, inOK || outOK
}

// Path returns the API's streaming endpoint, "/v1/chat/completions".
func (API) Path() string { return "/v1/chat/completions" }

// Streaming reports whether body asks for a stream: "stream": true.
func (API) Streaming(body []byte) bool {
	v, ok := jsonlex.Field(body, "stream")
	return ok && string(v) == "true"
}

// NewDecoder returns a Decoder of a's options reading r, from a.Decoders
// if it is set (Release gives it back); coded sets RawEvents (SPEC.md
// §11.2) and RandomPad (§7b.4).
func (a API) NewDecoder(r io.Reader, coded bool) bridge.Decoder {
	opts := a.Decoder
	opts.RawEvents = opts.RawEvents || coded
	opts.RandomPad = opts.RandomPad || coded
	if a.Decoders != nil {
		return a.Decoders.get(r, opts)
	}
	return NewDecoder(r, opts)
}

// NewEncoder returns an Encoder of a's options writing to w; coded sets
// Coded, and a request body that names a model names the chunks of a
// stream that has none of its own (SPEC.md §7b.5), unless a's options name
// one.
func (a API) NewEncoder(w io.Writer, coded bool, body []byte) bridge.Encoder {
	opts := a.Encoder
	opts.Coded = opts.Coded || coded
	if opts.Model == "" && body != nil {
		if v, ok := jsonlex.Field(body, "model"); ok {
			// A client names the model: bounded, since a stream with no
			// chunks of its own repeats it in every chunk (SPEC.md §12).
			if m, ok := jsonlex.AppendUnquoted(nil, v); ok && len(m) <= maxModel {
				opts.Model = string(m)
			}
		}
	}
	return NewEncoder(w, opts)
}

// maxModel bounds the model name API.NewEncoder takes from a request body.
const maxModel = 256

// RawEvents returns a writer that writes each deflated EVENT frame raw.
func (API) RawEvents(w io.Writer) io.Writer { return &eventframe.RawWriter{W: w, Dict: eventDict()} }

// Dictionary returns EventDictionary, prepared once: the preset dictionary
// of this API's anth-deflate bodies (SPEC.md §7b.6).
func (API) Dictionary() *deflate.Dictionary { return eventDict() }

// CheckEvent refuses an event whose data is neither JSON nor [DONE], as a
// Decoder does, and reports what ends a response as a Decoder does: [DONE],
// an error chunk, or a named error event (SPEC.md §7b.3).
func (API) CheckEvent(name, data []byte) (ends bool, err error) {
	if len(name) == 0 && string(data) == doneData {
		return true, nil
	}
	if !jsonlex.Valid(data) {
		return false, &Error{Offset: -1, Err: ErrMalformed, Detail: "chunk is not JSON"}
	}
	if len(name) > 0 {
		return string(name) == "error", nil // §7b.3: a named error event ends it
	}
	errv, isErr := jsonlex.Field(data, "error")
	_, hasChoices := jsonlex.Field(data, "choices")
	return errorEnds(errv, isErr, hasChoices), nil
}

// EndsAtEOF reports whether a stream that ends with its bytes after the
// event, with no data: [DONE], is whole, as a Decoder judges it (SPEC.md
// §7b.3): after a chunk that finishes every choice it holds, or the usage
// chunk, as Writer's API ends its streams. It implements bridge.EndAtEOF.
func (API) EndsAtEOF(name, data []byte) bool {
	return len(name) == 0 && endsAtEOF(data)
}

// AppendError appends the API's error body:
// {"error":{"message":…,"type":…,"param":null,"code":null}}.
func (API) AppendError(b []byte, code frame.ErrorCode, message string) []byte {
	return appendErrorChunk(b, code, []byte(message))
}

// AppendErrorEvent appends the chunk with which the API ends a stream that
// failed: the error body as a data: event.
func (API) AppendErrorEvent(b []byte, code frame.ErrorCode, message string) []byte {
	return appendData(b, appendErrorChunk(nil, code, []byte(message)))
}

// ParseError reads the API's error body,
// {"error":{"message":…,"type":…,…}}.
func (API) ParseError(body []byte) (typ, message string, ok bool) {
	var e struct {
		Error *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == nil {
		return "", "", false
	}
	return e.Error.Type, e.Error.Message, true
}

// AppendRequestANTH is a.Request.AppendChatANTH: a Chat Completions request
// body as an extended request of version 2 (SPEC.md §5.5).
func (a API) AppendRequestANTH(dst, body []byte) ([]byte, error) {
	return a.Request.AppendChatANTH(dst, body)
}

// AppendRequestJSON is a.Request.AppendChatJSON.
func (a API) AppendRequestJSON(dst, anth []byte) ([]byte, error) {
	return a.Request.AppendChatJSON(dst, anth)
}
