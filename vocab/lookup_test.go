package vocab

import (
	"encoding/base64"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// lookupResult is one Lookup's answer, for go-cmp.
type lookupResult struct {
	ID uint32
	OK bool
}

// mapLookup is the baseline a user would otherwise write: a
// map[string]uint32 of every ordinary token, the lowest ID kept where
// bytes repeat.
func mapLookup(v *Vocabulary) map[string]uint32 {
	m := make(map[string]uint32, v.Len())
	for id := range v.Len() {
		if b, ok := v.Bytes(uint32(id)); ok {
			if _, dup := m[string(b)]; !dup {
				m[string(b)] = uint32(id)
			}
		}
	}
	return m
}

// TestLookupRoundTrip: every ordinary ID of cl100k_base and o200k_base
// comes back from its bytes (neither repeats bytes: tiktoken refuses
// that); special tokens' names, IDs' gaps and bytes no token has are not
// found.
func TestLookupRoundTrip(t *testing.T) {
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		v := loadTestTiktoken(t, name)
		ordinary := 0
		for id := range uint32(v.Len()) {
			if b, ok := v.Bytes(id); ok {
				ordinary++
				if got, ok := v.Lookup(b); !ok || got != id {
					t.Fatalf("%s: Lookup(Bytes(%d) = %q) = %d, %v", name, id, b, got, ok)
				}
				continue
			}
			if s, ok := v.Special(id); ok {
				if got, ok := v.Lookup([]byte(s)); ok {
					t.Errorf("%s: special %s found as ordinary ID %d", name, s, got)
				}
			}
		}
		if ordinary < 100000 {
			t.Fatalf("%s: %d ordinary tokens", name, ordinary)
		}
		for _, absent := range []string{"", "\xff\xfe\xfd\xfc", "no token is this whole sentence, surely not"} {
			if got, ok := v.Lookup([]byte(absent)); ok {
				t.Errorf("%s: Lookup(%q) = %d, want not found", name, absent, got)
			}
		}
	}
}

// Bytes that two ordinary IDs share give the lower ID, as rank order puts
// it first; a special token whose name is an ordinary token's bytes does
// not change that.
func TestLookupRepeatedBytes(t *testing.T) {
	// a 0, b 1, a 2, b 3; the special "a" at 4.
	v, err := ParseTiktoken([]byte("YQ== 0\nYg== 1\nYQ== 2\nYg== 3\n"), map[string]uint32{"a": 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []*Vocabulary{v, {kind: v.kind, tab: v.tab, data: v.data, bos: -1}} { // indexed, and scanned
		for b, want := range map[string]uint32{"a": 0, "b": 1} {
			if got, ok := v.Lookup([]byte(b)); !ok || got != want {
				t.Errorf("Lookup(%q) = %d, %v; want %d", b, got, ok, want)
			}
		}
	}
}

// A SentencePiece vocabulary answers nothing: its bytes do not name one
// token.
func TestLookupSentencePiece(t *testing.T) {
	v := tok512(t)
	for id := range uint32(v.Len()) {
		if b, ok := v.Bytes(id); ok {
			if got, ok := v.Lookup(b); ok {
				t.Fatalf("SentencePiece Lookup(%q) = %d", b, got)
			}
		}
	}
}

// Lookup agrees with a map of the same tokens on random vocabularies
// (short tokens over a small alphabet, so bytes repeat and probes
// collide) and random byte strings, indexed and scanned.
func TestLookupProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SliceOfN(rapid.Byte(), 1, 4).Draw(t, "alphabet")
		word := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 4)
		toks := rapid.SliceOfN(word, 0, 64).Draw(t, "tokens")
		var file []byte
		for id, b := range toks {
			file = base64.StdEncoding.AppendEncode(file, b)
			file = append(append(file, ' '), strconv.Itoa(id)+"\n"...)
		}
		v, err := ParseTiktoken(file, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := mapLookup(v)
		scanned := &Vocabulary{kind: v.kind, tab: v.tab, data: v.data, bos: -1}
		probes := append(toks, rapid.SliceOfN(word, 0, 16).Draw(t, "probes")...)
		for _, p := range probes {
			id, ok := m[string(p)]
			want := lookupResult{id, ok}
			for _, v := range []*Vocabulary{v, scanned} {
				id, ok := v.Lookup(p)
				if diff := cmp.Diff(want, lookupResult{id, ok}); diff != "" {
					t.Fatalf("Lookup(%q) (-map +Lookup):\n%s", p, diff)
				}
			}
		}
	})
}

// Lookup is safe for concurrent use from its first call on: the index is
// built once (run with -race).
func TestLookupConcurrent(t *testing.T) {
	v := loadTestTiktoken(t, "cl100k_base")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for id := uint32(g); id < 50000; id += 97 {
				if b, ok := v.Bytes(id); ok {
					if got, ok := v.Lookup(b); !ok || got != id {
						t.Errorf("Lookup(Bytes(%d)) = %d, %v", id, got, ok)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	// Named copies share the index.
	w, _ := v.Named("cl100k_base")
	if w.sum != v.sum || len(w.sum.lookup.slots) != 1<<18 {
		t.Errorf("Named copy does not share the index of %d slots", len(v.sum.lookup.slots))
	}
}

// TestLookupMemory states the index's size: one uint32 a slot, the
// smallest power of two above twice the ordinary tokens (cl100k_base
// 1 MiB, o200k_base 2 MiB), and nothing allocated per Lookup.
func TestLookupMemory(t *testing.T) {
	for name, want := range map[string]int{"cl100k_base": 1 << 20, "o200k_base": 2 << 20} {
		v := loadTestTiktoken(t, name)
		b, _ := v.Bytes(1000)
		v.Lookup(b)
		if got := 4 * len(v.sum.lookup.slots); got != want {
			t.Errorf("%s: index of %d bytes, want %d", name, got, want)
		}
		if n := testing.AllocsPerRun(100, func() { v.Lookup(b) }); n != 0 {
			t.Errorf("%s: Lookup allocates %v times", name, n)
		}
	}
}

// FuzzLookup: on a vocabulary made of the input's tokens, Lookup never
// panics, finds each token at the lowest ID that has its bytes, and
// agrees with a map on a probe.
func FuzzLookup(f *testing.F) {
	f.Add([]byte("a\x00b\x00a\x00"), []byte("a"))
	f.Add([]byte("\x00\x00hello"), []byte(""))
	f.Add([]byte("x"), []byte("y"))
	f.Fuzz(func(t *testing.T, toks, probe []byte) {
		var file []byte
		id := 0
		for tok := range splitZero(toks) {
			file = base64.StdEncoding.AppendEncode(file, tok)
			file = append(append(file, ' '), strconv.Itoa(id)+"\n"...)
			id++
		}
		v, err := ParseTiktoken(file, nil)
		if err != nil {
			return // empty tokens past the first, say: not this target's concern
		}
		m := mapLookup(v)
		for _, p := range append(collect(splitZero(toks)), probe) {
			want, wok := m[string(p)]
			got, ok := v.Lookup(p)
			if ok != wok || got != want {
				t.Fatalf("Lookup(%q) = %d, %v; map says %d, %v", p, got, ok, want, wok)
			}
		}
	})
}

// splitZero yields b's pieces between 0 bytes.
func splitZero(b []byte) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(b) > 0 {
			i := 0
			for i < len(b) && b[i] != 0 {
				i++
			}
			if !yield(b[:i]) {
				return
			}
			b = b[min(i+1, len(b)):]
		}
	}
}

func collect(seq func(func([]byte) bool)) [][]byte {
	var out [][]byte
	for b := range seq {
		out = append(out, b)
	}
	return out
}

// BenchmarkLookup looks up o200k_base's tokens in a random order, with the
// index and with a map[string]uint32, the baseline a user would write.
func BenchmarkLookup(b *testing.B) {
	v := loadTestTiktoken(b, "o200k_base")
	var toks [][]byte
	for id := range uint32(v.Len()) {
		if t, ok := v.Bytes(id); ok {
			toks = append(toks, t)
		}
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(toks), func(i, j int) { toks[i], toks[j] = toks[j], toks[i] })
	v.Lookup(toks[0])
	m := mapLookup(v)
	b.Run("index", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, ok := v.Lookup(toks[i]); !ok {
				b.Fatal("not found")
			}
			i = (i + 1) % len(toks)
		}
	})
	b.Run("map", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, ok := m[string(toks[i])]; !ok {
				b.Fatal("not found")
			}
			i = (i + 1) % len(toks)
		}
	})
}

// BenchmarkLookupMemory builds the index and the map of o200k_base and
// reports what each holds (bytes-held, from the heap) and costs to build.
func BenchmarkLookupMemory(b *testing.B) {
	v := loadTestTiktoken(b, "o200k_base")
	held := func(build func() any) float64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		x := build()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(x)
		return float64(after.HeapAlloc) - float64(before.HeapAlloc)
	}
	b.Run("index", func(b *testing.B) {
		var n float64
		for b.Loop() {
			w := &Vocabulary{kind: v.kind, tab: v.tab, data: v.data, bos: -1, sum: new(summary)}
			n = held(func() any { w.Lookup(nil); return w.sum })
		}
		b.ReportMetric(n, "bytes-held")
	})
	b.Run("map", func(b *testing.B) {
		var n float64
		for b.Loop() {
			n = held(func() any { return mapLookup(v) })
		}
		b.ReportMetric(n, "bytes-held")
	})
}

// BenchmarkLookupBuild is the first Lookup's cost for o200k_base: building
// the index, against filling the map.
func BenchmarkLookupBuild(b *testing.B) {
	v := loadTestTiktoken(b, "o200k_base")
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			w := &Vocabulary{kind: v.kind, tab: v.tab, data: v.data, bos: -1, sum: new(summary)}
			w.Lookup(nil)
		}
	})
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			mapLookup(v)
		}
	})
}
