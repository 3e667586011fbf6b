package vocab

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/layer0/anth/utf8"
	"pgregory.net/rapid"
)

// merges are the multi-byte tokens of the test's byte-level vocabulary:
// words, and pieces that split characters as real BPE merges do (one CJK
// character in two tokens, an emoji in two, a token that ends one
// character and starts the next).
var merges = []string{
	"th", "the", " the", "in", "ing", " and", " a", "  ", "    ", "\n\n", "func ", "return",
	"你", "好", "你好", "\xe4\xbd", "\xa0\xe5", "\xa5\xbd", "日本", "語", "\xe6\x97\xa5\xe6",
	"😀", " 😀", "\xf0\x9f", "\x98\x80", "\x9f\x98", "é", "ção", "ü", "e\xcc", "\xcc\x81",
	"Привет", "мир", "مرحبا", "\xed\xa0", "\xf4\x90",
}

// byteLevel returns the test's byte-level vocabulary: the 256 bytes, the
// merges, a gap of 10 IDs, then two specials.
func byteLevel(t testing.TB) *Vocabulary {
	t.Helper()
	var file []byte
	pieces := make([]string, 0, 256+len(merges))
	for b := range 256 {
		pieces = append(pieces, string([]byte{byte(b)}))
	}
	pieces = append(pieces, merges...)
	seen := map[string]bool{}
	for _, p := range pieces {
		if seen[p] {
			t.Fatalf("test vocabulary: %q twice", p) // no real vocabulary has that
		}
		seen[p] = true
	}
	for rank, p := range pieces {
		file = fmt.Appendf(file, "%s %d\n", base64.StdEncoding.EncodeToString([]byte(p)), rank)
	}
	end := uint32(len(pieces) + 10)
	v, err := ParseTiktoken(file, map[string]uint32{"<|endoftext|>": end, "<|fim|>": end + 1})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func tok512(t testing.TB) *Vocabulary {
	t.Helper()
	v, err := ParseLlama2c(readFile(t, "tok512.bin"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// encoder is a greedy longest-match encoder over a vocabulary's ordinary
// tokens, falling back to byte pieces: enough to make ID sequences whose
// text is known.
type encoder struct {
	ids    map[string]uint32
	maxLen int
}

func newEncoder(v *Vocabulary) *encoder {
	e := &encoder{ids: map[string]uint32{}}
	for id := range v.Len() {
		b, ok := v.Bytes(uint32(id))
		if !ok {
			continue
		}
		if _, dup := e.ids[string(b)]; dup && len(b) == 1 {
			continue // a SentencePiece byte piece and a one-byte piece: keep the first
		}
		e.ids[string(b)] = uint32(id)
		e.maxLen = max(e.maxLen, len(b))
	}
	return e
}

func (e *encoder) encode(ids []uint32, s string) []uint32 {
	for len(s) > 0 {
		for n := min(len(s), e.maxLen); n > 0; n-- {
			if id, ok := e.ids[s[:n]]; ok {
				ids = append(ids, id)
				s = s[n:]
				break
			}
			if n == 1 {
				panic(fmt.Sprintf("no token for byte %#x", s[0]))
			}
		}
	}
	return ids
}

// lossy is the oracle for one run of text: package utf8's decoding of the
// whole, flushed (SPEC.md §7).
func lossy(b []byte) string {
	var d utf8.Decoder
	return string(d.Flush(d.Append(nil, b)))
}

var fragments = []string{
	"the", " the", "and", " ", "\n", "你好", "日本語", "😀", "🇫🇷", "café", "ação", "naïve", "é",
	"Привет", "مرحبا", "func main() {\n\treturn 0\n}", "\xed\xa0\x80", "\xf0\x9f", "\xc3", "\xff", "e\u0301",
	"once upon a time", " she dreamt of", "in", "ing",
}

// segment is text between special tokens.
type segment struct {
	text    string
	special uint32
}

// checkStream feeds ids to a Detokenizer in the chunks cuts gives and checks
// the text and the specials against want.
func checkStream(t *rapid.T, v *Vocabulary, ids []uint32, wantText string, wantSpecials []string, wantAt []int) {
	d := NewDetokenizer(v)
	var out []byte
	var specials []string
	var at []int
	rest := ids
	for len(rest) > 0 {
		k := rapid.IntRange(1, len(rest)).Draw(t, "chunk")
		chunk := rest[:k]
		rest = rest[k:]
		for len(chunk) > 0 {
			var n int
			var err error
			out, n, err = d.AppendText(out, chunk)
			if err != nil {
				t.Fatalf("AppendText: %v", err)
			}
			if d.Pending() > 3 {
				t.Fatalf("holding %d bytes", d.Pending())
			}
			if !strings.HasPrefix(wantText, string(out)) {
				t.Fatalf("text so far %q is not a prefix of %q", out, wantText)
			}
			if n > 0 {
				if name, ok := v.Special(chunk[n-1]); ok {
					specials = append(specials, name)
					at = append(at, len(out))
				}
			}
			chunk = chunk[n:]
		}
	}
	out = d.Flush(out)
	if string(out) != wantText {
		t.Fatalf("text %q, want %q", out, wantText)
	}
	if fmt.Sprint(specials, at) != fmt.Sprint(wantSpecials, wantAt) {
		t.Fatalf("specials %v at %v, want %v at %v", specials, at, wantSpecials, wantAt)
	}
}

// Text encoded to IDs comes back byte for byte (ill-formed bytes as the
// utf8 package replaces them) under every chunking of the IDs, with the
// special tokens reported where they stood.
func TestDetokenizerByteLevel(t *testing.T) {
	v := byteLevel(t)
	enc := newEncoder(v)
	end, _ := v.SpecialID("<|endoftext|>")
	rapid.Check(t, func(t *rapid.T) {
		segs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) segment {
			parts := rapid.SliceOf(rapid.OneOf(rapid.SampledFrom(fragments), rapid.String(),
				rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }))).Draw(t, "parts")
			return segment{strings.Join(parts, ""), end + rapid.Uint32Range(0, 1).Draw(t, "special")}
		}), 1, 4).Draw(t, "segments")
		var ids []uint32
		var want strings.Builder
		var names []string
		var at []int
		for i, s := range segs {
			ids = enc.encode(ids, s.text)
			want.WriteString(lossy([]byte(s.text)))
			if i < len(segs)-1 {
				ids = append(ids, s.special)
				name, _ := v.Special(s.special)
				names = append(names, name)
				at = append(at, want.Len())
			}
		}
		if len(ids) == 0 {
			return
		}
		checkStream(t, v, ids, want.String(), names, at)
	})
}

// The same for a SentencePiece vocabulary (tok512.bin): byte pieces, and
// one leading space of the piece after BOS dropped, as llama2.c's run.c
// decode does.
func TestDetokenizerSentencePiece(t *testing.T) {
	v := tok512(t)
	enc := newEncoder(v)
	rapid.Check(t, func(t *rapid.T) {
		segs := rapid.SliceOfN(rapid.SliceOf(rapid.OneOf(rapid.SampledFrom(fragments), rapid.String())), 1, 4).Draw(t, "segments")
		var ids []uint32
		var want strings.Builder
		var names []string
		var at []int
		for _, parts := range segs {
			ids = append(ids, llama2cBOS)
			names = append(names, "<s>")
			at = append(at, want.Len())
			s := strings.Join(parts, "")
			start := len(ids)
			ids = enc.encode(ids, s)
			if len(ids) > start {
				if b, _ := v.Bytes(ids[start]); len(b) > 0 && b[0] == ' ' && v.tab[ids[start]].flag == ordinary {
					s = s[1:]
				}
			}
			want.WriteString(lossy([]byte(s)))
		}
		checkStream(t, v, ids, want.String(), names, at)
	})
}

func TestDetokenizerSpaceAfterBOS(t *testing.T) {
	v := tok512(t)
	enc := newEncoder(v)
	a := enc.encode(nil, " a")
	if len(a) != 1 {
		t.Fatalf("\" a\" is %v, want one piece", a)
	}
	for _, c := range []struct {
		ids  []uint32
		want string
	}{
		{[]uint32{1, a[0], a[0]}, "a a"},
		{[]uint32{a[0], a[0]}, " a a"},
		{[]uint32{1, 3 + ' ', a[0]}, "  a"}, // a byte piece keeps its space (run.c strips before it reads one)
		{[]uint32{1, 2, a[0]}, " a"},
		{[]uint32{1, 1, a[0]}, "a"},
		{[]uint32{1, 3 + 0xE4, 3 + 0xBD, 3 + 0xA0}, "你"},
		{[]uint32{3 + 0xE4, 3 + 0xBD, 1, 3 + 0xA0}, "\uFFFD\uFFFD"},
	} {
		d := NewDetokenizer(v)
		var out []byte
		for ids := c.ids; len(ids) > 0; {
			var n int
			var err error
			out, n, err = d.AppendText(out, ids)
			if err != nil {
				t.Fatal(err)
			}
			ids = ids[n:]
		}
		if out = d.Flush(out); string(out) != c.want {
			t.Errorf("%v: %q, want %q", c.ids, out, c.want)
		}
	}
}

func TestDetokenizerUnknown(t *testing.T) {
	v := byteLevel(t)
	gap := uint32(256 + len(merges)) // the first ID of the gap
	for _, bad := range []uint32{gap, gap + 9, uint32(v.Len()), 1 << 31} {
		d := NewDetokenizer(v)
		ids := []uint32{'h', 'i', 0xE4, bad, 'x'}
		out, n, err := d.AppendText(nil, ids)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrUnknownToken) || !errors.Is(err, ErrMalformed) {
			t.Fatalf("ID %d: err = %v, want an *Error of ErrUnknownToken and ErrMalformed", bad, err)
		}
		if e.ID != bad || e.Index != 3 || e.Offset != -1 || n != 3 || string(out) != "hi" {
			t.Errorf("ID %d: ID %d, index %d, offset %d, n %d, out %q", bad, e.ID, e.Index, e.Offset, n, out)
		}
		// Errors are final.
		if _, _, err2 := d.Next(nil, 'x'); err2 != err || d.Err() != err {
			t.Errorf("after the error: %v, Err %v", err2, d.Err())
		}
		if out := d.Flush(nil); len(out) != 0 {
			t.Errorf("Flush after the error: %q", out)
		}
		d.Reset()
		if out, _, err := d.Next(nil, 'x'); err != nil || string(out) != "x" {
			t.Errorf("after Reset: %q, %v", out, err)
		}
	}
}

// Next allocates nothing in steady state.
func TestDetokenizerAllocs(t *testing.T) {
	for name, v := range map[string]*Vocabulary{"byte-level": byteLevel(t), "sentencepiece": tok512(t)} {
		ids := newEncoder(v).encode(nil, "once upon a time 你好 😀 café ")
		d := NewDetokenizer(v)
		buf := make([]byte, 0, 4096)
		allocs := testing.AllocsPerRun(100, func() {
			out := buf[:0]
			for _, id := range ids {
				out, _, _ = d.Next(out, id)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per run of %d tokens, want 0", name, allocs, len(ids))
		}
	}
}

// step is what one Next call gives and leaves behind.
type step struct {
	Out     string
	Special bool
	Err     string
	Index   int64
	Pending int
}

// fastPathIDs returns IDs of v that exercise every branch around
// appendWhole: BOS and the other specials, byte pieces (ASCII and not),
// ordinary tokens that are not whole characters, pieces with a leading
// space (for after BOS), pieces longer than pieceSlack, absent IDs in the
// table's gaps and IDs past its end.
func fastPathIDs(v *Vocabulary) []uint32 {
	var ids []uint32
	long, split, spaced := 0, 0, 0
	for id, e := range v.tab {
		p := v.data[e.off : e.off+uint32(e.n)]
		switch {
		case e.flag != ordinary:
			ids = append(ids, uint32(id)) // specials, byte pieces, gaps
		case e.text == notWhole && split < 64:
			ids = append(ids, uint32(id))
			split++
		case e.text == whole && long < 16:
			ids = append(ids, uint32(id))
			long++
		case len(p) > 0 && p[0] == ' ' && spaced < 16:
			ids = append(ids, uint32(id))
			spaced++
		}
	}
	return append(ids, uint32(len(v.tab)), uint32(len(v.tab))+7, 1<<31, 1<<32-1)
}

// TestDetokenizerFastPath: Next, whose common case is appendWhole, and
// Text.AppendFrame, which runs appendWhole in its loop over a frame's IDs,
// give step by step what Next's general path alone gives (next, the
// Detokenizer before the fast path), for IDs of real vocabularies that mix
// the common case with every other; whatever spare capacity dst has, the
// bytes before len(dst) are left alone and only the token's text is
// appended.
func TestDetokenizerFastPath(t *testing.T) {
	load := func(parse func([]byte) (*Vocabulary, error), data []byte) *Vocabulary {
		v, err := parse(data)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Every loader: each must leave data its pieceSlack.
	for name, v := range map[string]*Vocabulary{
		"cl100k_base":        loadTestTiktoken(t, "cl100k_base"),
		"tok512":             tok512(t),
		"byte-level":         byteLevel(t),
		"tokenizer.json":     load(ParseHF, hfJSON(t, byteLevel(t))),
		"tokenizer.json/spm": load(ParseHF, llama2JSON(t, tok512(t))),
		"file/tok512":        load(ParseFile, named(t, tok512(t), "tok512").AppendFile(nil)),
		"file/byte-level":    load(ParseFile, named(t, byteLevel(t), "test").AppendFile(nil)),
	} {
		if cap(v.data)-len(v.data) < pieceSlack {
			t.Fatalf("%s: %d bytes of capacity after the data, want %d", name, cap(v.data)-len(v.data), pieceSlack)
		}
		odd := fastPathIDs(v)
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				ids := rapid.SliceOfN(rapid.OneOf(
					rapid.SampledFrom(odd),
					rapid.Uint32Range(0, uint32(v.Len())-1),
				), 1, 64).Draw(t, "ids")

				ref := NewDetokenizer(v)
				var want []step
				var wantText []byte
				for _, id := range ids {
					out, sp, err := ref.next(nil, id)
					want = append(want, step{string(out), sp, fmt.Sprint(err), ref.index, ref.Pending()})
					wantText = append(wantText, out...)
					if err != nil {
						break
					}
				}

				d := NewDetokenizer(v)
				var got []step
				buf := make([]byte, 8+2*pieceSlack)
				for _, id := range ids {
					// A prefix the call must keep, and spare capacity
					// from none (append's path) to plenty.
					pre := rapid.IntRange(0, 8).Draw(t, "prefix")
					room := rapid.IntRange(0, 2*pieceSlack).Draw(t, "room")
					dst := buf[: pre : pre+room]
					for i := range dst {
						dst[i] = byte('0' + i)
					}
					out, sp, err := d.Next(dst, id)
					for i := range pre {
						if out[i] != byte('0'+i) {
							t.Fatalf("ID %d: the prefix dst held became %q", id, out[:pre])
						}
					}
					got = append(got, step{string(out[pre:]), sp, fmt.Sprint(err), d.index, d.Pending()})
					if err != nil {
						break
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("Next differs from its general path (-next +Next):\n%s", diff)
				}

				// The same IDs in token frames: the text of the steps up
				// to the first error, and that error.
				tx := NewText(v)
				var text []byte
				var terr error
				for _, f := range tokenFrames(t, ids) {
					room := rapid.IntRange(0, 2*pieceSlack).Draw(t, "frame room")
					text = slices.Grow(text, room)
					if text, terr = tx.AppendFrame(text, f); terr != nil {
						break
					}
				}
				if diff := cmp.Diff(string(wantText), string(text)); diff != "" {
					t.Fatalf("Text.AppendFrame's text differs from next's (-next +Text):\n%s", diff)
				}
				if wantErr := want[len(want)-1].Err; fmt.Sprint(terr) != wantErr {
					t.Fatalf("Text.AppendFrame: %v, want %s", terr, wantErr)
				}
			})
		})
	}
}
