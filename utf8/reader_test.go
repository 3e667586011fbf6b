package utf8

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	stdutf8 "unicode/utf8"
)

func TestReader(t *testing.T) {
	in := []byte(strings.Repeat("汉字 and text, \xF0\x9F\x98\x80 \xC3A ", 500) + "\xE4\xBD")
	want := decodeAll(in)
	for name, r := range map[string]io.Reader{
		"whole":    bytes.NewReader(in),
		"one-byte": iotest.OneByteReader(bytes.NewReader(in)),
		"half":     iotest.HalfReader(bytes.NewReader(in)),
		"data-err": iotest.DataErrReader(bytes.NewReader(in)),
	} {
		// Read in odd sizes; the joined text must be the Decoder's.
		var got []byte
		buf := make([]byte, 7)
		tr := NewReader(r)
		for {
			n, err := tr.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: text differs from the Decoder's", name)
		}
	}
}

// TestReaderWholeCharacters: a Read given room for the text never returns
// part of a character, however the underlying reader splits it.
func TestReaderWholeCharacters(t *testing.T) {
	in := []byte(strings.Repeat("你好世界", 100))
	tr := NewReader(iotest.OneByteReader(bytes.NewReader(in)))
	buf := make([]byte, 64)
	total := 0
	for {
		n, err := tr.Read(buf)
		if !stdutf8.Valid(buf[:n]) {
			t.Fatalf("Read returned a cut character: % X", buf[:n])
		}
		total += n
		if err != nil {
			break
		}
	}
	if total != len(in) {
		t.Fatalf("read %d bytes, want %d", total, len(in))
	}
}

func TestReaderError(t *testing.T) {
	boom := errors.New("reset")
	r := NewReader(io.MultiReader(strings.NewReader("ok\xE4"), iotest.ErrReader(boom)))
	got, err := io.ReadAll(r)
	if err != boom || string(got) != "ok" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestAppendClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"\uFEFFhello", "hello"},
		{"a\u200Bb\u2060c", "abc"},
		{"safe\u202Eevil\u202C", "safeevil"},
		{"\u2066x\u2069", "x"},
		{"hi\U000E0041\U000E0042", "hi"},
		{"👨\u200D👩\u200D👧", "👨\u200D👩\u200D👧"},
		{"می\u200Cخواهم", "می\u200Cخواهم"},
		{"bad\xC3\x41", "bad\uFFFDA"},
		{"é\xFF\u200B", "é\uFFFD"},
	} {
		if got := string(AppendClean(nil, []byte(c.in))); got != c.want {
			t.Errorf("AppendClean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
