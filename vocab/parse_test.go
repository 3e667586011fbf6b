package vocab

import "testing"

// TestParseDetects: Parse tells each format by its content and reads it as
// its own parser does; cl100k_base and o200k_base get their specials and
// names.
func TestParseDetects(t *testing.T) {
	tiny := readFile(t, "tiny.tiktoken")
	want, err := ParseTiktoken(tiny, nil)
	if err != nil {
		t.Fatal(err)
	}
	cl := named(t, loadTestTiktoken(t, "cl100k_base"), "cl100k_base")
	o2 := named(t, loadTestTiktoken(t, "o200k_base"), "o200k_base")
	for _, c := range []struct {
		name string
		data []byte
		want *Vocabulary
	}{
		{"tiktoken", tiny, want},
		{"cl100k_base", gunzip(t, "cl100k_base.tiktoken.gz"), cl},
		{"o200k_base", gunzip(t, "o200k_base.tiktoken.gz"), o2},
		{"llama2.c", readFile(t, "tok512.bin"), tok512(t)},
		{"file", named(t, tok512(t), "tok512").AppendFile(nil), named(t, tok512(t), "tok512")},
		{"tokenizer.json", hfJSON(t, byteLevel(t)), byteLevel(t)},
	} {
		got, err := Parse(c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if diff := sameVocab(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}
