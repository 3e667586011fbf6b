package utf8

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readData returns a file of the public conformance suites in testdata,
// each kept beside its licence (testdata/README.md names their sources). They
// are part of the repository: a missing file fails the test.
func readData(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTestdata: the suites are byte for byte the files SHA256SUMS lists,
// and testdata/README.md names every file in testdata with its licence.
func TestTestdata(t *testing.T) {
	s := bufio.NewScanner(bytes.NewReader(readData(t, "SHA256SUMS")))
	n := 0
	for s.Scan() {
		sum, name, ok := strings.Cut(s.Text(), "  ")
		if !ok {
			t.Fatalf("bad SHA256SUMS line %q", s.Text())
		}
		if got := sha256.Sum256(readData(t, name)); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s changed: sha256 %x, want %s", name, got, sum)
		}
		n++
	}
	if n != 5 {
		t.Errorf("SHA256SUMS lists %d files, want the 5 suites", n)
	}

	readme := string(readData(t, "README.md"))
	files, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		// Directories are not the suites' (rapid keeps failing cases in
		// testdata/rapid).
		if name := f.Name(); !f.IsDir() && name != "README.md" && !strings.Contains(readme, "`"+name+"`") {
			t.Errorf("testdata/README.md does not name %s", name)
		}
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// decodeAll decodes p in one piece and flushes.
func decodeAll(p []byte) []byte {
	var d Decoder
	return d.Flush(d.Append(nil, p))
}

// decodeBytewise decodes p one byte a call, the worst split there is.
func decodeBytewise(p []byte) []byte {
	var d Decoder
	var out []byte
	for i := range p {
		out = d.Append(out, p[i:i+1])
	}
	return d.Flush(out)
}

func checkCase(t *testing.T, name string, in, want []byte) {
	t.Helper()
	if got := decodeAll(in); !bytes.Equal(got, want) {
		t.Errorf("%s: % X\n got % X\nwant % X", name, in, got, want)
	}
	if got := decodeBytewise(in); !bytes.Equal(got, want) {
		t.Errorf("%s byte by byte: % X\n got % X\nwant % X", name, in, got, want)
	}
}

func TestKuhn(t *testing.T) {
	in := readData(t, "Kuhn_UTF-8-test.txt")
	want := readData(t, "Kuhn_UTF-8-test.expected-maximal-subpart.txt")
	if got := decodeAll(in); !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("output differs from byte %d: got %q, want %q", i, got[i:min(len(got), i+20)], want[i:min(len(want), i+20)])
	}
	if got := decodeBytewise(in); !bytes.Equal(got, want) {
		t.Fatal("byte-by-byte output differs from the expected output")
	}
}

func TestFlenniken(t *testing.T) {
	s := bufio.NewScanner(bytes.NewReader(readData(t, "flenniken_utf8tests.txt")))
	n := 0
	for s.Scan() {
		line := s.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, ":")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		var in, want []byte
		switch {
		case len(f) == 3 && f[1] == "valid":
			in, want = []byte(f[2]), []byte(f[2])
		case len(f) == 3 && f[1] == "valid hex":
			in = unhex(t, f[2])
			want = in
		case len(f) == 5 && f[1] == "invalid hex":
			in = unhex(t, f[2])
			if f[4] != "nothing" {
				want = unhex(t, f[4])
			}
		default:
			t.Fatalf("unknown line %q", line)
		}
		checkCase(t, "case "+f[0], in, want)
		n++
	}
	if n != 222 {
		t.Fatalf("ran %d cases, want 222", n)
	}
}

func TestCPython(t *testing.T) {
	s := bufio.NewScanner(bytes.NewReader(readData(t, "cpython_test_unicode_utf8_replace_cases.tsv")))
	n := 0
	for s.Scan() {
		line := s.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		in, want, _ := strings.Cut(line, "\t")
		checkCase(t, "cpython "+in, unhex(t, in), unhex(t, want))
		n++
	}
	if n != 101 {
		t.Fatalf("ran %d cases, want 101", n)
	}
}

// TestWPTStreaming checks the web-platform-tests TextDecoder streaming cases
// call for call: stream=true is Append, stream=false is Append then Flush.
func TestWPTStreaming(t *testing.T) {
	var data struct {
		Cases map[string][]struct {
			Chunk  string `json:"chunk"`
			Stream bool   `json:"stream"`
			Expect string `json:"expect"`
		} `json:"cases"`
		Windowed struct {
			Octets  string `json:"octets"`
			Expect  string `json:"expect_concat"`
			Windows []int  `json:"windows"`
		} `json:"windowed"`
		Split struct {
			Octets string   `json:"octets"`
			Two5   []string `json:"split_2_to_5_expect_chunks"`
			Six    []string `json:"split_6_expect_chunks"`
		} `json:"split_character"`
	}
	if err := json.Unmarshal(readData(t, "wpt_utf8_stream_vectors.json"), &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Cases) != 28 {
		t.Fatalf("%d cases, want 28", len(data.Cases))
	}
	for name, calls := range data.Cases {
		var d Decoder
		for i, c := range calls {
			out := d.Append(nil, unhex(t, c.Chunk))
			if !c.Stream {
				out = d.Flush(out)
			}
			if want := unhex(t, c.Expect); !bytes.Equal(out, want) {
				t.Errorf("%s call %d (% X, stream=%v): got % X, want % X", name, i, unhex(t, c.Chunk), c.Stream, out, want)
			}
		}
	}

	octets, want := unhex(t, data.Windowed.Octets), unhex(t, data.Windowed.Expect)
	for _, w := range data.Windowed.Windows {
		var d Decoder
		var out []byte
		for i := 0; i < len(octets); i += w {
			out = d.Append(out, octets[i:min(i+w, len(octets))])
		}
		if out = d.Flush(out); !bytes.Equal(out, want) {
			t.Errorf("window %d: got % X", w, out)
		}
	}

	octets = unhex(t, data.Split.Octets)
	for split := 1; split <= 6; split++ {
		var d Decoder
		var chunks []string
		for _, piece := range [][]byte{octets[:split], {}, octets[split:]} {
			if out := d.Append(nil, piece); len(out) > 0 {
				chunks = append(chunks, hex.EncodeToString(out))
			}
		}
		if out := d.Flush(nil); len(out) > 0 {
			chunks = append(chunks, hex.EncodeToString(out))
		}
		want := data.Split.Two5
		if split == 6 {
			want = data.Split.Six
		}
		if split == 1 {
			want = []string{"49", "20f09f92992073747265616d73"}
		}
		if strings.Join(chunks, ",") != strings.Join(want, ",") {
			t.Errorf("split at %d: chunks %v, want %v", split, chunks, want)
		}
	}
}
