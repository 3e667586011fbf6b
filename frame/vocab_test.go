package frame

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/internal/testdata"
)

// vocabTestHash is SPEC.md §3.12's hash vector, of the tokens "a" and "b".
var vocabTestHash = [SizeVocabHash]byte{0x2C, 0x09, 0x63, 0xE3, 0x72, 0x08, 0x7F, 0xB0, 0x7B, 0x6C, 0x2D, 0x82, 0x64, 0x03, 0x31, 0x99, 0x53, 0x06, 0x88, 0x4F, 0x7C, 0x8C, 0xA2, 0x8D, 0xD1, 0x3C, 0x57, 0x21, 0x00, 0xDD, 0xCB, 0x3F}

var vocabVectors = map[string]Vocab{
	"vocab": {Hash: vocabTestHash, Name: []byte("ab"), Specials: []byte("\x00\x00\x00\x01\x00\x00\x00\x02\x00\x0D<|endoftext|>")},
	"vocab-digest": {Flags: VocabText | VocabDigest, Hash: vocabTestHash, Name: []byte("ab"),
		Digest: [SizeVocabDigest]byte{0x8A, 0xFC, 0x54, 0x59, 0x5B, 0xAF, 0x26, 0x2C}},
}

// TestVocabSpecVectors reads SPEC.md §3.13's vectors: each valid one is what
// AppendVocab writes and reads back to its value; each invalid one fails
// with its kind at its offset.
func TestVocabSpecVectors(t *testing.T) {
	rows := testdata.SpecRows(t, "3.13", vectorRow)
	seen := 0
	for _, m := range rows {
		name, b := m[1], testdata.Hex(t, m[2])
		if m[3] != "" {
			off, _ := strconv.ParseInt(m[4], 10, 64)
			_, err := readAll(NewReader(strings.NewReader(string(b)), ReaderOptions{RawFrames: true}))
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, kinds[m[3]]) || e.Offset != off {
				t.Errorf("%s: err %v, want %s at %d", name, err, m[3], off)
			}
			continue
		}
		want, ok := vocabVectors[name]
		if !ok {
			t.Errorf("SPEC.md §3.13 has vector %q that no test builds", name)
			continue
		}
		seen++
		if got := AppendVocab(nil, want); !cmp.Equal(got, b) {
			t.Errorf("%s: AppendVocab gives\n% X\nSPEC.md says\n% X", name, got, b)
		}
		f, n, err := Parse(b)
		if err != nil || n != len(b) {
			t.Fatalf("%s: Parse = %v, %d, %v", name, f, n, err)
		}
		got, err := f.Vocab()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: Vocab (-want +got):\n%s", name, d)
		}
	}
	if seen != len(vocabVectors) {
		t.Errorf("found %d of the %d valid VOCAB vectors in SPEC.md §3.13", seen, len(vocabVectors))
	}
}

// TestWriteVocabRefuses: a Vocab that Parse would reject writes nothing.
func TestWriteVocabRefuses(t *testing.T) {
	for _, v := range []Vocab{
		{Flags: 4},
		{Kind: 2, Specials: []byte{0, 0, 0, 0}},
		{Name: make([]byte, 256), Specials: []byte{0, 0, 0, 0}},
		{Specials: []byte{0, 0, 0, 1}},
		{Specials: make([]byte, MaxPayload)},
	} {
		var out strings.Builder
		w := NewWriter(&out, WriterOptions{})
		if err := w.WriteVocab(v); err == nil {
			t.Errorf("%+v: no error", v)
		}
		w.Flush()
		if out.Len() > len(Magic) {
			t.Errorf("%+v: wrote % X", v, out.String())
		}
	}
}
