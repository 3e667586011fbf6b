package tiling

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"pgregory.net/rapid"
)

// poolModel is the obvious implementation: a map of reference counts.
type poolModel struct {
	size int
	refs map[TileID]int
}

// TestPoolStateMachine drives a Pool and its tables with random operations,
// bad ones included, and checks it against the model after every step.
func TestPoolStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.IntRange(2, 40).Draw(t, "size")
		l := Layout{TileShift: uint8(rapid.IntRange(0, 3).Draw(t, "shift"))}
		p, err := NewPool(size)
		if err != nil {
			t.Fatal(err)
		}
		m := poolModel{size: size, refs: map[TileID]int{}}
		var held []TileID // references taken by Alloc/Retain, not tables
		var tables []*Table

		anyID := rapid.Custom(func(t *rapid.T) TileID {
			return TileID(rapid.IntRange(0, size+2).Draw(t, "id"))
		})

		t.Repeat(map[string]func(*rapid.T){
			"alloc": func(t *rapid.T) {
				n := rapid.IntRange(-1, size).Draw(t, "n")
				free := size - 1 - len(m.refs)
				got, err := p.Alloc(nil, n)
				switch {
				case n < 0:
					if !errors.Is(err, ErrRange) || len(got) != 0 {
						t.Fatalf("Alloc(%d): %v", n, err)
					}
				case n > free:
					if !errors.Is(err, ErrExhausted) || len(got) != 0 {
						t.Fatalf("Alloc(%d) with %d free: %v, %d tiles", n, free, err, len(got))
					}
				default:
					if err != nil || len(got) != n {
						t.Fatalf("Alloc(%d): %v, %d tiles", n, err, len(got))
					}
					for _, id := range got {
						if id == Null || m.refs[id] != 0 {
							t.Fatalf("Alloc handed out tile %d (refs %d)", id, m.refs[id])
						}
						m.refs[id] = 1
					}
					held = append(held, got...)
				}
			},
			"free": func(t *rapid.T) {
				// A few of our references, maybe a bad ID, maybe a repeat.
				var ids []TileID
				mine := append([]TileID(nil), held...) // each reference at most once
				for range rapid.IntRange(0, 3).Draw(t, "k") {
					if len(mine) > 0 && rapid.Bool().Draw(t, "own") {
						i := rapid.IntRange(0, len(mine)-1).Draw(t, "i")
						ids = append(ids, mine[i])
						mine = append(mine[:i], mine[i+1:]...)
					} else if id := anyID.Draw(t, "bad"); m.refs[id] == 0 {
						// Only IDs nobody holds: freeing a table's tile
						// behind its back is a caller bug no pool can see.
						ids = append(ids, id)
					}
				}
				want := modelFree(m.refs, ids)
				err := p.Free(ids...)
				if (err == nil) != want {
					t.Fatalf("Free(%v): %v, model says ok=%v", ids, err, want)
				}
				if err == nil {
					for _, id := range ids {
						if m.refs[id]--; m.refs[id] == 0 {
							delete(m.refs, id)
						}
						held = removeOne(held, id)
					}
				}
			},
			"retain": func(t *rapid.T) {
				// Several IDs, maybe repeated, maybe one bad: all or nothing
				// (checkPool compares every count with the model after).
				ids := rapid.SliceOfN(anyID, 1, 4).Draw(t, "ids")
				ok := true
				for _, id := range ids {
					ok = ok && m.refs[id] > 0
				}
				err := p.Retain(ids...)
				if (err == nil) != ok {
					t.Fatalf("Retain(%v): %v with model refs %v", ids, err, m.refs)
				}
				if err == nil {
					for _, id := range ids {
						m.refs[id]++
						held = append(held, id)
					}
				}
			},
			"grow": func(t *rapid.T) {
				if len(tables) == 0 || rapid.Bool().Draw(t, "new") {
					tables = append(tables, NewTable(l))
				}
				tb := tables[rapid.IntRange(0, len(tables)-1).Draw(t, "table")]
				n := rapid.IntRange(0, 3*l.Size()).Draw(t, "n")
				before := append([]TileID(nil), tb.TileIDs()...)
				need := l.Tiles(tb.Len()+n) - len(before)
				err := p.Grow(tb, n)
				if need > size-1-len(m.refs) {
					if !errors.Is(err, ErrExhausted) || len(tb.TileIDs()) != len(before) {
						t.Fatalf("Grow past the pool: %v", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Grow(%d): %v", n, err)
				}
				for _, id := range tb.TileIDs()[len(before):] {
					m.refs[id] = 1
				}
				for i, id := range before {
					if tb.TileIDs()[i] != id {
						t.Fatal("Grow changed existing tiles")
					}
				}
			},
			"share": func(t *rapid.T) {
				if len(tables) == 0 {
					return
				}
				src := tables[rapid.IntRange(0, len(tables)-1).Draw(t, "src")]
				full := src.Len() >> l.TileShift
				k := rapid.IntRange(0, full).Draw(t, "tiles")
				dst := NewTable(l)
				if err := p.Share(dst, src, k<<l.TileShift); err != nil {
					t.Fatalf("Share %d tiles: %v", k, err)
				}
				for _, id := range dst.TileIDs() {
					m.refs[id]++
				}
				tables = append(tables, dst)
			},
			"release": func(t *rapid.T) {
				if len(tables) == 0 {
					return
				}
				i := rapid.IntRange(0, len(tables)-1).Draw(t, "table")
				for _, id := range tables[i].TileIDs() {
					if m.refs[id]--; m.refs[id] == 0 {
						delete(m.refs, id)
					}
				}
				if err := p.Release(tables[i]); err != nil {
					t.Fatal(err)
				}
				tables = append(tables[:i], tables[i+1:]...)
			},
			"": func(t *rapid.T) { checkPool(t, p, m, tables) },
		})
	})
}

// modelFree says whether freeing ids (in order, repeats counting) is valid.
func modelFree(refs map[TileID]int, ids []TileID) bool {
	left := map[TileID]int{}
	for _, id := range ids {
		if _, ok := left[id]; !ok {
			left[id] = refs[id]
		}
		if id == Null || left[id] == 0 {
			return false
		}
		left[id]--
	}
	return true
}

func removeOne(s []TileID, id TileID) []TileID {
	for i, v := range s {
		if v == id {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
}

// checkPool checks the invariants: conservation of tiles, counts equal to
// the model, the null tile never in use, no tile both free and held, and
// every slot of every live table unique unless its tile is shared.
func checkPool(t *rapid.T, p *Pool, m poolModel, tables []*Table) {
	if p.Available()+len(m.refs) != m.size-1 {
		t.Fatalf("%d free + %d in use != %d tiles", p.Available(), len(m.refs), m.size-1)
	}
	for id := TileID(0); int(id) < m.size; id++ {
		if p.Refs(id) != m.refs[id] {
			t.Fatalf("tile %d: %d refs, model %d", id, p.Refs(id), m.refs[id])
		}
	}
	seen := map[TileID]bool{}
	for _, id := range p.free {
		if id == Null || seen[id] || m.refs[id] != 0 {
			t.Fatalf("free list holds tile %d (dup %v, refs %d)", id, seen[id], m.refs[id])
		}
		seen[id] = true
	}
	slots := map[int]int{}
	holders := map[TileID]int{}
	for _, tb := range tables {
		for _, id := range tb.TileIDs() {
			holders[id]++
		}
		for pos := 0; pos < tb.Len(); pos++ {
			slots[tb.Slot(pos)]++
		}
	}
	for slot, n := range slots {
		id := TileID(slot >> tables[0].Layout().TileShift)
		if id == Null || n > holders[id] || holders[id] > m.refs[id] {
			t.Fatalf("slot %d used %d times; tile %d held by %d tables with %d refs", slot, n, id, holders[id], m.refs[id])
		}
	}
}

func TestPoolErrors(t *testing.T) {
	for _, n := range []int{-1, 0, 1, 1 << 31} {
		if _, err := NewPool(n); !errors.Is(err, ErrRange) {
			t.Errorf("NewPool(%d): %v", n, err)
		}
	}
	for _, n := range []int{2, 3, 100} {
		p, err := NewPool(n)
		if err != nil {
			t.Fatalf("NewPool(%d): %v", n, err)
		}
		if p.Tiles() != n-1 || p.Available() != n-1 {
			t.Errorf("NewPool(%d): %d tiles, %d free; want %d of each (the null tile is not one)", n, p.Tiles(), p.Available(), n-1)
		}
	}
	p, _ := NewPool(3)
	ids, _ := p.Alloc(nil, 2)
	for _, c := range []struct {
		ids  []TileID
		kind error
	}{
		{[]TileID{Null}, ErrNullTile},
		{[]TileID{7}, ErrRange},
		{[]TileID{ids[0], ids[0]}, ErrNotAllocated},
	} {
		if err := p.Free(c.ids...); !errors.Is(err, c.kind) {
			t.Errorf("Free(%v): %v, want %v", c.ids, err, c.kind)
		}
	}
	if p.Refs(ids[0]) != 1 || p.Available() != 0 {
		t.Fatal("a failed Free changed the pool")
	}
	if err := p.Free(ids...); err != nil {
		t.Fatal(err)
	}
	var e *Error
	if err := p.Free(ids[1]); !errors.As(err, &e) || e.Value != int64(ids[1]) || e.Op != "Pool.Free" {
		t.Fatalf("double free: %v", err)
	}
}

// TestRetainRollback: a Retain that fails on a later ID, for a bad ID or a
// count at its maximum (repeats counting), leaves every earlier count as it
// was.
func TestRetainRollback(t *testing.T) {
	p, _ := NewPool(8)
	ids, _ := p.Alloc(nil, 3)
	a, b, c := ids[0], ids[1], ids[2]
	p.refs[c] = math.MaxUint32 - 1
	for _, tc := range []struct {
		ids  []TileID
		kind error
	}{
		{[]TileID{a, b, Null}, ErrNullTile},
		{[]TileID{a, a, b, 99}, ErrRange},
		{[]TileID{b, a, 5}, ErrNotAllocated},
		{[]TileID{a, c, b, c}, ErrRange}, // c reaches its maximum, then over
	} {
		before := append([]uint32(nil), p.refs...)
		if err := p.Retain(tc.ids...); !errors.Is(err, tc.kind) {
			t.Errorf("Retain(%v): %v, want %v", tc.ids, err, tc.kind)
		}
		if d := cmp.Diff(before, p.refs); d != "" {
			t.Errorf("Retain(%v) failed and changed counts (-before +after):\n%s", tc.ids, d)
		}
	}
	if err := p.Retain(a, c, a); err != nil || p.Refs(a) != 3 || p.refs[c] != math.MaxUint32 {
		t.Fatalf("Retain up to the maximum: %v, refs %d %d", err, p.Refs(a), p.refs[c])
	}
	for _, id := range []TileID{Null, 8, 1 << 20, math.MaxUint32} {
		if p.Refs(id) != 0 {
			t.Errorf("Refs(%d) = %d, want 0 for a tile not in the pool", id, p.Refs(id))
		}
	}
}
