package anthhttp

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

// TestRelayNamesVocabulary: a relay given a VOCAB frame puts it before the
// stream's first TOKEN or TOKEN32 frame, once (SPEC.md §3.13), whether
// the events come one at a time or gathered, and leaves every other frame
// as it was; a stream without token frames gets none.
func TestRelayNamesVocabulary(t *testing.T) {
	vocabFrame := frame.AppendVocab(nil, frame.Vocab{Name: []byte("v"), Flags: frame.VocabText | frame.VocabDigest})
	cases := []struct {
		api    bridge.API
		stream []byte
		tokens bool
	}{
		{chat.API{}, testdata.Chat(t)["layer0-vllm-reasoning.sse"], true},
		{messages.API{}, testdata.SSE(t)["layer0-basic.sse"], false},
	}
	for _, c := range cases {
		for _, apart := range []bool{false, true} {
			relayed := func(vocab []byte) []byte {
				var up io.Reader = bytes.NewReader(c.stream)
				if apart {
					up = &testdata.EventReader{Rest: c.stream}
				}
				r := newRelay(context.Background(), up, c.api, wireANTH, 0, nil)
				r.vocab = vocab
				out, err := io.ReadAll(r)
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			plain, named := relayed(nil), relayed(vocabFrame)
			var frames, withoutVocab [][]byte
			firstToken, vocabAt, vocabs := -1, -1, 0
			for b := named[len(frame.Magic):]; len(b) > 0; {
				typ, n, ok := frame.ParseHeader(b)
				if !ok {
					t.Fatalf("a cut frame header: % x", b)
				}
				switch typ {
				case frame.TypeVocab:
					vocabs++
					vocabAt = len(frames)
				case frame.TypeToken, frame.TypeToken32, frame.TypeShortToken, frame.TypeShortToken24:
					if firstToken < 0 {
						firstToken = len(frames)
					}
				}
				if typ != frame.TypeVocab {
					withoutVocab = append(withoutVocab, b[:n])
				}
				frames = append(frames, b[:n])
				b = b[n:]
			}
			if !c.tokens {
				if !bytes.Equal(plain, named) {
					t.Errorf("%T, apart %v: a stream without token frames changed", c.api, apart)
				}
				continue
			}
			if vocabs != 1 || firstToken < 0 || vocabAt != firstToken-1 {
				t.Errorf("%T, apart %v: %d VOCAB frames, at %d; the first token frame at %d", c.api, apart, vocabs, vocabAt, firstToken)
			}
			if got := append([]byte(frame.Magic), bytes.Join(withoutVocab, nil)...); !bytes.Equal(got, plain) {
				t.Errorf("%T, apart %v: the other frames changed", c.api, apart)
			}
		}
	}
}
