package deflate

// This file writes the block of dynamic Huffman codes (RFC 1951 §3.2.7)
// that AppendBlock chooses when it is smaller than fixed codes: codes built
// from the block's counts of symbols, and the header that tells them.

import (
	"math/bits"
	"slices"
)

const (
	numLit  = 286 // literal/length symbols
	numDist = 30  // distance symbols
	numCL   = 19  // code length symbols
)

// blockFreq counts a block's symbols.
type blockFreq struct {
	lit  [numLit]int32
	dist [numDist]int32
}

// clOrder is the order of the code length code's lengths in the header.
var clOrder = [numCL]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynTables holds a block's dynamic codes, their codes bit-reversed for
// the LSB-first stream, and the header that describes them.
type dynTables struct {
	litLen   [numLit]uint8
	distLen  [numDist]uint8
	litCode  [numLit]uint16
	distCode [numDist]uint16
	clLen    [numCL]uint8
	clCode   [numCL]uint16
	nlit     int
	ndist    int
	nclen    int
	rle      [numLit + numDist]uint8 // the code lengths run-length coded: symbols 0–18
	rleExtra [numLit + numDist]uint8 // and their extra bits
	nrle     int
}

// build makes the codes for f's counts, which it may raise to have two
// symbols of each code at least, and returns the size in bits of the block
// they code: header, symbols, extra bits, end of block.
func (t *dynTables) build(f *blockFreq) int {
	atLeastTwo(f.lit[:])
	atLeastTwo(f.dist[:])
	huffLengths(f.lit[:], t.litLen[:], 15)
	huffLengths(f.dist[:], t.distLen[:], 15)
	canonical(t.litLen[:], t.litCode[:])
	canonical(t.distLen[:], t.distCode[:])
	t.nlit = numLit
	for t.nlit > 257 && t.litLen[t.nlit-1] == 0 {
		t.nlit--
	}
	t.ndist = numDist
	for t.ndist > 1 && t.distLen[t.ndist-1] == 0 {
		t.ndist--
	}
	// The code lengths, literal/length then distance, as one sequence.
	var lens [numLit + numDist]uint8
	n := copy(lens[:], t.litLen[:t.nlit])
	n += copy(lens[n:], t.distLen[:t.ndist])
	var clFreq [numCL]int32
	t.nrle = 0
	emit := func(sym, extra uint8) {
		t.rle[t.nrle], t.rleExtra[t.nrle] = sym, extra
		t.nrle++
		clFreq[sym]++
	}
	for i := 0; i < n; {
		v := lens[i]
		run := 1
		for i+run < n && lens[i+run] == v {
			run++
		}
		i += run
		if v == 0 {
			for run >= 11 {
				r := min(run, 138)
				emit(18, uint8(r-11))
				run -= r
			}
			if run >= 3 {
				emit(17, uint8(run-3))
				run = 0
			}
		} else {
			emit(v, 0)
			run--
			for run >= 3 {
				r := min(run, 6)
				emit(16, uint8(r-3))
				run -= r
			}
		}
		for ; run > 0; run-- {
			emit(v, 0)
		}
	}
	huffLengths(clFreq[:], t.clLen[:], 7)
	canonical(t.clLen[:], t.clCode[:])
	t.nclen = numCL
	for t.nclen > 4 && t.clLen[clOrder[t.nclen-1]] == 0 {
		t.nclen--
	}
	size := 3 + 5 + 5 + 4 + 3*t.nclen
	for s, c := range clFreq {
		size += int(c) * int(t.clLen[s])
	}
	size += int(clFreq[16])*2 + int(clFreq[17])*3 + int(clFreq[18])*7
	for s, c := range f.lit {
		size += int(c) * int(t.litLen[s])
	}
	for l, c := range f.lit[257:] {
		size += int(c) * int(lengthExtra[l])
	}
	for d, c := range f.dist {
		size += int(c) * (int(t.distLen[d]) + int(distExtra[d]))
	}
	return size
}

// atLeastTwo gives two symbols a count of 1 if fewer than two have one:
// a code of one symbol, or none, is incomplete, which some inflaters
// refuse.
func atLeastTwo(freq []int32) {
	used := 0
	for _, c := range freq {
		if c > 0 {
			used++
		}
	}
	for s := 0; used < 2; s++ {
		if freq[s] == 0 {
			freq[s] = 1
			used++
		}
	}
}

// huffLengths sets lens to the lengths of a Huffman code for freq of at most
// limit bits (0 for a symbol of count 0), halving the counts until the
// code fits.
func huffLengths(freq []int32, lens []uint8, limit int) {
	var keys [numLit]uint64 // count << 16 | symbol, ascending
	n := 0
	for s, c := range freq {
		lens[s] = 0
		if c > 0 {
			keys[n] = uint64(c)<<16 | uint64(s)
			n++
		}
	}
	slices.Sort(keys[:n])
	var a [numLit]int32
	for shift := 0; ; shift++ {
		for i, k := range keys[:n] {
			a[i] = int32(max(1, (k>>16)>>shift))
		}
		minRedundancy(a[:n])
		if int(a[0]) <= limit {
			break
		}
	}
	for i, k := range keys[:n] {
		lens[uint16(k)] = uint8(a[i])
	}
}

// minRedundancy replaces the counts in a, ascending, with the lengths of a
// Huffman code for them, in place (Moffat and Katajainen, 1995).
func minRedundancy(a []int32) {
	n := len(a)
	if n == 1 {
		a[0] = 1
		return
	}
	a[0] += a[1]
	root, leaf := 0, 2
	for next := 1; next < n-1; next++ {
		if leaf >= n || a[root] < a[leaf] {
			a[next] = a[root]
			a[root] = int32(next)
			root++
		} else {
			a[next] = a[leaf]
			leaf++
		}
		if leaf >= n || (root < next && a[root] < a[leaf]) {
			a[next] += a[root]
			a[root] = int32(next)
			root++
		} else {
			a[next] += a[leaf]
			leaf++
		}
	}
	a[n-2] = 0
	for next := n - 3; next >= 0; next-- {
		a[next] = a[a[next]] + 1
	}
	avbl, used, depth := 1, 0, int32(0)
	root, next := n-2, n-1
	for avbl > 0 {
		for root >= 0 && a[root] == depth {
			used++
			root--
		}
		for avbl > used {
			a[next] = depth
			next--
			avbl--
		}
		avbl = 2 * used
		depth++
		used = 0
	}
}

// canonical sets codes to the canonical Huffman codes of lens (§3.2.2),
// bit-reversed.
func canonical(lens []uint8, codes []uint16) {
	var count [16]uint16
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [16]uint16
	code := uint16(0)
	for l := 1; l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	for s, l := range lens {
		if l != 0 {
			codes[s] = bits.Reverse16(next[l]) >> (16 - l)
			next[l]++
		}
	}
}

// writeHeader writes the header of a final block of these codes.
func (t *dynTables) writeHeader(w *bitWriter) {
	w.Bits(1|2<<1, 3)
	w.Bits(uint64(t.nlit-257)|uint64(t.ndist-1)<<5|uint64(t.nclen-4)<<10, 14)
	for _, s := range clOrder[:t.nclen] {
		w.Bits(uint64(t.clLen[s]), 3)
	}
	for i, s := range t.rle[:t.nrle] {
		w.Bits(uint64(t.clCode[s]), uint(t.clLen[s]))
		switch s {
		case 16:
			w.Bits(uint64(t.rleExtra[i]), 2)
		case 17:
			w.Bits(uint64(t.rleExtra[i]), 3)
		case 18:
			w.Bits(uint64(t.rleExtra[i]), 7)
		}
	}
}
