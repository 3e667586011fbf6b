package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/sse"
)

// apiFlagUsage documents --api, the same flag as anth request's.
const apiFlagUsage = `--api messages|chat says which API's stream the input is (or, for ANTH,
was bridged from): the Anthropic Messages API or OpenAI's Chat Completions.
Without it anth tells by the input: anth-deflate by its dictionary's DICTID;
SSE whose first event is a chunk (data with "choices"), [DONE] or an error
chunk is Chat Completions, other SSE with event: names Messages; ANTH by
the names of its first EVENT frames (SPEC.md §7b.6); when nothing tells,
messages.
`

// streamAPI is one of the APIs whose streams the CLI reads and writes:
// its bridge, and its names for what frames carry as numbers.
type streamAPI struct {
	name  string // as --api spells it
	title string // for people
	bridge.API
	stopReason func(frame.StopReason) string
	errorType  func(frame.ErrorCode) string
	// events returns a reader of one stream's EVENT frames, each given
	// in turn: it gives an event's data, inflated with the API's dictionary
	// (and, for encoding 3, the event before it: SPEC.md §3.10), at the
	// frame that completes it, and false at the others.
	events func() func(f frame.Frame) ([]byte, bool)
}

var (
	apiMessages = &streamAPI{
		name: "messages", title: "Anthropic Messages API", API: messages.API{},
		stopReason: messages.StopReasonName,
		errorType:  messages.ErrorTypeName,
		events: func() func(f frame.Frame) ([]byte, bool) {
			var er messages.EventReader
			return func(f frame.Frame) ([]byte, bool) {
				e, ok, err := er.Add(f)
				if err != nil {
					er.Reset() // this event shows as it came; the next starts afresh
				}
				return e.Data, ok && err == nil
			}
		},
	}
	apiChat = &streamAPI{
		name: "chat", title: "Chat Completions API", API: chat.API{},
		stopReason: func(r frame.StopReason) string {
			if r == frame.StopUnspecified {
				return ""
			}
			return chat.FinishReasonName(r)
		},
		errorType: chat.ErrorTypeName,
		events: func() func(f frame.Frame) ([]byte, bool) {
			var er chat.EventReader
			return func(f frame.Frame) ([]byte, bool) {
				e, ok, err := er.Add(f)
				if err != nil {
					er.Reset() // this event shows as it came; the next starts afresh
				}
				return e.Data, ok && err == nil
			}
		},
	}
	apis = []*streamAPI{apiMessages, apiChat}
)

// apiNames are --api's values.
var apiNames = []string{"messages", "chat"}

// apiByName returns the API --api names, nil for "" (tell by the input).
func apiByName(name string) *streamAPI {
	for _, a := range apis {
		if a.name == name {
			return a
		}
	}
	return nil
}

// dictID is the DICTID an anth-deflate body of the API starts with
// (SPEC.md §11.2).
func (a *streamAPI) dictID() string {
	return string(binary.BigEndian.AppendUint32(nil, a.Dictionary().ID()))
}

// apiOfDictID returns the API whose anth-deflate bodies start with head.
func apiOfDictID(head []byte) *streamAPI {
	for _, a := range apis {
		if string(head) == a.dictID() {
			return a
		}
	}
	return nil
}

// chatEventNames are the EVENT names of the Chat Completions bridge
// (SPEC.md §7b.6), "error" aside, which both bridges use.
var chatEventNames = map[string]bool{
	"chunk": true, "usage": true, "done": true, "logprob": true,
	"content": true, "refusal": true, "reasoning_content": true, "reasoning": true, "arguments": true,
}

// apiOfEvent returns the API whose bridge names an EVENT so, nil for a
// name both use.
func apiOfEvent(name []byte) *streamAPI {
	switch {
	case string(name) == "error":
		return nil
	case chatEventNames[string(name)] || bytes.HasPrefix(name, []byte("event:")):
		return apiChat
	}
	return apiMessages
}

// sniffANTH tells which API an ANTH stream was bridged from, by its first
// EVENT frames, reading the frames before the first must-understand one and
// no more (so a stream is not held back): nil if they do not tell. br's
// buffer bounds what it reads.
func sniffANTH(br *bufio.Reader) *streamAPI {
	off := len(frame.Magic)
	for {
		b, err := br.Peek(off + frame.HeaderSize)
		if err != nil {
			return nil
		}
		t := frame.Type(b[off])
		if t < 0x80 { // must-understand: the API's own frames begin
			return nil
		}
		end := off + frame.HeaderSize + (int(b[off+1])<<8 | int(b[off+2]))
		if b, err = br.Peek(end); err != nil {
			return nil
		}
		if t == frame.TypeEvent {
			f, _, err := frame.Parse(b[off:])
			if err != nil {
				return nil
			}
			ev, err := f.Event()
			if err != nil {
				return nil
			}
			if a := apiOfEvent(ev.Name); a != nil {
				return a
			}
		}
		off = end
	}
}

// sniffSSE tells which API an event stream is of by its first event: a
// chunk ("choices") is Chat Completions', any other with an event: name the
// Messages API's, a data:-only one whose data is a chunk ("object":
// "chat.completion.chunk"), an error chunk or [DONE] Chat Completions'. It reads until the first event is whole,
// or br's buffer is full, or the input ends, each byte scanned once however
// the input arrives (peekReader): nil if that does not tell.
func sniffSSE(br *bufio.Reader) *streamAPI {
	sc := sse.NewScanner(&peekReader{br: br}, br.Size())
	if name, data, err := sc.Next(); err == nil {
		return apiOfSSEEvent(name, data)
	}
	// No whole event: the input ended inside it, or it is over the buffer.
	b, _ := br.Peek(br.Buffered())
	if bytes.HasPrefix(b, []byte("event:")) || bytes.Contains(b, []byte("\nevent:")) {
		return apiMessages
	}
	return nil
}

// peekReader reads what br would give, leaving it in br's buffer: at most
// the buffer's size, reading from br's reader only for what is not yet in
// the buffer, as a scanner of the input would.
type peekReader struct {
	br  *bufio.Reader
	off int
}

func (p *peekReader) Read(b []byte) (int, error) {
	if p.off >= p.br.Size() {
		return 0, io.EOF
	}
	if _, err := p.br.Peek(p.off + 1); err != nil && p.br.Buffered() <= p.off {
		if err == bufio.ErrBufferFull {
			err = io.EOF
		}
		return 0, err
	}
	buf, _ := p.br.Peek(p.br.Buffered())
	n := copy(b, buf[p.off:])
	p.off += n
	return n, nil
}

// apiOfSSEEvent is sniffSSE's decision on a stream's first event.
func apiOfSSEEvent(name, data []byte) *streamAPI {
	if _, ok := jsonlex.Field(data, "choices"); ok && jsonlex.Valid(data) {
		return apiChat // a chunk, even under an event: name (SPEC.md §7b.3)
	}
	if len(name) > 0 {
		return apiMessages
	}
	if string(data) == "[DONE]" {
		return apiChat
	}
	if !jsonlex.Valid(data) {
		return nil
	}
	if v, ok := jsonlex.Field(data, "object"); ok && string(v) == `"chat.completion.chunk"` {
		return apiChat
	}
	_, isErr := jsonlex.Field(data, "error")
	_, typed := jsonlex.Field(data, "type")
	if isErr && !typed {
		return apiChat // the API's error chunk; Messages' says "type":"error"
	}
	if typed {
		return apiMessages
	}
	return nil
}

// chooseAPI settles the API of an input: the one --api gave (given), unless
// the input says otherwise (found), which is an error naming both; else the
// one found; else Messages, guessed.
func chooseAPI(given, found *streamAPI, what string) (a *streamAPI, guessed bool, err error) {
	switch {
	case given != nil && found != nil && given != found:
		return nil, false, &apiMismatch{given: given, found: found, what: what}
	case given != nil:
		return given, false, nil
	case found != nil:
		return found, false, nil
	}
	return apiMessages, true, nil
}

// apiMismatch is an input of one API given --api of the other.
type apiMismatch struct {
	given, found *streamAPI
	what         string // the input's kind
}

func (e *apiMismatch) Error() string {
	return fmt.Sprintf("--api %s, but the input is %s of the %s (--api %s)", e.given.name, e.what, e.found.title, e.found.name)
}

// guessedAPI adds to an error about an input whose API the CLI guessed
// what it took the input for, and how to say otherwise.
func guessedAPI(err error, a *streamAPI, guessed bool) error {
	if err == nil || !guessed {
		return err
	}
	var out *outputError
	if errors.As(err, &out) || errors.Is(err, errUsage) {
		return err
	}
	other := apiChat
	if a == apiChat {
		other = apiMessages
	}
	return &guessError{err, fmt.Sprintf(" (read as the %s's stream, which the input did not say; --api %s if it is the %s's)", a.title, other.name, other.title)}
}

// guessError is an error with guessedAPI's note after it.
type guessError struct {
	err  error
	note string
}

func (e *guessError) Error() string { return e.err.Error() + e.note }
func (e *guessError) Unwrap() error { return e.err }

// apiFlag adds --api to a command's flags.
type apiFlag struct{ name string }

func (f *apiFlag) String() string { return f.name }
func (f *apiFlag) Set(s string) error {
	if apiByName(s) == nil {
		return fmt.Errorf("want one of %s", strings.Join(apiNames, ", "))
	}
	f.name = s
	return nil
}
