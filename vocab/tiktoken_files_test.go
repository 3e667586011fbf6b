package vocab

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"io"
	"testing"
)

// gunzip reads a gzipped file of testdata.
func gunzip(t testing.TB, name string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(readFile(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadTestTiktoken loads cl100k_base or o200k_base from testdata with its
// special tokens.
func loadTestTiktoken(t testing.TB, name string) *Vocabulary {
	t.Helper()
	specials := CL100KBaseSpecials()
	if name == "o200k_base" {
		specials = O200KBaseSpecials()
	}
	v, err := ParseTiktoken(gunzip(t, name+".tiktoken.gz"), specials)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTiktokenPinned: the .tiktoken files of testdata are OpenAI's, byte
// for byte: their hash is the SHA-256 tiktoken pins for them.
func TestTiktokenPinned(t *testing.T) {
	for name, want := range map[string]string{
		"cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
		"o200k_base":  "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
	} {
		v := loadTestTiktoken(t, name)
		if h := v.Hash(); hex.EncodeToString(h[:]) != want {
			t.Errorf("%s: hash %x, want %s", name, h, want)
		}
	}
}
