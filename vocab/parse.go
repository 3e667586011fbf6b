package vocab

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
)

// knownTiktoken are the .tiktoken files whose special tokens and name Parse
// knows by the file's SHA-256, as tiktoken pins them.
var knownTiktoken = []struct {
	sum      string // hex
	name     string
	specials func() map[string]uint32
}{
	{"223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", "cl100k_base", CL100KBaseSpecials},
	{"446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", "o200k_base", O200KBaseSpecials},
}

// Parse reads a vocabulary from a file of any format this package knows,
// told by its content: a vocabulary file (SPEC.md §3.15, "ANTV" first), a
// Hugging Face tokenizer.json (a JSON object), a .tiktoken file (base64, a
// space and a rank on its first line) or else a llama2.c tokenizer.bin. A
// .tiktoken file has no special tokens of its own: cl100k_base's and
// o200k_base's, known by the file's SHA-256 (tiktoken's pinned hashes), get
// tiktoken's tables and their names; any other gets none.
func Parse(data []byte) (*Vocabulary, error) {
	switch {
	case bytes.HasPrefix(data, []byte(FileMagic)):
		return ParseFile(data)
	case len(bytes.TrimLeft(data, " \t\r\n")) > 0 && bytes.TrimLeft(data, " \t\r\n")[0] == '{':
		return ParseHF(data)
	case looksLikeTiktoken(data):
		sum := sha256.Sum256(data)
		for _, p := range knownTiktoken {
			if hex.EncodeToString(sum[:]) == p.sum {
				v, err := ParseTiktoken(data, p.specials())
				if err != nil {
					return nil, err
				}
				return v.Named(p.name)
			}
		}
		return ParseTiktoken(data, nil)
	}
	return ParseLlama2c(data)
}

// looksLikeTiktoken reports whether data's first line is base64, a space
// and a decimal rank.
func looksLikeTiktoken(data []byte) bool {
	line, _, _ := bytes.Cut(data, []byte{'\n'})
	b64, rank, ok := bytes.Cut(line, []byte{' '})
	if !ok || len(b64) == 0 || len(rank) == 0 {
		return false
	}
	for _, c := range b64 {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	for _, c := range rank {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
