package vocab

import (
	"hash/maphash"
	"math/bits"
	"sync"
)

// Lookup returns the ID of the ordinary token whose bytes are b, the
// reverse of Bytes: a gateway that holds a model's vocabulary turns the
// bytes an API reports for each token (OpenAI's logprobs "bytes") into the
// token's ID (SPEC.md §3.14). A special token never matches (its bytes are
// its name, not text), nor do bytes no single token has.
//
// Only a byte-level vocabulary answers; a SentencePiece one returns false
// for every b: its bytes do not name one token (a byte piece "<0x41>" and a
// piece "A" both stand for "A", and the piece after BOS drops a leading
// space), so an ID read back from bytes could be one the model did not
// produce.
//
// Two ordinary tokens with the same bytes (tiktoken refuses such a file; a
// Hugging Face tokenizer.json may repeat a token as an added one) give the
// lower ID, the one rank order puts first.
//
// The first call builds an index of the ordinary tokens, once, shared by
// Named copies and safe for concurrent use: an open-addressing table of
// one uint32 a slot, at least two slots a token (a power of two), keyed by
// a hash of the bytes and checked against the vocabulary's own bytes, so
// it holds no second copy of them. For o200k_base that is 2 MiB (524,288
// slots; cl100k_base 1 MiB) built in about 10 ms, against 8.7 MB and about
// 35 ms for a map[string]uint32 of the same tokens (BenchmarkLookupMemory,
// BenchmarkLookupBuild); a lookup then costs one hash and about 1.3
// compares, with no allocation: about 60 ns against the map's 110 in a
// random order (BenchmarkLookup). A Vocabulary built by hand,
// with no room for the index, scans its tokens on every call.
func (v *Vocabulary) Lookup(b []byte) (id uint32, ok bool) {
	if v.kind != ByteLevel {
		return 0, false
	}
	if v.sum == nil {
		return v.scan(b)
	}
	t := &v.sum.lookup
	t.once.Do(func() { t.build(v) })
	return t.find(v, b)
}

// lookupTable is Lookup's index: slots hold ID+1 of an ordinary token, 0
// for an empty slot; a token sits at the first empty slot from its hash's,
// in order (linear probing). At most half the slots are full, so a search
// reaches an empty slot and ends.
type lookupTable struct {
	once  sync.Once
	seed  maphash.Seed
	slots []uint32
	mask  uint64
}

// build indexes v's ordinary tokens by ascending ID, keeping the lowest ID
// of bytes that repeat.
func (t *lookupTable) build(v *Vocabulary) {
	n := 0
	for _, e := range v.tab {
		if e.flag == ordinary {
			n++
		}
	}
	size := 1 << bits.Len(uint(2*n)) // > 2n: load below one half
	t.seed = maphash.MakeSeed()
	t.slots = make([]uint32, size)
	t.mask = uint64(size - 1)
	for id, e := range v.tab {
		if e.flag != ordinary {
			continue
		}
		b := v.data[e.off : e.off+uint32(e.n)]
		i := maphash.Bytes(t.seed, b) & t.mask
		for ; t.slots[i] != 0; i = (i + 1) & t.mask {
			if v.equal(t.slots[i]-1, b) {
				break // the bytes of a lower ID: it keeps them
			}
		}
		if t.slots[i] == 0 {
			t.slots[i] = uint32(id) + 1
		}
	}
}

// find searches t for b.
func (t *lookupTable) find(v *Vocabulary, b []byte) (uint32, bool) {
	for i := maphash.Bytes(t.seed, b) & t.mask; t.slots[i] != 0; i = (i + 1) & t.mask {
		if id := t.slots[i] - 1; v.equal(id, b) {
			return id, true
		}
	}
	return 0, false
}

// equal reports whether the ordinary token id's bytes are b.
func (v *Vocabulary) equal(id uint32, b []byte) bool {
	e := v.tab[id]
	return int(e.n) == len(b) && string(v.data[e.off:e.off+uint32(e.n)]) == string(b)
}

// scan is Lookup without an index: the lowest ordinary ID with bytes b.
func (v *Vocabulary) scan(b []byte) (uint32, bool) {
	for id, e := range v.tab {
		if e.flag == ordinary && v.equal(uint32(id), b) {
			return uint32(id), true
		}
	}
	return 0, false
}
