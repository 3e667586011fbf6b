package interop

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/vocab"
)

// The stream side of token IDs in JavaScript (js/src/type.js's VOCAB check,
// holds.js, vocabtext.js) is the twin of Go's frame.Vocab, vocab.ParseHolds
// and vocab.Text. TestVocabStreamGolden pins what Go does with seeded
// inputs in js/test/testdata/vocabstream-golden.json, and
// js/test/vocabstream.test.js holds the JavaScript to the same: header
// values (SPEC.md §3.14), VOCAB frames changed byte by byte (§3.13: the
// error kind and offset, or the fields), and streams of VOCAB, TOKEN, TEXT
// and DONE frames read as text with §3.15's vocabulary (the text, or the
// error kind). Regenerate with
// go test -run TestVocabStreamGolden -update-vocabstream-golden.
var updateVocabStreamGolden = flag.Bool("update-vocabstream-golden", false, "write js/test/testdata/vocabstream-golden.json")

const vocabStreamGoldenPath = "../js/test/testdata/vocabstream-golden.json"

type holdsCase struct {
	In     string   `json:"in"`
	Hashes []string `json:"hashes"`
	Text   bool     `json:"text"`
	Err    *int64   `json:"err"` // the offset of ErrMalformed
}

type vocabFrameCase struct {
	Stream string          `json:"stream"` // magic and one frame, hex
	Err    *streamErr      `json:"err,omitempty"`
	Vocab  *vocabFrameJSON `json:"vocab,omitempty"`
}

type streamErr struct {
	Kind   string `json:"kind"`
	Offset int64  `json:"offset"`
}

type vocabFrameJSON struct {
	Flags    uint8  `json:"flags"`
	Kind     uint8  `json:"kind"`
	Hash     string `json:"hash"`
	Name     string `json:"name"`
	Specials string `json:"specials,omitempty"`
	Digest   string `json:"digest,omitempty"`
}

type textCase struct {
	Frames []string `json:"frames"` // hex, each one frame
	Text   string   `json:"text"`   // what vocab.Text gave before any error
	Err    string   `json:"err"`    // its kind, "" for none
}

type vocabStreamGolden struct {
	Holds  []holdsCase      `json:"holds"`
	Frames []vocabFrameCase `json:"frames"`
	Texts  []textCase       `json:"texts"`
}

func TestVocabStreamGolden(t *testing.T) {
	b, err := json.MarshalIndent(buildVocabStreamGolden(t), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *updateVocabStreamGolden {
		if err := os.WriteFile(vocabStreamGoldenPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(vocabStreamGoldenPath)
	if err != nil {
		t.Fatalf("%v (regenerate with -update-vocabstream-golden)", err)
	}
	if diff := cmp.Diff(string(want), string(b)); diff != "" {
		t.Errorf("Go differs from %s (-file +Go):\n%s", vocabStreamGoldenPath, diff)
	}
}

// streamKind names an error's kind with the words of the JavaScript
// AnthError and VocabError.
func streamKind(err error) string {
	for _, k := range []struct {
		err  error
		name string
	}{
		{vocab.ErrUnknownVocabulary, "UnknownVocabulary"},
		{vocab.ErrUnknownToken, "UnknownToken"},
		{frame.ErrBadMagic, "BadMagic"},
		{frame.ErrUnknownType, "UnknownType"},
		{frame.ErrTruncated, "Truncated"},
		{frame.ErrTooLarge, "TooLarge"},
		{frame.ErrMalformed, "Malformed"},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other: " + err.Error()
}

// specVocab is SPEC.md §3.15's vocabulary: "a" 0, "b" 1, <|endoftext|> 2,
// named "ab", which §3.13's VOCAB vectors name.
func specVocab(t *testing.T) *vocab.Vocabulary {
	v, err := vocab.ParseTiktoken([]byte("YQ== 0\nYg== 1\n"), map[string]uint32{"<|endoftext|>": 2})
	if err == nil {
		v, err = v.Named("ab")
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func buildVocabStreamGolden(t *testing.T) *vocabStreamGolden {
	r := rand.New(rand.NewPCG(3, 14))
	g := &vocabStreamGolden{}
	v := specVocab(t)
	h := v.Hash()

	// Header values: members drawn from a pool, joined by commas with
	// spaces and tabs around them.
	b64 := strings.TrimPrefix(string(vocab.AppendHolds(nil, vocab.Holds{Hashes: [][32]byte{h}})), "sha256=")
	pool := []string{"sha256=" + b64, "sha256=RGqVOMtsNI41FhINfAiwn1fDZJXirP/+WaW/iwz7Gi0=", "text", "", "future=1", "texts", "sha256=" + b64[:43],
		"sha256=" + b64[:42] + "B=", "sha256=" + strings.Repeat("A", 44), "sha256=" + b64[:40] + "!!!=", "SHA256=" + b64, "sha256 =" + b64, "Text", "é"}
	for range 200 {
		var sb strings.Builder
		for i := range 1 + r.IntN(4) {
			if i > 0 {
				sb.WriteString([]string{",", ", ", " ,\t", ",,"}[r.IntN(4)])
			}
			sb.WriteString([]string{"", " ", "\t"}[r.IntN(3)])
			sb.WriteString(pool[r.IntN(len(pool))])
		}
		c := holdsCase{In: sb.String(), Hashes: []string{}}
		hs, err := vocab.ParseHolds(c.In)
		if err != nil {
			var ve *vocab.Error
			if !errors.As(err, &ve) || !errors.Is(err, vocab.ErrMalformed) {
				t.Fatalf("%q: %v", c.In, err)
			}
			c.Err = &ve.Offset
		} else {
			for _, x := range hs.Hashes {
				c.Hashes = append(c.Hashes, hex.EncodeToString(x[:]))
			}
			c.Text = hs.Text
		}
		g.Holds = append(g.Holds, c)
	}

	// VOCAB frames: the two SPEC vectors and tables of a few specials,
	// each with one to three payload bytes changed, or cut.
	digest := v.Vocab(frame.VocabDigest).Digest
	bases := [][]byte{
		frame.AppendVocab(nil, v.Vocab(0)),
		frame.AppendVocab(nil, frame.Vocab{Flags: frame.VocabText | frame.VocabDigest, Hash: h, Name: []byte("ab"), Digest: digest}),
		frame.AppendVocab(nil, frame.Vocab{Kind: 1, Hash: h, Specials: []byte("\x00\x00\x00\x02\x00\x00\x00\x01\x00\x03<s>\x00\x00\x00\x02\x00\x04</s>")}),
	}
	for i := range 300 {
		f := append([]byte(nil), bases[i%len(bases)]...)
		switch r.IntN(4) {
		case 0: // cut: the header's length says more than there is
			f = f[:frame.HeaderSize+r.IntN(len(f)-frame.HeaderSize)]
		default:
			for range 1 + r.IntN(3) {
				at := frame.HeaderSize + r.IntN(len(f)-frame.HeaderSize)
				f[at] = []byte{0, 1, 2, 3, 0xFF, f[at] ^ 1, byte(r.IntN(256))}[r.IntN(7)]
			}
		}
		stream := append([]byte(frame.Magic), f...)
		c := vocabFrameCase{Stream: hex.EncodeToString(stream)}
		fr := frame.NewReader(strings.NewReader(string(stream)), frame.ReaderOptions{RawFrames: true})
		got, err := fr.Next()
		if err == nil {
			var fv frame.Vocab
			if fv, err = got.Vocab(); err != nil {
				t.Fatal(err)
			}
			c.Vocab = &vocabFrameJSON{Flags: uint8(fv.Flags), Kind: fv.Kind, Hash: hex.EncodeToString(fv.Hash[:]), Name: hex.EncodeToString(fv.Name)}
			if fv.Flags&frame.VocabDigest != 0 {
				c.Vocab.Digest = hex.EncodeToString(fv.Digest[:])
			} else {
				c.Vocab.Specials = hex.EncodeToString(fv.Specials)
			}
		} else {
			var fe *frame.Error
			if !errors.As(err, &fe) {
				t.Fatalf("%x: %v", stream, err)
			}
			c.Err = &streamErr{Kind: streamKind(err), Offset: fe.Offset}
		}
		g.Frames = append(g.Frames, c)
	}

	// Streams read as text: frames from a pool, in any order, mostly ending
	// with DONE.
	other := h
	other[31] ^= 1
	framePool := [][]byte{
		frame.AppendVocab(nil, v.Vocab(0)),
		frame.AppendVocab(nil, v.Vocab(frame.VocabDigest)),
		frame.AppendVocab(nil, v.Vocab(frame.VocabDigest|frame.VocabText)),
		frame.AppendVocab(nil, frame.Vocab{Hash: other, Name: []byte("ab"), Specials: v.Vocab(0).Specials}),
		frame.AppendVocab(nil, frame.Vocab{Kind: 1, Hash: h, Specials: v.Vocab(0).Specials}),
		frame.AppendVocab(nil, frame.Vocab{Flags: frame.VocabDigest, Hash: h, Digest: [8]byte{1}}),
		frame.AppendText(nil, 0, []byte("é")[:1]),
		frame.AppendText(nil, 0, []byte("é")[1:]),
		frame.AppendText(nil, 0, []byte("hi ")),
		frame.AppendText(nil, 1, []byte("x")),
		frame.AppendBlock(nil, 0, frame.BlockStop),
	}
	for range 300 {
		var c textCase
		n := 1 + r.IntN(6)
		for i := range n {
			var f []byte
			switch k := r.IntN(len(framePool) + 4); {
			case k < len(framePool):
				f = framePool[k]
			default: // token frames: mostly known IDs, at times one the vocabulary lacks
				ids := make([]uint32, 1+r.IntN(4))
				for j := range ids {
					ids[j] = uint32(r.IntN(3))
					if r.IntN(12) == 0 {
						ids[j] = []uint32{3, 70000}[r.IntN(2)]
					}
				}
				f = frame.AppendToken(nil, ids...)
			}
			if i == n-1 && r.IntN(5) > 0 {
				f = frame.AppendDone(nil, frame.StopEndTurn, "")
			}
			c.Frames = append(c.Frames, hex.EncodeToString(f))
		}
		text := vocab.NewText(v)
		var out []byte
		for _, x := range c.Frames {
			b, _ := hex.DecodeString(x)
			f, _, err := frame.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			if out, err = text.AppendFrame(out, f); err != nil {
				c.Err = streamKind(err)
				break
			}
		}
		c.Text = string(out)
		g.Texts = append(g.Texts, c)
	}
	return g
}
