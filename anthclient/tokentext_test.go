package anthclient

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/vocab"
)

func cl100k(t *testing.T) *vocab.Vocabulary {
	t.Helper()
	zb, err := os.ReadFile("../vocab/testdata/cl100k_base.tiktoken.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zb))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	v, err := vocab.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTransportVocabularies: with Transport.Vocabularies, a streaming call
// lists them in vocab.Header, and a Messages response whose text comes as
// token IDs (a VOCAB frame without the text flag, SPEC.md §3.14) reaches
// the caller as ordinary text deltas of exactly the IDs' text, a
// character split between two tokens (and two frames) whole; a VOCAB frame
// naming a vocabulary not held, or an ID the vocabulary lacks, is an error
// the caller reads, never text left out.
func TestTransportVocabularies(t *testing.T) {
	v := cl100k(t)
	// IDs whose bytes are "Hi" then é as its two bytes, token by token,
	// and some ASCII: the text is their bytes in order.
	var ids []uint32
	var want []byte
	byByte := map[byte]uint32{}
	for id := uint32(0); id < 256; id++ {
		if b, ok := v.Bytes(id); ok && len(b) == 1 {
			byByte[b[0]] = id
		}
	}
	for _, c := range []byte("Hi \xC3\xA9 there, caf\xC3\xA9!") {
		ids = append(ids, byByte[c])
		want = append(want, c)
	}
	stream := func(fv frame.Vocab, ids []uint32) []byte {
		b := frame.AppendMagic(nil)
		b = frame.AppendVocab(b, fv)
		for i := 0; i < len(ids); i += 4 { // é's two bytes fall in two frames
			b = frame.AppendToken(b, ids[i:min(i+4, len(ids))]...)
		}
		return frame.AppendDone(b, frame.StopEndTurn, "")
	}
	var sentHolds string
	call := func(held []*vocab.Vocabulary, body []byte) (string, error) {
		next := func(req *http.Request) (*http.Response, error) {
			sentHolds = req.Header.Get(vocab.Header)
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {anthhttp.ContentType}}, Body: io.NopCloser(bytes.NewReader(body)), Request: req}, nil
		}
		req, _ := http.NewRequest("POST", "http://gw.test/v1/messages", strings.NewReader(`{"model":"m","max_tokens":8,"stream":true,"messages":[]}`))
		resp, err := (&Transport{API: messages.API{}, Vocabularies: held}).Middleware(req, next)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		var text strings.Builder
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev struct{ Delta struct{ Type, Text string } }
			if json.Unmarshal([]byte(data), &ev) == nil && ev.Delta.Type == "text_delta" {
				text.WriteString(ev.Delta.Text)
			}
		}
		return text.String(), sc.Err()
	}

	got, err := call([]*vocab.Vocabulary{v}, stream(v.Vocab(0), ids))
	if err != nil || got != string(want) {
		t.Errorf("text %q, %v; want %q", got, err, want)
	}
	h := v.Hash()
	if holds, err := vocab.ParseHolds(sentHolds); err != nil || !holds.Has(h) || holds.Text {
		t.Errorf("%s: %q (%v), want the held hash alone", vocab.Header, sentHolds, err)
	}
	// Another vocabulary named: nothing is read as text.
	other := v.Vocab(0)
	other.Hash[0] ^= 1
	if _, err := call([]*vocab.Vocabulary{v}, stream(other, ids)); !errors.Is(err, vocab.ErrUnknownVocabulary) {
		t.Errorf("a stream naming a vocabulary not held: %v, want ErrUnknownVocabulary", err)
	}
	// An ID past the vocabulary.
	if _, err := call([]*vocab.Vocabulary{v}, stream(v.Vocab(0), append(ids[:2:2], 1<<30))); !errors.Is(err, vocab.ErrUnknownToken) {
		t.Errorf("an ID the vocabulary lacks: %v, want ErrUnknownToken", err)
	}
	// Without the vocabulary the IDs cannot become text: an error, as before.
	if _, err := call(nil, stream(v.Vocab(0), ids)); err == nil {
		t.Errorf("token-mode text without a vocabulary: no error")
	}
	if sentHolds != "" {
		t.Errorf("no vocabularies held, yet %s: %q", vocab.Header, sentHolds)
	}
}
