package chat

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/layer0/anth/deflate"
)

// TestCodedPadKeepsLength holds a decoder whose frames go into anth-deflate
// to §7b.4: the obfuscation's length must survive compression, or the
// coded stream's sizes follow the text, which obfuscation exists to hide
// (§11.1). The same stream with every obfuscation 48 characters longer
// must cost about 36 more coded bytes a chunk (6 bits a byte, §7b.4);
// zero-filled PADs cost
// nearly nothing more.
func TestCodedPadKeepsLength(t *testing.T) {
	sseIn, err := os.ReadFile("../testdata/chat/layer0-openai-obfuscation.sse")
	if err != nil {
		t.Fatal(err)
	}
	obf := regexp.MustCompile(`"obfuscation":"[A-Za-z0-9]*"`)
	chunks := len(obf.FindAll(sseIn, -1))
	if chunks < 5 {
		t.Fatalf("the recording has %d obfuscated chunks", chunks)
	}
	const more = 48
	longer := obf.ReplaceAllFunc(sseIn, func(m []byte) []byte {
		return append(m[:len(m)-1:len(m)-1], strings.Repeat("Q", more)+`"`...)
	})
	coded := func(in []byte) int {
		d := API{}.NewDecoder(bytes.NewReader(in), true)
		var out bytes.Buffer
		z := deflate.NewWriter(&out, API{}.Dictionary())
		if _, err := io.Copy(z, d); err != nil {
			t.Fatal(err)
		}
		if err := z.Flush(); err != nil {
			t.Fatal(err)
		}
		return out.Len()
	}
	short, long := coded(sseIn), coded(longer)
	t.Logf("%d more obfuscation bytes: coded %d → %d bytes", chunks*more, short, long)
	if grew, want := long-short, chunks*more*6/10; grew < want {
		t.Errorf("obfuscation %d bytes longer in all: the coded stream grew %d bytes (%d → %d), want at least %d", chunks*more, grew, short, long, want)
	}
}
