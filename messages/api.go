package messages

import (
	"encoding/json"
	"io"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/eventframe"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/request"
)

// API is the Anthropic Messages API as a bridge.API, for packages anthhttp
// and anthclient: anthhttp's NewResponseWriter, Proxy and Gateway serve,
// and anthclient's NewFrameReader and Transport read, the Messages API's
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

// EventUsage gives the token counts of message_start (message.usage) and
// message_delta (usage, whose output_tokens are the response's so far),
// for bridge.Usage; other events report none. It reads the event's JSON
// without allocating.
func (API) EventUsage(name, data []byte) (input, output uint64, ok bool) {
	// The usage object found once, and its two counts read in it: the
	// same values as the whole paths give (jsonlex.Field takes a path's
	// first key at each level), for one walk of the event, not two.
	var usage []byte
	var found bool
	switch string(name) {
	case "message_start":
		usage, found = jsonlex.Field(data, "message", "usage")
	case "message_delta":
		usage, found = jsonlex.Field(data, "usage")
	default:
		return 0, 0, false
	}
	if !found {
		return 0, 0, false
	}
	var inOK, outOK bool
	input, inOK = jsonlex.Uint(usage, "input_tokens")
	output, outOK = jsonlex.Uint(usage, "output_tokens")
	return input, output, inOK || outOK
}

// Path returns the Messages API's endpoint, "/v1/messages".
func (API) Path() string { return "/v1/messages" }

// Streaming reports whether body asks for a stream: "stream": true.
func (API) Streaming(body []byte) bool {
	v, ok := jsonlex.Field(body, "stream")
	return ok && string(v) == "true"
}

// NewDecoder returns a Decoder of a's options reading r, from a.Decoders
// if it is set (Release gives it back); coded sets RawEvents.
func (a API) NewDecoder(r io.Reader, coded bool) bridge.Decoder {
	opts := a.Decoder
	opts.RawEvents = opts.RawEvents || coded
	if a.Decoders != nil {
		return a.Decoders.get(r, opts)
	}
	return NewDecoder(r, opts)
}

// NewEncoder returns an Encoder of a's options writing to w; coded sets
// Coded, and a request body that names a model names the message of a
// stream that does not (ANTH from a server that never saw SSE), unless
// a's options name one.
func (a API) NewEncoder(w io.Writer, coded bool, body []byte) bridge.Encoder {
	opts := a.Encoder
	opts.Coded = opts.Coded || coded
	if opts.Model == "" && body != nil {
		if v, ok := jsonlex.Field(body, "model"); ok {
			if m, ok := jsonlex.AppendUnquoted(nil, v); ok {
				opts.Model = string(m)
			}
		}
	}
	return NewEncoder(w, opts)
}

// RawEvents returns a writer that writes each deflated EVENT frame raw.
func (API) RawEvents(w io.Writer) io.Writer { return &eventframe.RawWriter{W: w, Dict: eventDict()} }

// Dictionary returns EventDictionary, prepared once.
func (API) Dictionary() *deflate.Dictionary { return eventDict() }

// CheckEvent refuses an event whose data is not JSON, as a Decoder does,
// and reports message_stop and error as the end of a response.
func (API) CheckEvent(name, data []byte) (ends bool, err error) {
	if !(string(name) == "content_block_delta" && validDelta(data)) && !jsonlex.Valid(data) {
		return false, &Error{Offset: -1, Err: ErrMalformed, Detail: "event data is not JSON"}
	}
	return string(name) == "message_stop" || string(name) == "error", nil
}

// AppendError appends the API's error body:
// {"type":"error","error":{"type":…,"message":…}}.
func (API) AppendError(b []byte, code frame.ErrorCode, message string) []byte {
	return appendErrorJSON(b, code, []byte(message))
}

// AppendErrorEvent appends the API's error event.
func (API) AppendErrorEvent(b []byte, code frame.ErrorCode, message string) []byte {
	return appendEvent(b, []byte("error"), appendErrorJSON(nil, code, []byte(message)))
}

// AppendRequestANTH is a.Request.AppendANTH: the seed form when it can
// carry the request, else the extended form.
func (a API) AppendRequestANTH(dst, body []byte) ([]byte, error) {
	return a.Request.AppendANTH(dst, body)
}

// AppendRequestJSON is a.Request.AppendJSON.
func (a API) AppendRequestJSON(dst, anth []byte) ([]byte, error) {
	return a.Request.AppendJSON(dst, anth)
}

// ParseError reads the API's error body,
// {"type":"error","error":{"type":…,"message":…}}.
func (API) ParseError(body []byte) (typ, message string, ok bool) {
	var e struct {
		Type  string `json:"type"`
		Error *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Type != "error" || e.Error == nil {
		return "", "", false
	}
	return e.Error.Type, e.Error.Message, true
}
