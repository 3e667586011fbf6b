package kvdelta

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/tiling"
)

// vectorSnapshot builds a snapshot of SPEC.md §10.6's vectors: 1 layer, 1
// KV head, head_dim 2, bf16, 2-token tiles, nhd; element d of token p is
// the bf16 of (p+1) + d/2 in K and of -((p+1) + d/2) in V; the unused row
// of a partial tile is zero.
func vectorSnapshot(tokens int) *Snapshot {
	g := tiling.Geometry{Layers: 1, KVHeads: 1, HeadDim: 2, DType: tiling.BF16, TileShift: 1, Order: tiling.NHD}
	s := &Snapshot{Geometry: g, Tokens: tokens, Data: make([]byte, g.Layout().Tiles(tokens)*g.TileBytes())}
	for p := range tokens {
		tile, off := g.Layout().Tile(p)
		for kv, sign := range []float32{1, -1} {
			for d := range 2 {
				v := BF16(sign * (float32(p+1) + float32(d)/2))
				binary.LittleEndian.PutUint16(s.Data[g.Offset(0, kv, 0, tile, off, d):], v)
			}
		}
	}
	return s
}

// specVector is a row of SPEC.md §10.6's table.
type specVector struct {
	name   string
	kind   string // "valid", or the error's name
	offset int64
	bytes  []byte
}

var kvVectorRow = regexp.MustCompile("^\\| `(ankv-[a-z0-9-]+)` \\| (valid|Err[A-Za-z]+) \\| ([0-9]+|—) \\| `([0-9A-F ]+)` \\|$")

// readSpecVectors reads SPEC.md §10.6, so that the document and the code
// cannot drift apart.
func readSpecVectors(t *testing.T) []specVector {
	t.Helper()
	var vs []specVector
	for _, m := range testdata.SpecRows(t, "10.6", kvVectorRow) {
		v := specVector{name: m[1], kind: m[2], bytes: testdata.Hex(t, m[4]), offset: -1}
		if m[3] != "—" {
			v.offset, _ = strconv.ParseInt(m[3], 10, 64)
		}
		vs = append(vs, v)
	}
	if len(vs) < 6 {
		t.Fatalf("found %d vectors in SPEC.md §10.6, want them all", len(vs))
	}
	return vs
}

var kinds = map[string]error{
	"ErrMalformed": ErrMalformed, "ErrTruncated": ErrTruncated, "ErrChecksum": ErrChecksum,
	"ErrBase": ErrBase, "ErrTooLarge": ErrTooLarge,
}

// TestSpecVectors: the encoder writes §10.6's valid vector byte for byte,
// it applies to the snapshot the spec describes, and each invalid vector
// fails with the kind, at the offset, the spec gives.
func TestSpecVectors(t *testing.T) {
	base, next := vectorSnapshot(3), vectorSnapshot(6)
	for _, v := range readSpecVectors(t) {
		if v.kind == "valid" {
			got, err := NewEncoder(Options{}).Encode(nil, base, next)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(v.bytes, got); d != "" {
				t.Errorf("%s: Encode differs from SPEC.md (-spec +encoder):\n%s\n%s", v.name, d, strings.ToUpper(hex.EncodeToString(got)))
			}
			s, err := Apply(base, v.bytes)
			if err != nil || !Equal(s, next) {
				t.Errorf("%s: Apply: %v", v.name, err)
			}
			continue
		}
		_, err := NewDecoder(Limits{MaxBytes: math.MaxInt64}).Apply(base, v.bytes)
		var e *Error
		if !errors.Is(err, kinds[v.kind]) || !errors.As(err, &e) || e.Offset != v.offset {
			t.Errorf("%s: %v, want %s at offset %d", v.name, err, v.kind, v.offset)
		}
	}
}
