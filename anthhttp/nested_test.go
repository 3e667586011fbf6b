package anthhttp_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
)

// TestResponseWriterRawEvents: a handler that writes deflated EVENTs (as a
// Decoder makes them) to a client of anth-deflate has them sent raw, so the
// client, which refuses a deflated EVENT there, reads the same events.
func TestResponseWriterRawEvents(t *testing.T) {
	js := []byte(`{"type":"message_start","message":{"id":"msg_1","model":"m","content":[]}}`)
	long := []byte(`{"type":"x","pad":"` + strings.Repeat("ab", 70_000) + `"}`) // continues over frames
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fw := NewResponseWriter(w, r, messages.API{}, frame.WriterOptions{})
		fw.WriteEvent(frame.EventDeflate, []byte("message_start"), deflate.AppendBlock(nil, js, deflate.NewDictionary([]byte(messages.EventDictionary))))
		fw.WriteEvent(frame.EventJSON, []byte("x"), long)
		fw.WriteText(0, []byte("hi"))
		fw.WriteDone(frame.StopEndTurn, "")
		fw.Flush()
	}))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("Accept", anthclient.Accept)
	req.Header.Set("Accept-Encoding", deflate.Encoding)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != deflate.Encoding {
		t.Fatalf("Content-Encoding %q", ce)
	}
	fr, err := anthclient.NewFrameReader(resp, messages.API{})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	events := messages.EventReader{RawOnly: true, MaxEvent: 1 << 20}
	for f, err := range fr.All() {
		if err != nil {
			t.Fatal(err)
		}
		if f.Type == frame.TypeEvent {
			e, whole, err := events.Add(f)
			if err != nil {
				t.Fatal(err)
			}
			if whole {
				got = append(got, bytes.Clone(e.Data))
			}
		}
	}
	if len(got) != 2 || !bytes.Equal(got[0], js) || !bytes.Equal(got[1], long) {
		t.Fatalf("events %d: %.80q", len(got), got)
	}
}
