package anthhttp_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/layer0/anth/anthclient"
	. "github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/sse"
	"github.com/layer0/anth/vocab"
)

// chunksOf reads an SSE stream's chunks as JSON values (numbers as
// written); [DONE] as the string.
func chunksOf(t *testing.T, b []byte) []any {
	t.Helper()
	var out []any
	sc := sse.NewScanner(bytes.NewReader(b), 0)
	for {
		_, data, err := sc.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			v = string(data)
		}
		out = append(out, v)
	}
}

// TestGatewayLogprobIDs: openai-go's recorded gpt-4o stream, whose
// logprobs give every token's bytes, through a Gateway that holds
// o200k_base for its model, to an ANTH client (plain and anth-deflate)
// that lists o200k_base's hash and text (SPEC.md §3.14): one VOCAB frame
// before the first TOKEN frame, TOKEN frames whose IDs are o200k_base's
// for each entry's bytes, in order, and whose bytes make the text; the
// stream written back as SSE is the recording with token_ids added to
// each chunk with logprobs and nothing else. Without text, without the
// hash, or to an SSE client, the stream is what it was before; a chunk
// whose bytes map to no token is left as it came and the stream is
// whole. The plain client's frames and their SSE are testdata/golden/chat-ids'.
func TestGatewayLogprobIDs(t *testing.T) {
	const name, model = "openai-go_streamaccumulator.sse", "gpt-4o-2024-05-13"
	v := loadO200k(t)
	rec := testdata.Chat(t)[name]
	if !bytes.Contains(rec, []byte(`"model":"`+model+`"`)) {
		t.Fatalf("%s is not %s's", name, model)
	}
	// One chunk's bytes changed to bytes no token has.
	const lost = `"bytes":[32,106,111,117,114,110,101,121]`
	unmapped := bytes.Replace(rec, []byte(lost), []byte(`"bytes":[255,255,255,255]`), 1)
	if bytes.Equal(unmapped, rec) {
		t.Fatal("the chunk to unmap is not in the recording")
	}
	if _, ok := v.Lookup([]byte{255, 255, 255, 255}); ok {
		t.Fatal("255 255 255 255 is a token")
	}
	up := &chatUpstream{streams: map[string][]byte{model: rec, "unmapped": unmapped}}
	us := httptest.NewServer(up)
	defer us.Close()
	u, _ := url.Parse(us.URL)
	plain := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u}, chat.API{}))
	defer plain.Close()
	named := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u, ModelVocabularies: map[string]*vocab.Vocabulary{model: v, "unmapped": v}}, chat.API{Decoders: &chat.DecoderPool{}}))
	defer named.Close()

	// fetch gives the frames an ANTH client reads, or an SSE client's
	// bytes.
	fetch := func(gw *httptest.Server, model, accept, encoding, holds string) []byte {
		t.Helper()
		req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"Hi"}],"logprobs":true,"stream":true}`))
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
		defer resp.Body.Close()
		if accept == "text/event-stream" {
			b, _ := io.ReadAll(resp.Body)
			return b
		}
		fr, err := anthclient.NewFrameReader(resp, chat.API{})
		if err != nil {
			t.Fatal(err)
		}
		var out []byte
		for f, err := range fr.All() {
			if err != nil {
				t.Fatal(err)
			}
			out = f.Append(out)
		}
		return append([]byte(frame.Magic), out...)
	}

	// want is the recording with token_ids added as vLLM puts them, the
	// IDs from a map of o200k_base's tokens (the baseline, not Lookup);
	// wantIDs and wantBytes the IDs in order and each one's bytes.
	byBytes := map[string]uint32{}
	for id := range uint32(v.Len()) {
		if b, ok := v.Bytes(id); ok {
			byBytes[string(b)] = id
		}
	}
	want := func(stream []byte) (chunks []any, ids []uint32, tokBytes, text []byte) {
		chunks = chunksOf(t, stream)
		for _, c := range chunks {
			m, _ := c.(map[string]any)
			cs, _ := m["choices"].([]any)
			for _, c := range cs {
				cm := c.(map[string]any)
				if d, ok := cm["delta"].(map[string]any)["content"].(string); ok {
					text = append(text, d...)
				}
				lp, _ := cm["logprobs"].(map[string]any)
				es, _ := lp["content"].([]any)
				var add []any
				var got []uint32
				for _, e := range es {
					var b []byte
					for _, x := range e.(map[string]any)["bytes"].([]any) {
						n, _ := x.(json.Number).Int64()
						b = append(b, byte(n))
					}
					id, ok := byBytes[string(b)]
					if !ok {
						add = nil
						break
					}
					got = append(got, id)
					add = append(add, json.Number(fmt.Sprint(id)))
					tokBytes = append(tokBytes, b...)
				}
				if add != nil {
					cm["token_ids"] = add
					ids = append(ids, got...)
				}
			}
		}
		return
	}
	hash := v.Hash()
	idsAndText := string(vocab.AppendHolds(nil, vocab.Holds{Hashes: [][32]byte{hash}, Text: true}))
	for _, stream := range []string{model, "unmapped"} {
		wantChunks, wantIDs, wantBytes, text := want(up.streams[stream])
		if stream == model && (len(wantIDs) != 184 || !bytes.Equal(wantBytes, text)) {
			t.Fatalf("the recording's logprobs: %d IDs; their bytes are the text: %v", len(wantIDs), bytes.Equal(wantBytes, text))
		}
		for _, encoding := range []string{"", AcceptEncoding} {
			got := fetch(named, stream, anthclient.Accept, encoding, idsAndText)
			var ids []uint32
			vocabs, vocabAt, firstToken, i := 0, -1, -1, 0
			for f, err := range frame.NewReader(bytes.NewReader(got), frame.ReaderOptions{}).All() {
				if err != nil {
					t.Fatal(err)
				}
				switch f.Type {
				case frame.TypeVocab:
					vocabs, vocabAt = vocabs+1, i
					fv, err := f.Vocab()
					if err != nil || v.Check(fv) != nil || fv.Flags != frame.VocabText|frame.VocabDigest {
						t.Errorf("%s %q: VOCAB %+v, %v", stream, encoding, fv, err)
					}
				case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24:
					if firstToken < 0 {
						firstToken = i
					}
					ids, _ = f.Tokens(ids)
				}
				i++
			}
			if vocabs != 1 || vocabAt != firstToken-1 {
				t.Errorf("%s %q: %d VOCAB frames, at %d; the first token frame at %d", stream, encoding, vocabs, vocabAt, firstToken)
			}
			if diff := cmp.Diff(wantIDs, ids); diff != "" {
				t.Errorf("%s %q: TOKEN frames' IDs (-want +got):\n%s", stream, encoding, diff)
			}
			var joined []byte
			for _, id := range ids {
				b, _ := v.Bytes(id)
				joined = append(joined, b...)
			}
			if !bytes.Equal(joined, wantBytes) {
				t.Errorf("%s %q: the IDs' bytes are not the logprobs' bytes", stream, encoding)
			}
			var back bytes.Buffer
			e := chat.NewEncoder(&back, chat.EncoderOptions{})
			if _, err := e.Write(got); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil {
				t.Fatalf("%s %q: %v", stream, encoding, err)
			}
			if diff := cmp.Diff(wantChunks, chunksOf(t, back.Bytes())); diff != "" {
				t.Errorf("%s %q: chunks written back (-want +got):\n%s", stream, encoding, diff)
			}
			if stream == model && encoding == "" {
				// The JavaScript package's tests write these frames back
				// as SSE and compare (js/test/chatids.test.js).
				dir := testdata.Path("golden", "chat-ids")
				update := flag.Lookup("update").Value.(flag.Getter).Get().(bool)
				const regenerate = "go test ./anthhttp -run TestGatewayLogprobIDs -update"
				testdata.Golden(t, filepath.Join(dir, name[:len(name)-len(".sse")]+".anth"), got, update, regenerate)
				testdata.Golden(t, filepath.Join(dir, name), back.Bytes(), update, regenerate)
			}
			t.Logf("%s %q: %d IDs, %d bytes of frames (%d without IDs)", stream, encoding, len(ids), len(got), len(fetch(plain, stream, anthclient.Accept, encoding, "")))
		}
	}
	// As before: no text, no hash, another vocabulary's hash, an SSE
	// client.
	other := [32]byte{1}
	for _, holds := range []string{
		string(vocab.AppendHolds(nil, vocab.Holds{Hashes: [][32]byte{hash}})),
		string(vocab.AppendHolds(nil, vocab.Holds{Text: true})),
		string(vocab.AppendHolds(nil, vocab.Holds{Hashes: [][32]byte{other}, Text: true})),
		"",
	} {
		for _, encoding := range []string{"", AcceptEncoding} {
			if got, want := fetch(named, model, anthclient.Accept, encoding, holds), fetch(plain, model, anthclient.Accept, encoding, holds); !bytes.Equal(got, want) {
				t.Errorf("%q, %q: the frames changed", holds, encoding)
			}
		}
	}
	if got := fetch(named, model, "text/event-stream", "", idsAndText); !bytes.Equal(got, rec) {
		t.Errorf("an SSE client's stream changed")
	}
}

// TestGatewayLogprobIDsForwardHeaders: the gateway reads Anth-Vocabularies
// from its client's request, not from the upstream's, which an allow-list
// (GatewayOptions.ForwardHeaders) without it strips: the client still
// gets the VOCAB frame by digest and the IDs.
func TestGatewayLogprobIDsForwardHeaders(t *testing.T) {
	const model = "gpt-4o-2024-05-13"
	v := loadO200k(t)
	up := &chatUpstream{streams: map[string][]byte{model: testdata.Chat(t)["openai-go_streamaccumulator.sse"]}}
	us := httptest.NewServer(up)
	defer us.Close()
	u, _ := url.Parse(us.URL)
	gw := httptest.NewServer(NewGateway(messages.API{}, GatewayOptions{Upstream: u, ForwardHeaders: []string{"Content-Type"}, ModelVocabularies: map[string]*vocab.Vocabulary{model: v}}, chat.API{}))
	defer gw.Close()
	req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(`{"model":"`+model+`","logprobs":true,"stream":true,"messages":[]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", anthclient.Accept)
	req.Header.Set(vocab.Header, string(vocab.AppendHolds(nil, vocab.Holds{Hashes: [][32]byte{v.Hash()}, Text: true})))
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	fr, err := anthclient.NewFrameReader(resp, chat.API{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint32
	var flags frame.VocabFlags
	for f, err := range fr.All() {
		if err != nil {
			t.Fatal(err)
		}
		switch f.Type {
		case frame.TypeVocab:
			fv, _ := f.Vocab()
			flags = fv.Flags
		case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24:
			ids, _ = f.Tokens(ids)
		}
	}
	if flags != frame.VocabText|frame.VocabDigest || len(ids) != 184 {
		t.Errorf("VOCAB flags %b, %d IDs; want the digest form and 184", flags, len(ids))
	}
}
