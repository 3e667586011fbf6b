package anthhttp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/vocab"
)

// TestGatewayModelVocabularies: a stream of token IDs from a model that
// GatewayOptions.ModelVocabularies names (a vLLM recording's token_ids)
// reaches an ANTH client, plain or anth-deflate, with one VOCAB frame
// naming the vocabulary just before its first token frame (SPEC.md
// §3.13): the whole special table, or its digest when the request lists
// the hash in vocab.Header; the text flag set; every other frame as it
// was. Another model's stream and an SSE client's are unchanged, and the
// vocabulary is served by hash (§3.16).
func TestGatewayModelVocabularies(t *testing.T) {
	const name = "layer0-vllm-reasoning.sse"
	v := testVocabularies(t)[1]
	up := &chatUpstream{streams: map[string][]byte{name: testdata.Chat(t)[name], "other": testdata.Chat(t)[name]}}
	us := httptest.NewServer(up)
	defer us.Close()
	u, _ := url.Parse(us.URL)
	plain := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u}, chat.API{}))
	defer plain.Close()
	named := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u, ModelVocabularies: map[string]*vocab.Vocabulary{name: v}}, chat.API{}))
	defer named.Close()

	fetch := func(gw *httptest.Server, model, accept, encoding, holds string) []byte {
		t.Helper()
		req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"Hi"}],"stream":true}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		if encoding != "" {
			req.Header.Set("Accept-Encoding", encoding)
		}
		if holds != "" {
			req.Header.Set(vocab.Header, holds)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if accept == "text/event-stream" {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return b
		}
		fr, err := anthclient.NewFrameReader(resp, chat.API{})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out []byte
		for f, err := range fr.All() {
			if err != nil {
				t.Fatal(err)
			}
			out = f.Append(out)
		}
		return out
	}
	holds := string(vocab.AppendHolds(nil, vocab.Holds{Hashes: [][32]byte{v.Hash()}}))
	for _, c := range []struct {
		encoding, holds string
		flags           frame.VocabFlags
	}{
		{"", "", frame.VocabText},
		{AcceptEncoding, "", frame.VocabText},
		{"", holds, frame.VocabText | frame.VocabDigest},
	} {
		want := fetch(plain, name, anthclient.Accept, c.encoding, "")
		got := fetch(named, name, anthclient.Accept, c.encoding, c.holds)
		var rest []byte
		vocabs, firstToken, vocabAt, i := 0, -1, -1, 0
		for b := got; len(b) > 0; i++ {
			f, n, err := frame.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			switch f.Type {
			case frame.TypeVocab:
				vocabs, vocabAt = vocabs+1, i
				fv, err := f.Vocab()
				if err != nil {
					t.Fatal(err)
				}
				if err := v.Check(fv); err != nil || fv.Flags != c.flags {
					t.Errorf("%+v: VOCAB flags %b, want %b; check: %v", c, fv.Flags, c.flags, err)
				}
			case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24:
				if firstToken < 0 {
					firstToken = i
				}
			}
			if f.Type != frame.TypeVocab {
				rest = append(rest, b[:n]...)
			}
			b = b[n:]
		}
		if vocabs != 1 || firstToken < 0 || vocabAt != firstToken-1 {
			t.Errorf("%+v: %d VOCAB frames, at %d; the first token frame at %d", c, vocabs, vocabAt, firstToken)
		}
		if !bytes.Equal(rest, want) {
			t.Errorf("%+v: the other frames differ", c)
		}
	}
	if got, want := fetch(named, "other", anthclient.Accept, "", ""), fetch(plain, "other", anthclient.Accept, "", ""); !bytes.Equal(got, want) {
		t.Errorf("another model's stream changed")
	}
	if got, want := fetch(named, name, "text/event-stream", "", ""), fetch(plain, name, "text/event-stream", "", ""); !bytes.Equal(got, want) {
		t.Errorf("an SSE client's stream changed")
	}
	resp, err := http.Get(named.URL + VocabulariesPath + hashHex(v))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("the model's vocabulary: %s", resp.Status)
	}
}
