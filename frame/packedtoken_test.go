package frame

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestPackedTokenRoundTrip: any IDs, in any batches, written by one
// TokenEncoder as a stream's PACKED_TOKEN frames, read back by a Reader and
// one TokenDecoder as the same IDs, batch for batch (SPEC.md §3.1.1); each
// frame's TokenCount is its batch's size, and a new stream after Reset
// reads alike.
func TestPackedTokenRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// IDs drawn from a small pool repeat, as text's tokens do; wide ones
		// reach every code length.
		pool := rapid.SliceOfN(rapid.OneOf(rapid.Uint32Range(0, 300), rapid.Uint32()), 1, 200).Draw(t, "pool")
		batches := rapid.SliceOfN(rapid.SliceOfN(rapid.SampledFrom(pool), 1, 40), 1, 20).Draw(t, "batches")
		var e TokenEncoder
		for range 2 {
			b := AppendMagic(nil)
			for _, ids := range batches {
				b = e.AppendPackedToken(b, ids...)
			}
			b = AppendDone(b, StopEndTurn, "")
			r := NewReader(bytes.NewReader(b), ReaderOptions{})
			var d TokenDecoder
			var got [][]uint32
			for {
				f, err := r.Next()
				if err != nil {
					t.Fatalf("Next: %v", err)
				}
				if f.Type == TypeDone {
					break
				}
				ids, err := d.Tokens(nil, f)
				if err != nil {
					t.Fatalf("Tokens: %v", err)
				}
				if f.TokenCount() != len(ids) {
					t.Fatalf("TokenCount %d, IDs %d", f.TokenCount(), len(ids))
				}
				got = append(got, ids)
			}
			if d := cmp.Diff(batches, got); d != "" {
				t.Fatalf("IDs (-want +got):\n%s", d)
			}
			e.Reset()
		}
	})
}

// TestPackedTokenRecent: an ID the list holds costs 7 bits (a flag and its
// place), so 16 IDs of text that repeat take less than TOKEN's 35 bytes,
// and a frame of 64 IDs the list holds takes 56 bytes of codes.
func TestPackedTokenRecent(t *testing.T) {
	var e TokenEncoder
	ids := make([]uint32, RecentTokens)
	for i := range ids {
		ids[i] = uint32(100_000 + 7*i)
	}
	e.AppendPackedToken(nil, ids...)
	b := e.AppendPackedToken(nil, ids...)
	if want := HeaderSize + 1 + RecentTokens*7/8; len(b) != want {
		t.Fatalf("64 recent IDs in %d bytes, want %d", len(b), want)
	}
	// A 65th ID pushes the oldest out: it is new again.
	e.AppendPackedToken(nil, 5)
	if b := e.AppendPackedToken(nil, ids[0]); len(b) == HeaderSize+2 {
		t.Fatalf("the ID the list dropped was sent as a recent one")
	}
}

// TestPackedTokenErrors: each fault of SPEC.md §3.1.1 is ErrMalformed at
// its byte, from a Reader and from a TokenDecoder, which read the codes;
// Parse sees only the padding, which needs no walk through them.
func TestPackedTokenErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		payload []byte
		at      int64 // within the payload
		detail  string
		parse   bool // Parse sees it
	}{
		{"padding", []byte{0x01, 0xC1}, 1, "padding bits not zero", true},
		{"place-cut", []byte{0x03, 0xC0}, 1, "ends inside a recent ID's place", false},
		{"place-past-list", []byte{0x01, 0x80}, 1, "recent ID 0, the list holds 0", false},
		{"code-cut", []byte{0x00, 0x00}, 1, "ends inside an ID's code", false},
		{"code-long", []byte{0x00, 0, 0, 0, 0, 0x01, 0xFF}, 1, "longer than 32 bits", false},
		{"past-2^32", []byte{0xFD, 0x30, 0, 0, 0, 0}, 1, "past 2^32-1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			frame := appendHeader(nil, TypePackedToken, len(c.payload))
			frame = append(frame, c.payload...)
			_, _, perr := Parse(frame)
			if c.parse != (perr != nil) {
				t.Fatalf("Parse: %v, want an error %v", perr, c.parse)
			}
			stream := AppendDone(append(AppendMagic(nil), frame...), 0, "")
			_, err := readAll(NewReader(bytes.NewReader(stream), ReaderOptions{}))
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrMalformed) || e.Offset != int64(len(Magic)+HeaderSize)+c.at || !strings.Contains(e.Detail, c.detail) {
				t.Fatalf("Reader: %v, want ErrMalformed at %d: %s", err, int64(len(Magic)+HeaderSize)+c.at, c.detail)
			}
			var d TokenDecoder
			ids, err := d.Tokens([]uint32{9}, Frame{TypePackedToken, c.payload})
			if !errors.As(err, &e) || !errors.Is(err, ErrMalformed) || e.Offset != c.at || len(ids) != 1 {
				t.Fatalf("TokenDecoder: %v, %v; want ErrMalformed at %d and dst unchanged", ids, err, c.at)
			}
		})
	}
	if _, err := (Frame{TypePackedToken, []byte{0x00, 0x40}}).Tokens(nil); !errors.Is(err, ErrWrongType) {
		t.Errorf("Frame.Tokens of a PACKED_TOKEN frame: %v, want ErrWrongType", err)
	}
}

// TestPackedTokenPlaceEdge: with the list holding 0, 1, 62, 63 or 64 IDs,
// its last place reads and the one past it is a fault, to a Reader and to a
// TokenDecoder, whichever of their paths reads it.
func TestPackedTokenPlaceEdge(t *testing.T) {
	for _, have := range []int{0, 1, 62, 63, 64} {
		for _, place := range []int{have - 1, have} {
			if place < 0 || place >= RecentTokens {
				continue
			}
			var e TokenEncoder
			var d TokenDecoder
			var list []uint32
			stream := AppendMagic(nil)
			for i := range have {
				b := e.AppendPackedToken(nil, uint32(1000+i))
				f, _, _ := Parse(b)
				d.Tokens(nil, f)
				stream = append(stream, b...)
				list = referencePacked(list, uint32(1000+i))
			}
			// The place, a new ID (2), the place again: each of the readers'
			// paths, in a frame of 3 codes.
			p := bitPayload(0, fmt.Sprintf("1%06b00111%06b", place, place))
			stream = AppendDone(append(append(stream, byte(TypePackedToken), 0, byte(len(p))), p...), 0, "")
			_, rerr := readAll(NewReader(bytes.NewReader(stream), ReaderOptions{}))
			ids, derr := d.Tokens(nil, Frame{TypePackedToken, p})
			want, _, _, _, ok := readPackedBits(p, list)
			if ok != (place < have) {
				t.Fatalf("list of %d, place %d: the reference says ok %v", have, place, ok)
			}
			if ok {
				if rerr != nil || derr != nil || !cmp.Equal(ids, want) {
					t.Errorf("list of %d, place %d: Reader %v, TokenDecoder %v %v; want %v", have, place, rerr, ids, derr, want)
				}
				continue
			}
			if !errors.Is(rerr, ErrMalformed) || !errors.Is(derr, ErrMalformed) {
				t.Errorf("list of %d, place %d: Reader %v, TokenDecoder %v; want ErrMalformed", have, place, rerr, derr)
			}
		}
	}
}

// TestPackedTokenReference: a TokenDecoder and a Reader's scan, which read
// 8 bytes at a time, agree with SPEC.md §3.1.1 read literally, a bit at a
// time, on any payload: the same IDs and list, or a fault at the same byte,
// after any IDs before.
func TestPackedTokenReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		before := rapid.SliceOfN(rapid.Uint32Range(0, 1000), 0, 80).Draw(t, "before")
		// Mostly codes a sender writes, then bytes of any kind.
		ids := rapid.SliceOfN(rapid.OneOf(rapid.Uint32Range(0, 1000), rapid.Uint32()), 1, 60).Draw(t, "ids")
		var e TokenEncoder
		var d TokenDecoder
		var list []uint32
		for _, id := range before {
			f, _, _ := Parse(e.AppendPackedToken(nil, id))
			if _, err := d.Tokens(nil, f); err != nil {
				t.Fatal(err)
			}
			_, list, _, _, _ = readPackedBits(f.Payload, list)
		}
		p := e.AppendPackedToken(nil, ids...)[HeaderSize:]
		p = append(p[:rapid.IntRange(2, len(p)).Draw(t, "cut")], rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "tail")...)
		if rapid.Bool().Draw(t, "order") {
			p[0] = rapid.Byte().Draw(t, "header")
		}
		if rapid.IntRange(0, 2).Draw(t, "zero run") == 0 {
			// One code with 28 to 40 zeros after its flag, around the 32 it
			// may have, then bits of any kind.
			bits := strings.Repeat("0", 1+rapid.IntRange(28, 40).Draw(t, "zeros")) + "1"
			for _, b := range rapid.SliceOfN(rapid.Bool(), 0, 140).Draw(t, "bits") {
				bits += map[bool]string{false: "0", true: "1"}[b]
			}
			p = bitPayload(rapid.IntRange(0, maxOrder).Draw(t, "k"), bits)
		}
		want, wantList, wantAt, wantDetail, wantOK := readPackedBits(p, list)

		got, err := d.Tokens(nil, Frame{TypePackedToken, p})
		var fe *Error
		if wantOK != (err == nil) || (err != nil && (!errors.As(err, &fe) || fe.Offset != int64(wantAt) || fe.Detail != wantDetail)) {
			t.Fatalf("TokenDecoder: %v; the reference: ok %v at %d: %s", err, wantOK, wantAt, wantDetail)
		}
		if wantOK && !cmp.Equal(got, want) {
			t.Fatalf("TokenDecoder: %v; the reference %v", got, want)
		}
		if wantOK && !cmp.Equal(d.l.list(), wantList) {
			t.Fatalf("list after: %v; the reference %v", d.l.list(), wantList)
		}
		_, after, at, detail, ok := scanPacked(p, len(list))
		if ok != wantOK || !ok && (at != wantAt || detail != wantDetail) || ok && after != len(wantList) {
			t.Fatalf("scanPacked: ok %v at %d, %d IDs after; the reference: ok %v at %d, %d IDs", ok, at, after, wantOK, wantAt, len(wantList))
		}
	})
}

// list returns the IDs in order, most recent first.
func (l *recent) list() []uint32 { return append([]uint32{}, l.ids[:l.n]...) }

// referencePacked moves or puts id in front of list, which holds at most
// RecentTokens IDs.
func referencePacked(list []uint32, id uint32) []uint32 {
	list = slices.Insert(list, 0, id)
	return list[:min(len(list), RecentTokens)]
}

// readPackedBits reads a PACKED_TOKEN payload as SPEC.md §3.1.1 words it,
// a bit at a time, with list as the frames before leave it.
func readPackedBits(p []byte, list []uint32) (ids, after []uint32, at int, detail string, ok bool) {
	list = slices.Clone(list)
	k, pad := int(p[0]>>3), int(p[0]&7)
	end := 8*len(p) - pad
	if p[len(p)-1]&(1<<pad-1) != 0 {
		return nil, nil, len(p) - 1, "padding bits not zero", false
	}
	bit := func(i int) uint64 { return uint64(p[i/8] >> (7 - i%8) & 1) }
	read := func(i, n int) uint64 {
		var v uint64
		for j := range n {
			v = v<<1 | bit(i+j)
		}
		return v
	}
	for i := 8; i < end; {
		if bit(i) == 1 {
			if i+7 > end {
				return nil, nil, i / 8, "the payload ends inside a recent ID's place", false
			}
			if int(read(i+1, 6)) >= len(list) {
				return nil, nil, i / 8, fmt.Sprintf("recent ID %d, the list holds %d", read(i+1, 6), len(list)), false
			}
			id := list[read(i+1, 6)]
			list = referencePacked(slices.Delete(list, int(read(i+1, 6)), int(read(i+1, 6))+1), id)
			ids = append(ids, id)
			i += 7
			continue
		}
		z := 0
		for i+1+z < end && bit(i+1+z) == 0 {
			z++
		}
		if z > 32 {
			return nil, nil, i / 8, "an ID's code longer than 32 bits", false
		}
		if i+2+2*z+k > end {
			return nil, nil, i / 8, "the payload ends inside an ID's code", false
		}
		id := (read(i+1+z, z+1)-1)<<k | read(i+2+2*z, k)
		if id >= 1<<32 {
			return nil, nil, i / 8, "an ID past 2^32-1", false
		}
		list = referencePacked(list, uint32(id))
		ids = append(ids, uint32(id))
		i += 2 + 2*z + k
	}
	return ids, list, 0, "", true
}

// bitPayload is a PACKED_TOKEN payload of order k whose codes are bits, a
// string of 0s and 1s, padded with zeros.
func bitPayload(k int, bits string) []byte {
	pad := -len(bits) & 7
	bits += strings.Repeat("0", pad)
	p := []byte{byte(k<<3 | pad)}
	for i := 0; i < len(bits); i += 8 {
		v, _ := strconv.ParseUint(bits[i:i+8], 2, 8)
		p = append(p, byte(v))
	}
	return p
}

// TestPackedTokenBudget: SPEC.md §12's bound, at most 4 IDs (16 bytes of
// them) per payload byte, met by the densest frame there is, ID 0 in
// order-0 codes of 2 bits.
func TestPackedTokenBudget(t *testing.T) {
	p := make([]byte, MaxPayload)
	for i := 1; i < len(p); i++ {
		p[i] = 0x55 // 01 01 01 01: four new IDs 0
	}
	var d TokenDecoder
	ids, err := d.Tokens(nil, Frame{TypePackedToken, p})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 4*(len(p)-1) || len(ids) > 4*len(p) {
		t.Fatalf("%d IDs from %d bytes", len(ids), len(p))
	}
}

// TestPackedTokenAllocs: steady state, writing and reading a frame
// allocates nothing.
func TestPackedTokenAllocs(t *testing.T) {
	ids := []uint32{1, 200, 70000, 1, 13, 200, 5, 100276, 1, 9, 9, 9, 40000, 2, 3, 1}
	var e TokenEncoder
	var d TokenDecoder
	b := make([]byte, 0, 256)
	dst := make([]uint32, 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		b = e.AppendPackedToken(b[:0], ids...)
		f, _, _ := Parse(b)
		dst, _ = d.Tokens(dst[:0], f)
	}); n != 0 {
		t.Fatalf("%v allocations a frame", n)
	}
}
