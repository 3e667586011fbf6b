package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/vocab"
)

// The real vocabularies and token streams of the module's testdata.
var (
	cl100kFile = filepath.Join("..", "..", "vocab", "testdata", "cl100k_base.tiktoken.gz")
	o200kFile  = filepath.Join("..", "..", "vocab", "testdata", "o200k_base.tiktoken.gz")
	tok512File = filepath.Join("..", "..", "vocab", "testdata", "tok512.bin")
	tokensDir  = filepath.Join("..", "..", "testdata", "tokens")
)

func readTestFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// englishIDs returns the English text of testdata/tokens and its
// cl100k_base IDs.
func englishIDs(t *testing.T) (string, []uint32) {
	t.Helper()
	b := readTestFile(t, filepath.Join(tokensDir, "english.cl100k_base.ids"))
	ids := make([]uint32, len(b)/4)
	for i := range ids {
		ids[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	return string(readTestFile(t, filepath.Join(tokensDir, "english.txt"))), ids
}

// tokenStream is a response of ids in frames of up to per IDs, after a
// VOCAB frame fv if it has a hash: TOKEN/TOKEN32 and PACKED_TOKEN frames
// in turn.
func tokenStream(fv *frame.Vocab, ids []uint32, per int) []byte {
	b := frame.AppendMagic(nil)
	if fv != nil {
		b = frame.AppendVocab(b, *fv)
	}
	var e frame.TokenEncoder
	for i := 0; i < len(ids); i += per {
		if i/per%2 == 1 {
			b = e.AppendPackedToken(b, ids[i:min(i+per, len(ids))]...)
			continue
		}
		b = frame.AppendToken(b, ids[i:min(i+per, len(ids))]...)
	}
	return frame.AppendDone(b, frame.StopEndTurn, "")
}

// TestDecodeVocab: decode --to text --vocab reads real cl100k_base IDs back
// to the text they came from, with the vocabulary as a gzipped .tiktoken
// file and as a vocabulary file anth vocab pack made, from a stream that
// names it and from one that names none.
func TestDecodeVocab(t *testing.T) {
	text, ids := englishIDs(t)
	packed, errOut, code := runAnth(t, nil, "vocab", "pack", cl100kFile)
	if code != 0 {
		t.Fatalf("vocab pack: exit %d, %s", code, errOut)
	}
	dir := t.TempDir()
	packedFile := filepath.Join(dir, "cl100k_base.antv")
	os.WriteFile(packedFile, packed, 0o644)
	v, err := vocab.ParseFile(packed)
	if err != nil {
		t.Fatal(err)
	}
	named := v.Vocab(0)
	digest := v.Vocab(frame.VocabDigest)
	for _, c := range []struct {
		name   string
		file   string
		stream []byte
	}{
		{"tiktoken, unnamed, 1 a frame", cl100kFile, tokenStream(nil, ids, 1)},
		{"tiktoken, named, 16 a frame", cl100kFile, tokenStream(&named, ids, 16)},
		{"packed, named by digest", packedFile, tokenStream(&digest, ids, 7)},
	} {
		out, errOut, code := runAnth(t, c.stream, "decode", "--to", "text", "--vocab", c.file)
		if code != 0 || string(out) != text {
			t.Errorf("%s: exit %d, stderr %q, %d bytes of text, want the %d of english.txt", c.name, code, errOut, len(out), len(text))
		}
	}
}

// TestDecodeVocabErrors: a stream naming another vocabulary than FILE's,
// token frames with no --vocab, an unknown ID and a FILE that is no
// vocabulary each exit 1 with one line naming what is wrong and where.
func TestDecodeVocabErrors(t *testing.T) {
	o2, err := loadVocab(o200kFile)
	if err != nil {
		t.Fatal(err)
	}
	other := o2.Vocab(0)
	dir := t.TempDir()
	notVocab := filepath.Join(dir, "not-a-vocab")
	os.WriteFile(notVocab, []byte("YQ== 0\n!!!! 1\n"), 0o644)
	hi := tokenStream(nil, []uint32{13347}, 1) // "Hi" in cl100k_base... and o200k_base
	for _, c := range []struct {
		name  string
		args  []string
		in    []byte
		wants []string
		out   string
	}{
		{"other vocabulary", []string{"--vocab", cl100kFile}, tokenStream(&other, []uint32{13347}, 1), []string{"anth: stdin: offset 4: VOCAB frame: unknown vocabulary", `"o200k_base"`, `"cl100k_base"`}, ""},
		{"no --vocab", nil, hi, []string{"anth: stdin: offset 4: TOKEN frame: unknown vocabulary", "give its vocabulary with --vocab FILE"}, ""},
		{"unknown ID", []string{"--vocab", cl100kFile}, tokenStream(nil, []uint32{100261}, 1), []string{"anth: stdin: offset 4: TOKEN32 frame: ID 100261 at index 0: unknown token ID"}, ""},
		{"not a vocabulary", []string{"--vocab", notVocab}, hi, []string{"anth: vocabulary " + notVocab + ": offset 7: malformed"}, ""},
		{"missing", []string{"--vocab", filepath.Join(dir, "missing")}, hi, []string{"no such file"}, ""},
	} {
		out, errOut, code := runAnth(t, c.in, append([]string{"decode", "--to", "text"}, c.args...)...)
		msg := string(errOut)
		ok := code == 1 && strings.Count(msg, "\n") == 1 && strings.Count(msg, "anth:") == 1 && string(out) == c.out
		for _, w := range c.wants {
			ok = ok && strings.Contains(msg, w)
		}
		if !ok {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", c.name, code, out, msg, c.wants)
		}
	}
	if _, errOut, code := runAnth(t, hi, "decode", "--to", "sse", "--vocab", cl100kFile); code != 2 || !bytes.Contains(errOut, []byte("--vocab goes with --to text")) {
		t.Errorf("decode --to sse --vocab: exit %d, stderr %q; want a usage error", code, errOut)
	}
}

// TestDecodeVocabTextToo: a stream whose text travels beside its IDs (the
// VOCAB text flag) is read from its TEXT frames, once, with or without
// --vocab, and whatever the vocabulary.
func TestDecodeVocabTextToo(t *testing.T) {
	o2, err := loadVocab(o200kFile)
	if err != nil {
		t.Fatal(err)
	}
	b := frame.AppendVocab(frame.AppendMagic(nil), o2.Vocab(frame.VocabText))
	b = frame.AppendToken(b, 13347)
	b = frame.AppendText(b, 0, []byte("Hi"))
	b = frame.AppendDone(b, frame.StopEndTurn, "")
	for _, args := range [][]string{{"decode", "--to", "text"}, {"decode", "--to", "text", "--vocab", cl100kFile}} {
		if out, errOut, code := runAnth(t, b, args...); code != 0 || string(out) != "Hi" {
			t.Errorf("anth %s: exit %d, stdout %q, stderr %q; want Hi", strings.Join(args, " "), code, out, errOut)
		}
	}
}

// TestDumpVocab: dump --vocab shows each ID with its text, specials by
// name and unknown IDs as ?, describes the VOCAB frame, and stops at one
// naming another vocabulary.
func TestDumpVocab(t *testing.T) {
	cl, err := loadVocab(cl100kFile)
	if err != nil {
		t.Fatal(err)
	}
	named := cl.Vocab(0)
	out, errOut, code := runAnth(t, tokenStream(&named, []uint32{13347, 100257, 100261}, 3), "dump", "--vocab", cl100kFile)
	for _, want := range []string{`VOCAB`, `"cl100k_base" byte-level sha256 223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7, 5 specials`,
		`TOKEN32`, `13347 "Hi", 100257 <|endoftext|>, 100261 ?`} {
		if code != 0 || !bytes.Contains(out, []byte(want)) {
			t.Errorf("dump --vocab: exit %d, stderr %q, stdout\n%s\nwant %q", code, errOut, out, want)
		}
	}
	o2, err := loadVocab(o200kFile)
	if err != nil {
		t.Fatal(err)
	}
	other := o2.Vocab(frame.VocabDigest)
	out, errOut, code = runAnth(t, tokenStream(&other, []uint32{13347}, 1), "dump", "--vocab", cl100kFile)
	if code != 1 || !bytes.Contains(out, []byte(`"o200k_base" byte-level sha256 446a9538`)) || !bytes.Contains(errOut, []byte("offset 4: VOCAB frame: unknown vocabulary")) {
		t.Errorf("dump --vocab, another vocabulary: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestVocabHash: anth vocab hash prints tiktoken's pinned hash of
// cl100k_base, its header form, name, kind and specials; the same for the
// packed file; usage mistakes exit 2.
func TestVocabHash(t *testing.T) {
	out, errOut, code := runAnth(t, nil, "vocab", "hash", cl100kFile)
	for _, want := range []string{"hash     223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7\n", "header   sha256=Ijkht27pm96ZW3/3OFE+7xAPtR0YyTWXoRO8/+hlsqc=\n",
		"name     cl100k_base\n", "kind     byte-level\n", "IDs      100277\n", "special  100276 <|endofprompt|>\n"} {
		if code != 0 || !bytes.Contains(out, []byte(want)) {
			t.Errorf("vocab hash: exit %d, stderr %q, stdout\n%s\nwant %q", code, errOut, out, want)
		}
	}
	out, _, code = runAnth(t, nil, "vocab", "hash", tok512File)
	if code != 0 || !bytes.Contains(out, []byte("hash     1e5d259c75f42dff15a1b8da30bb2f6ddace95fbfc765ed68004f43acdb2abcf\n")) || !bytes.Contains(out, []byte("kind     sentencepiece\n")) {
		t.Errorf("vocab hash tok512.bin: exit %d, stdout\n%s", code, out)
	}
	for _, args := range [][]string{{"vocab"}, {"vocab", "frob", "x"}, {"vocab", "hash"}} {
		if _, errOut, code := runAnth(t, nil, args...); code != 2 || !bytes.Contains(errOut, []byte("usage: anth vocab")) {
			t.Errorf("anth %s: exit %d, stderr %q; want a usage error", strings.Join(args, " "), code, errOut)
		}
	}
	if out, _, code := runAnth(t, nil, "vocab", "--help"); code != 0 || !bytes.Contains(out, []byte("usage: anth vocab")) {
		t.Errorf("vocab --help: exit %d, %q", code, out)
	}
}

// TestDecodeJSONLVocab: decode --to jsonl gives a VOCAB frame's fields.
func TestDecodeJSONLVocab(t *testing.T) {
	cl, err := loadVocab(cl100kFile)
	if err != nil {
		t.Fatal(err)
	}
	fv := cl.Vocab(0)
	out, errOut, code := runAnth(t, tokenStream(&fv, []uint32{13347}, 1), "decode", "--to", "jsonl")
	want := `{"hash":"223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7","kind":"byte-level","length":150,"name":"cl100k_base","offset":4,"specials":{"100257":"\u003c|endoftext|\u003e","100258":"\u003c|fim_prefix|\u003e","100259":"\u003c|fim_middle|\u003e","100260":"\u003c|fim_suffix|\u003e","100276":"\u003c|endofprompt|\u003e"},"text_too":false,"type":"VOCAB"}`
	if code != 0 || !bytes.Contains(out, []byte(want+"\n")) {
		t.Errorf("exit %d, stderr %q, stdout\n%s\nwant the line\n%s", code, errOut, out, want)
	}
}
