package tiling

import "math"

// TileID names a physical tile of a Pool. FlashInfer's page tables are
// int32, so a pool holds at most math.MaxInt32 tiles.
type TileID uint32

// Null is tile 0: never allocated, so a zero TileID in a table is always a
// bug that shows, not a silently shared tile.
const Null TileID = 0

// Pool is a fixed set of physical tiles with an O(1) free list and a
// reference count per tile, so that sequences can share the tiles of a
// common prefix. Allocation is all-or-nothing: a request that cannot be met
// in full takes nothing. A Pool is not safe for concurrent use.
type Pool struct {
	refs []uint32 // refs[id]; refs[Null] stays 0
	free []TileID // stack of free tiles
}

// NewPool returns a pool of tiles physical tiles, IDs 0 to tiles-1, of which
// tile 0 is Null: tiles-1 can be allocated. tiles must be in [2,
// math.MaxInt32].
func NewPool(tiles int) (*Pool, error) {
	if tiles < 2 || tiles > math.MaxInt32 {
		return nil, errf("NewPool", int64(tiles), ErrRange)
	}
	p := &Pool{refs: make([]uint32, tiles), free: make([]TileID, 0, tiles-1)}
	for id := tiles - 1; id >= 1; id-- { // pop order: 1, 2, 3, …
		p.free = append(p.free, TileID(id))
	}
	return p, nil
}

// Tiles returns the number of tiles that can be allocated (the pool's size
// less the null tile).
func (p *Pool) Tiles() int { return len(p.refs) - 1 }

// Available returns the number of free tiles.
func (p *Pool) Available() int { return len(p.free) }

// Refs returns how many holders tile id has: 0 if it is free, Null or not
// in the pool.
func (p *Pool) Refs(id TileID) int {
	if int64(id) >= int64(len(p.refs)) {
		return 0
	}
	return int(p.refs[id])
}

// Alloc takes n free tiles, each with one reference, appends them to dst
// and returns the extended slice. If fewer than n are free it takes none and
// returns ErrExhausted.
func (p *Pool) Alloc(dst []TileID, n int) ([]TileID, error) {
	if n < 0 {
		return dst, errf("Pool.Alloc", int64(n), ErrRange)
	}
	if n > len(p.free) {
		return dst, errf("Pool.Alloc", int64(n), ErrExhausted)
	}
	top := len(p.free) - n
	for i := len(p.free) - 1; i >= top; i-- {
		id := p.free[i]
		p.refs[id] = 1
		dst = append(dst, id)
	}
	p.free = p.free[:top]
	return dst, nil
}

// check reports whether id can be retained or freed. Its conditions are
// ifs, not a switch, so that coverage (and mutation testing) sees them.
func (p *Pool) check(op string, id TileID) error {
	if id == Null {
		return errf(op, 0, ErrNullTile)
	}
	if int64(id) >= int64(len(p.refs)) {
		return errf(op, int64(id), ErrRange)
	}
	if p.refs[id] == 0 {
		return errf(op, int64(id), ErrNotAllocated)
	}
	return nil
}

// Retain adds a reference to each of ids, which must be allocated: a
// sequence that shares another's prefix retains its tiles. On error no
// count has changed.
func (p *Pool) Retain(ids ...TileID) error {
	for i, id := range ids {
		err := p.check("Pool.Retain", id)
		if err == nil && p.refs[id] == math.MaxUint32 {
			err = errf("Pool.Retain", int64(id), ErrRange)
		}
		if err != nil {
			for _, done := range ids[:i] {
				p.refs[done]--
			}
			return err
		}
		p.refs[id]++
	}
	return nil
}

// Free drops a reference from each of ids; a tile whose last reference goes
// returns to the free list. Freeing the null tile, a tile not in the pool or
// a free tile (a double free, counting repeats within ids) is an error, and
// then no count has changed.
func (p *Pool) Free(ids ...TileID) error {
	for i, id := range ids {
		if err := p.check("Pool.Free", id); err != nil {
			// Undo in reverse, so each tile pushed on the free list is the
			// one on top when its count comes back.
			for j := i - 1; j >= 0; j-- {
				if p.refs[ids[j]] == 0 {
					p.free = p.free[:len(p.free)-1]
				}
				p.refs[ids[j]]++
			}
			return err
		}
		if p.refs[id]--; p.refs[id] == 0 {
			p.free = append(p.free, id)
		}
	}
	return nil
}
