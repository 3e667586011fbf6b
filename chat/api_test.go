package chat

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/request"
	"github.com/layer0/anth/sse"
)

func TestAPI(t *testing.T) {
	var a API
	if a.Path() != "/v1/chat/completions" {
		t.Errorf("Path %q", a.Path())
	}
	if !a.Streaming([]byte(`{"model":"m","stream":true}`)) || a.Streaming([]byte(`{"model":"m","stream":false}`)) || a.Streaming([]byte(`{}`)) {
		t.Error("Streaming does not read stream")
	}
	for _, c := range []struct {
		name, data string
		ends, eof  bool // CheckEvent's, and EndsAtEOF's
		bad        bool
	}{
		{"", "[DONE]", true, false, false},
		{"", `{"error":{"message":"m","type":"server_error"}}`, true, false, false},
		{"", `{"choices":[],"error":null}`, false, false, false},
		{"", `{"choices":[],"error":{}}`, false, false, false},
		{"", `{"choices":[{"index":0,"delta":{"content":""}}],"error":{"code":400}}`, true, false, false},
		{"", `{"choices":[{"index":0,"delta":{"content":"a"}}]}`, false, false, false},
		{"", `{"choices":`, false, false, true},
		// A stream with no [DONE] may end with its bytes after these
		// (§7b.3, Writer's API), not after the rest.
		{"", `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, false, true, false},
		{"", `{"choices":[{"index":0,"finish_reason":"stop"},{"index":1,"finish_reason":"length"}]}`, false, true, false},
		{"", `{"choices":[],"usage":{"prompt_tokens":1}}`, false, true, false},
		{"", ` { "choices" : [ ] , "usage" : { } } `, false, true, false},
		{"", `{"choices":[{"index":0,"finish_reason":"stop"},{"index":1,"finish_reason":null}]}`, false, false, false},
		{"", `{"choices":[{"index":0,"delta":{"content":"a"}}]}`, false, false, false},
		{"", `{"choices":[],"usage":null}`, false, false, false},
		{"", `{"choices":[]}`, false, false, false},
		{"", `{"usage":{"prompt_tokens":1}}`, false, false, false},
		{"", `{"choices":{"finish_reason":"stop"}}`, false, false, false},
		{"", `{"choices":[{"finish_reason":"stop"}],"choices":[{"finish_reason":"stop"}]}`, false, false, false},
		{"done", `{"choices":[{"finish_reason":"stop"}]}`, false, false, false},
		{"error", `{"error":{"message":"m"}}`, true, false, false},
		{"error", `{}`, true, false, false},
		{"ping", `{}`, false, false, false},
	} {
		ends, err := a.CheckEvent([]byte(c.name), []byte(c.data))
		if ends != c.ends || (err != nil) != c.bad {
			t.Errorf("CheckEvent(%q, %s) = %v, %v", c.name, c.data, ends, err)
		}
		if eof := a.EndsAtEOF([]byte(c.name), []byte(c.data)); eof != c.eof {
			t.Errorf("EndsAtEOF(%q, %s) = %v", c.name, c.data, eof)
		}
	}
	body := a.AppendError(nil, frame.CodeRateLimit, "slow down")
	if typ, msg, ok := a.ParseError(body); !ok || typ != "rate_limit_error" || msg != "slow down" {
		t.Errorf("ParseError(AppendError) = %q, %q, %v", typ, msg, ok)
	}
	if _, _, ok := a.ParseError([]byte(`{"type":"error"}`)); ok {
		t.Error("ParseError read a body with no error")
	}
	// The error event a gateway ends a failed stream with decodes to the
	// ERROR it stands for, and nothing else.
	ev := a.AppendErrorEvent(nil, frame.CodeAPI, "upstream broke")
	anth := toANTH(t, ev, DecoderOptions{})
	if want := frame.AppendError(frame.AppendMagic(nil), frame.CodeAPI, "upstream broke"); !bytes.Equal(anth, want) {
		t.Errorf("AppendErrorEvent decodes to % X, want % X", anth, want)
	}
	// Requests are the extended form of version 2 (SPEC.md §5.5), both
	// ways, and a Messages request is refused at its version byte.
	reqBody := []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}],"stream":true}`)
	anthReq, err := a.AppendRequestANTH(nil, reqBody)
	if err != nil || !bytes.HasPrefix(anthReq, []byte("ANTX\x02")) {
		t.Fatalf("AppendRequestANTH: % X, %v", anthReq, err)
	}
	if back, err := a.AppendRequestJSON(nil, anthReq); err != nil || !bytes.Equal(back, reqBody) {
		t.Errorf("AppendRequestJSON: %s, %v", back, err)
	}
	messagesReq, _ := request.AppendANTH(nil, []byte(`{"model":"m","max_tokens":1,"stream":true,"messages":[]}`))
	var re *request.Error
	if _, err := a.AppendRequestJSON(nil, messagesReq); !errors.As(err, &re) || !errors.Is(err, request.ErrMalformed) || re.Offset != 4 {
		t.Errorf("a Messages request read as a Chat Completions one: %v", err)
	}
}

// TestAPIEncoderModel: a stream with no chunks of its own is named by the
// request's model, up to maxModel bytes.
func TestAPIEncoderModel(t *testing.T) {
	native := frame.AppendDone(frame.AppendText(frame.AppendMagic(nil), 0, []byte("hi")), frame.StopEndTurn, "")
	for _, c := range []struct{ model, want string }{{"gpt-x", `"model":"gpt-x"`}, {strings.Repeat("m", maxModel+1), `"model":"unknown"`}} {
		var out bytes.Buffer
		e := API{}.NewEncoder(&out, false, []byte(`{"model":"`+c.model+`","stream":true}`))
		if _, err := e.Write(native); err != nil || e.Close() != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(out.Bytes(), []byte(c.want)) {
			t.Errorf("model %d bytes: %s", len(c.model), out.Bytes())
		}
	}
}

// TestDecoderPool: a pooled Decoder, released and taken again, decodes the
// next stream as a new one does.
func TestDecoderPool(t *testing.T) {
	a := API{Decoders: &DecoderPool{}}
	recs := recordings(t)
	for _, name := range sortedNames(recs)[:4] {
		src := recs[name]
		d := a.NewDecoder(bytes.NewReader(src), false)
		got, err := io.ReadAll(d)
		if err != nil {
			t.Fatal(err)
		}
		d.(interface{ Release() }).Release()
		if want := toANTH(t, src, DecoderOptions{}); !bytes.Equal(got, want) {
			t.Errorf("%s: a pooled Decoder's ANTH differs", name)
		}
	}
	var _ bridge.API = a
	var _ bridge.EndAtEOF = a
}

// TestCheckEventAgrees: CheckEvent and EndsAtEOF, which the gateway
// relays SSE by, end every recording where a Decoder ends it. At every
// event up to the one CheckEvent says ends the response, the stream cut
// after that event decodes whole exactly when CheckEvent says it ends
// there, or EndsAtEOF that a stream with no [DONE] may end there, and is
// truncated otherwise.
func TestCheckEventAgrees(t *testing.T) {
	recs := recordings(t)
	for _, name := range sortedNames(recs) {
		rec := recs[name]
		sc := sse.NewScanner(bytes.NewReader(rec), 1<<20)
		ends, eof := false, false
		for !ends {
			n, data, err := sc.Next()
			if err != nil {
				if err != io.EOF || !eof {
					t.Errorf("%s: CheckEvent never ends the stream (%v)", name, err)
				}
				break
			}
			ends, _ = (API{}).CheckEvent(n, data)
			eof = (API{}).EndsAtEOF(n, data)
			at := sc.Offset()
			d := NewDecoder(bytes.NewReader(rec[:at]), DecoderOptions{})
			_, err = io.ReadAll(d)
			if whole := err == nil && d.Ended(); whole != (ends || eof) || !whole && !errors.Is(err, ErrTruncated) {
				t.Errorf("%s: cut after the event at %d, which CheckEvent ends %v, EndsAtEOF %v: %v, ended %v", name, at, ends, eof, err, d.Ended())
			}
		}
	}
}
