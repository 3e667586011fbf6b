package tiling

// Table is one sequence's list of physical tiles, in position order, and
// its length in tokens. Tiles are added by Pool.Grow (or Pool.Share) and
// given back by Pool.Release; a Table never reorders or drops a tile while
// it lives, so a slot once mapped stays valid.
type Table struct {
	layout Layout
	ids    []TileID
	n      int // tokens
}

// NewTable returns an empty table for tiles of layout l. It panics if l
// fails Check, so that every table maps positions with a valid shift.
func NewTable(l Layout) *Table {
	l.shift()
	return &Table{layout: l}
}

// Layout returns the table's tiling.
func (t *Table) Layout() Layout { return t.layout }

// Len returns the tokens the table holds.
func (t *Table) Len() int { return t.n }

// Cap returns the tokens its tiles can hold.
func (t *Table) Cap() int { return len(t.ids) << t.layout.TileShift }

// TileIDs returns the IDs of the table's tiles in position order. The slice
// aliases the table: read it, do not change it.
func (t *Table) TileIDs() []TileID { return t.ids }

// Slot returns the physical slot of position pos: its tile's ID times the
// tile size plus its offset, the index vLLM's slot_mapping holds. It panics,
// as indexing does, if pos is negative or not below Cap().
func (t *Table) Slot(pos int) int {
	s := t.layout.TileShift
	return int(t.ids[pos>>s])<<s | pos&(1<<s-1)
}

// AppendSlots appends the slots of positions from to to-1 to dst (vLLM's
// slot_mapping for the tokens of one step) and returns the extended slice.
// The range must lie within [0, Cap()].
func (t *Table) AppendSlots(dst []int64, from, to int) ([]int64, error) {
	if from < 0 || from > to {
		return dst, errf("Table.AppendSlots", int64(from), ErrRange)
	}
	if to > t.Cap() {
		return dst, errf("Table.AppendSlots", int64(to), ErrRange)
	}
	s := t.layout.TileShift
	mask := 1<<s - 1
	for pos := from; pos < to; pos++ {
		dst = append(dst, int64(t.ids[pos>>s])<<s|int64(pos&mask))
	}
	return dst, nil
}

// Grow makes room in t for n more tokens, taking new tiles from p only
// when the last one is full, and adds n to its length. If p cannot supply
// every tile needed, Grow takes none and t is unchanged.
func (p *Pool) Grow(t *Table, n int) error {
	if n < 0 || t.n > maxTokens-n {
		return errf("Pool.Grow", int64(n), ErrRange)
	}
	need := t.layout.Tiles(t.n+n) - len(t.ids)
	if need > 0 {
		ids, err := p.Alloc(t.ids, need)
		if err != nil {
			return err
		}
		t.ids = ids
	}
	t.n += n
	return nil
}

// maxTokens bounds a table's length so that slots fit FlashInfer's int32
// indices times any tile size in an int64.
const maxTokens = 1 << 48

// Share makes the empty table dst start with the first tokens tokens of
// src, sharing src's tiles (each gains a reference). Only whole tiles can be
// shared, since both tables will write past the shared part: tokens must be
// a multiple of the tile size, and at most src.Len().
func (p *Pool) Share(dst, src *Table, tokens int) error {
	if dst.layout != src.layout || len(dst.ids) != 0 {
		return errf("Pool.Share", int64(len(dst.ids)), ErrRange)
	}
	if tokens < 0 || tokens > src.n {
		return errf("Pool.Share", int64(tokens), ErrRange)
	}
	if tokens&src.layout.Mask() != 0 {
		return errf("Pool.Share", int64(tokens), ErrChunk)
	}
	shared := src.ids[:tokens>>src.layout.TileShift]
	if err := p.Retain(shared...); err != nil {
		return err
	}
	dst.ids = append(dst.ids, shared...)
	dst.n = tokens
	return nil
}

// Release drops t's reference to each of its tiles and empties it. Tiles
// that another table shares stay allocated.
func (p *Pool) Release(t *Table) error {
	if err := p.Free(t.ids...); err != nil {
		return err
	}
	t.ids = t.ids[:0]
	t.n = 0
	return nil
}
