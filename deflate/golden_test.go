package deflate

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/layer0/anth/internal/textgen"
)

// goldenInput is a stream to code: pieces written one Write each, with a
// Flush after each if flush is set.
type goldenInput struct {
	name   string
	dict   *Dictionary
	pieces []string
	flush  bool
}

func goldenInputs() []goldenInput {
	noise := func(seed byte, n int) string {
		b := make([]byte, n)
		rand.NewChaCha8([32]byte{seed}).Read(b)
		return string(b)
	}
	// A string that occurs again exactly d bytes after it starts, with
	// noise between that holds no 4 bytes of it.
	again := func(d int) string {
		const s = "UNIQUE-string_9"
		return s + strings.Repeat("\x00", d-len(s)) + s
	}
	// Three bytes that occur again d bytes after they start, followed
	// by another byte each time: a match of 3 bytes only, taken up to
	// tooFar3 back, where its bits are still fewer than the literals'.
	three := func(d int) string {
		return "Q#Z" + strings.Repeat("\x00", d-3) + "Q#Z!"
	}
	// A 100-byte string, a copy of its first niceMatch bytes, and the
	// whole string again: the copy is the nearer candidate, a match of
	// exactly niceMatch bytes, which ends the search; the first is longer.
	long := noise(2, 100)
	nice := long + noise(3, 500) + long[:niceMatch] + "!" + noise(4, 500) + long
	// A match of exactly lazyMatch bytes at a position, and a longer one
	// at the next: only a match shorter than lazyMatch waits for the next.
	lazy := "Aabcdefghijklmno!" + noise(5, 300) + "abcdefghijklmnopqrstuvwxyz#" + noise(6, 300) + "Aabcdefghijklmnopqrstuvwxyz"
	// A match of exactly skipInsert bytes, whose positions go unhashed,
	// then a string that starts inside it: its nearest candidate is in
	// the first copy, which a longer match would be in the second.
	x := noise(7, skipInsert)
	skip := x + "#" + noise(8, 300) + x + "$" + noise(9, 300) + x[5:] + "$"
	// A 20-byte prefix at maxChain+1 positions, each followed by a byte
	// of its own (so no match starts a byte early), the oldest by what the
	// last is followed by: the maxChain nearer ones match 20 bytes, and
	// only a walk of more than maxChain candidates reaches the oldest, a
	// match of 60 (lazy matching cannot go round it: 20 is at least
	// lazyMatch).
	const prefix = "abcdefghijklmnopqrst"
	var chain strings.Builder
	chain.WriteString(prefix + strings.Repeat("Z", 40))
	for i := range maxChain {
		chain.WriteString(prefix + string(rune('0'+i)))
	}
	chain.WriteString(prefix + strings.Repeat("Z", 40))
	// A match of exactly goodMatch bytes at a position, and at the next
	// a longer one that only a walk of more than maxChain/4 candidates
	// reaches: the goodMatch-1 nearer ones at the next position match
	// goodMatch bytes at most, which does not beat the first.
	const s = "abcdefghijklmnop"
	var good strings.Builder
	good.WriteString(s + strings.Repeat("Z", 40) + "\n" + "Q" + s[:goodMatch-1] + "%")
	for i := range maxChain >> goodShift {
		good.WriteString(s[:goodMatch] + string(rune('0'+i)))
	}
	good.WriteString("Q" + s + strings.Repeat("Z", 40))
	return []goldenInput{
		{"english deltas", testDict, textgen.Response(textgen.English, 3000, 1), true},
		{"chinese deltas", nil, textgen.Response(textgen.Chinese, 3000, 2), true},
		{"code deltas", testDict, textgen.Response(textgen.Code, 3000, 3), true},
		{"english whole", testDict, []string{strings.Join(textgen.Response(textgen.English, 40000, 4), "")}, true},
		{"english tokens", nil, textgen.Tokens(textgen.English, 5000, 5), true},
		{"distance window-2", nil, []string{again(window - 2)}, true},
		{"distance window-1", nil, []string{again(window - 1)}, true},
		{"distance window", nil, []string{again(window)}, true},
		{"three at tooFar3", nil, []string{three(tooFar3)}, true},
		{"three past tooFar3", nil, []string{three(tooFar3 + 1)}, true},
		{"nice match", nil, []string{nice}, true},
		{"chain limit", nil, []string{chain.String()}, true},
		{"lazy at lazyMatch", nil, []string{lazy}, true},
		{"skip at skipInsert", nil, []string{skip}, true},
		{"lazy at goodMatch", nil, []string{good.String()}, true},
		// Each piece ends in a match of 4 bytes at distance 1, the last
		// place a match can start.
		{"ends", nil, strings.Fields("xaaaaa ybbbbb zccccc the model streams each token as it is sampled"), true},
		{"runs", nil, []string{strings.Repeat("a", 1000) + strings.Repeat("ab", 1000) + strings.Repeat("abcdefgh", 600)}, true},
	}
}

// TestGolden pins what the Writer writes for each input: the size of its
// records and the start of their SHA-256. Any valid output reads back, so only this
// notices a change in what the encoder matches (the hash, the chains and
// their limits, lazy matching and its shorter walk after a good match, the window's reach, the positions left
// unhashed inside long matches, where records end): a change made on
// purpose updates the table, and should say what it did to the sizes.
func TestGolden(t *testing.T) {
	want := map[string]struct {
		in, out int
		sha     string
	}{
		"english deltas":     {33377, 22262, "38f2a3a7ee0ab169"},
		"chinese deltas":     {24732, 21699, "b04494727adfb674"},
		"code deltas":        {34505, 19498, "084565ddac3a1b36"},
		"english whole":      {442413, 196655, "aab828aca60ab02d"},
		"english tokens":     {22012, 21373, "592ca73b49f30e75"},
		"distance window-2":  {32781, 344, "e80b2d428b5f3c9e"},
		"distance window-1":  {32782, 354, "261e5235d05a837e"},
		"distance window":    {32783, 354, "e03e509ce7bfef98"},
		"three at tooFar3":   {4100, 49, "4b8f13365d161070"},
		"three past tooFar3": {4101, 50, "0d8dc083d26da2e4"},
		"nice match":         {1265, 1171, "8fa951beee70c71d"},
		"chain limit":        {792, 131, "79025c9073bb43d3"},
		"lazy at lazyMatch":  {671, 675, "8ff6342257caeddb"},
		"skip at skipInsert": {694, 677, "82da0b143d306c78"},
		"lazy at goodMatch":  {195, 53, "56d8a64fe3144962"},
		"ends":               {55, 69, "afa691a4ef7964a7"},
		"runs":               {7800, 93, "5214c1744f6231af"},
	}
	for _, in := range goldenInputs() {
		var out bytes.Buffer
		w := NewWriter(&out, in.dict)
		var text []byte
		for _, p := range in.pieces {
			if _, err := w.Write([]byte(p)); err != nil {
				t.Fatal(err)
			}
			text = append(text, p...)
			if in.flush {
				w.Flush()
			}
		}
		w.Flush()
		got, err := io.ReadAll(NewReader(bytes.NewReader(out.Bytes()), in.dict))
		if err != nil || !bytes.Equal(got, text) {
			t.Fatalf("%s: read back %d bytes of %d, %v", in.name, len(got), len(text), err)
		}
		// The table pins the records; the DICTID before them is the
		// dictionary's.
		coded := out.Bytes()
		if id := in.dict.ID(); !bytes.Equal(coded[:idSize], binary.BigEndian.AppendUint32(nil, id)) {
			t.Errorf("%s: starts % X, want the DICTID %08x", in.name, coded[:idSize], id)
		}
		records := coded[idSize:]
		sum := sha256.Sum256(records)
		g := want[in.name]
		if len(text) != g.in || len(records) != g.out || hex.EncodeToString(sum[:8]) != g.sha {
			t.Errorf("%s: %d bytes coded to %d, sha256 %x; want %d to %d, %s", in.name, len(text), len(records), sum[:8], g.in, g.out, g.sha)
		}
	}
}
