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
		ends, bad  bool
	}{
		{"", "[DONE]", true, false},
		{"", `{"error":{"message":"m","type":"server_error"}}`, true, false},
		{"", `{"choices":[],"error":null}`, false, false},
		{"", `{"choices":[],"error":{}}`, false, false},
		{"", `{"choices":[{"index":0,"delta":{"content":""}}],"error":{"code":400}}`, true, false},
		{"", `{"choices":[{"index":0,"delta":{"content":"a"}}]}`, false, false},
		{"", `{"choices":`, false, true},
		{"error", `{"error":{"message":"m"}}`, true, false},
		{"error", `{}`, true, false},
		{"ping", `{}`, false, false},
	} {
		ends, err := a.CheckEvent([]byte(c.name), []byte(c.data))
		if ends != c.ends || (err != nil) != c.bad {
			t.Errorf("CheckEvent(%q, %s) = %v, %v", c.name, c.data, ends, err)
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
}

// TestCheckEventAgrees: CheckEvent, which the gateway relays SSE by, ends
// every recording at the event where a Decoder ends it: the stream up to
// that event decodes whole, the stream before it is cut short.
func TestCheckEventAgrees(t *testing.T) {
	for name, rec := range recordings(t) {
		sc := sse.NewScanner(bytes.NewReader(rec), 1<<20)
		var before, end int64 = -1, -1
		for {
			at := sc.Offset()
			n, data, err := sc.Next()
			if err != nil {
				break
			}
			if ends, _ := (API{}).CheckEvent(n, data); ends {
				before, end = at, sc.Offset()
				break
			}
		}
		if end < 0 {
			t.Errorf("%s: CheckEvent never ends the stream", name)
			continue
		}
		d := NewDecoder(bytes.NewReader(rec[:end]), DecoderOptions{})
		if _, err := io.ReadAll(d); err != nil || !d.Ended() {
			t.Errorf("%s: up to the event CheckEvent ends at (offset %d): %v, ended %v", name, end, err, d.Ended())
		}
		d = NewDecoder(bytes.NewReader(rec[:before]), DecoderOptions{})
		if _, err := io.ReadAll(d); !errors.Is(err, ErrTruncated) || d.Ended() {
			t.Errorf("%s: before the event CheckEvent ends at (offset %d): %v, ended %v", name, before, err, d.Ended())
		}
	}
}
