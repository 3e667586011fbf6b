package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/vocab"
)

const vocabUsage = `usage: anth vocab pack|hash FILE
  anth vocab pack FILE   writes FILE's vocabulary as a vocabulary file (SPEC.md
                         §3.15: every token in one table, checked on load) on
                         standard output
  anth vocab hash FILE   prints its hash (SPEC.md §3.12, hex and base64 as
                         Anth-Vocabularies lists it), name, kind, IDs and
                         special tokens

` + vocabFileUsage

// vocabFileUsage says what --vocab FILE and anth vocab read.
const vocabFileUsage = `A vocabulary FILE is a .tiktoken file (cl100k_base and o200k_base, known by
their hash, get tiktoken's special tokens), a Hugging Face tokenizer.json, a
llama2.c tokenizer.bin or a vocabulary file (anth vocab pack), told by its
content; gzipped, it is inflated first.
`

// maxVocabFile bounds what --vocab reads, inflated: the largest
// tokenizer.json files of current models are tens of megabytes.
const maxVocabFile = 256 << 20

func vocabCmd(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		return flag.ErrHelp
	}
	if len(args) != 2 || (args[0] != "pack" && args[0] != "hash") {
		if len(args) > 0 && args[0] != "pack" && args[0] != "hash" {
			return usageErr("vocab", "unknown subcommand %q: want pack or hash FILE", args[0])
		}
		return usageErr("vocab", "want pack or hash, and one FILE")
	}
	if len(args) > 1 && (args[1] == "-h" || args[1] == "--help") {
		return flag.ErrHelp
	}
	v, err := loadVocab(args[1])
	if err != nil {
		return err
	}
	if args[0] == "pack" {
		_, err = stdout.Write(v.AppendFile(nil))
		return err
	}
	h := v.Hash()
	name := v.Name()
	if name == "" {
		name = "(none)"
	}
	fmt.Fprintf(stdout, "hash     %s\nheader   sha256=%s\nname     %s\nkind     %s\nIDs      %d\n", hex.EncodeToString(h[:]), base64.StdEncoding.EncodeToString(h[:]), name, v.Kind(), v.Len())
	for id := range v.Len() {
		if s, ok := v.Special(uint32(id)); ok {
			fmt.Fprintf(stdout, "special  %d %s\n", id, s)
		}
	}
	return nil
}

// loadVocab reads a vocabulary FILE of any format vocab.Parse knows,
// gzipped or not; its errors name the file.
func loadVocab(path string) (*vocab.Vocabulary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError: it names the file
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxVocabFile+1))
	if err == nil && bytes.HasPrefix(data, []byte{0x1F, 0x8B}) {
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(data)); err == nil {
			data, err = io.ReadAll(io.LimitReader(zr, maxVocabFile+1))
		}
	}
	if err == nil && len(data) > maxVocabFile {
		err = fmt.Errorf("over %d MiB", maxVocabFile>>20)
	}
	if err != nil {
		return nil, fmt.Errorf("vocabulary %s: %w", path, err)
	}
	v, err := vocab.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("vocabulary %s: %w", path, err)
	}
	return v, nil
}

// decodeText writes the text of every text block (not thinking,
// signatures, tool input or citations: frame.Text's default, as the JS
// TextReassembler's), whole characters only, in stream order, each piece
// flushed to a pipe or terminal as it comes, and fails on a response that
// failed, naming the error type as api does. Text that travels as token
// IDs (SPEC.md §3.12–3.14) is read with v: vocab.Text reads TEXT frames as
// frame.Text does and token frames with v, checking a VOCAB frame against
// it; v is nil when no --vocab was given, and a stream that needs one is
// then an error that says so. A Chat Completions stream's text blocks are
// read by decodeChatText.
func decodeText(out io.Writer, r *frame.Reader, api *streamAPI, v *vocab.Vocabulary) error {
	text := vocab.NewText(v)
	var b []byte
	for f, err := range r.All() {
		if err != nil {
			return err
		}
		if f.Type == frame.TypeError {
			code, msg, _ := f.ErrorMessage()
			return fmt.Errorf("the response failed: %d %s: %s", code, api.errorType(code), msg)
		}
		var terr error
		b, terr = text.AppendFrame(b[:0], f)
		if len(b) > 0 {
			out.Write(b)
			if err := endFrame(out); err != nil {
				return err
			}
		}
		if terr != nil {
			if v == nil && errors.Is(terr, vocab.ErrUnknownVocabulary) {
				terr = fmt.Errorf("%w; give its vocabulary with --vocab FILE", terr)
			}
			return fmt.Errorf("offset %d: %s frame: %w", r.Offset()-int64(f.Size()), f.Type, terr)
		}
	}
	return nil
}

// describeVocab renders a VOCAB frame for dump.
func describeVocab(f frame.Frame) string {
	fv, err := f.Vocab()
	if err != nil {
		return err.Error()
	}
	var s strings.Builder
	name := strconv.Quote(string(fv.Name))
	fmt.Fprintf(&s, "%s %s sha256 %s", name, vocab.Kind(fv.Kind), hex.EncodeToString(fv.Hash[:]))
	if fv.Flags&frame.VocabDigest != 0 {
		fmt.Fprintf(&s, ", specials digest %s", hex.EncodeToString(fv.Digest[:]))
	} else {
		n := 0
		if len(fv.Specials) >= 4 {
			n = int(fv.Specials[0])<<24 | int(fv.Specials[1])<<16 | int(fv.Specials[2])<<8 | int(fv.Specials[3])
		}
		fmt.Fprintf(&s, ", %d specials", n)
	}
	if fv.Flags&frame.VocabText != 0 {
		s.WriteString(", text too")
	}
	return s.String()
}

// describeTokens renders a token frame's IDs with their text in v: each
// ordinary token's bytes quoted, a special token by its name, an ID v
// lacks as "?".
func describeTokens(ids []uint32, v *vocab.Vocabulary) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		switch b, ok := v.Bytes(id); {
		case ok:
			s[i] = strconv.FormatUint(uint64(id), 10) + " " + strconv.Quote(string(b))
		default:
			if name, ok := v.Special(id); ok {
				s[i] = strconv.FormatUint(uint64(id), 10) + " " + name
			} else {
				s[i] = strconv.FormatUint(uint64(id), 10) + " ?"
			}
		}
	}
	return strings.Join(s, ", ")
}
