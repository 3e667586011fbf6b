package frame

import (
	"bytes"
	"errors"
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
// its byte, from Parse (layout), from a Reader (a place past the list's
// IDs, known only from the frames before) and from a TokenDecoder.
func TestPackedTokenErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		payload []byte
		at      int64 // within the payload
		detail  string
		layout  bool // Parse sees it; else only the list's state does
	}{
		{"padding", []byte{0x01, 0xC1}, 1, "padding bits not zero", true},
		{"place-cut", []byte{0x03, 0xC0}, 1, "ends inside a recent ID's place", true},
		{"place-past-list", []byte{0x01, 0x80}, 1, "recent ID 0, the list holds 0", false},
		{"code-cut", []byte{0x00, 0x00}, 1, "ends inside an ID's code", true},
		{"code-long", []byte{0x00, 0, 0, 0, 0, 0x01, 0xFF}, 1, "longer than 32 bits", true},
		{"past-2^32", []byte{0xFD, 0x30, 0, 0, 0, 0}, 1, "past 2^32-1", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			frame := appendHeader(nil, TypePackedToken, len(c.payload))
			frame = append(frame, c.payload...)
			_, _, perr := Parse(frame)
			if c.layout != (perr != nil) {
				t.Fatalf("Parse: %v, want an error %v", perr, c.layout)
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
