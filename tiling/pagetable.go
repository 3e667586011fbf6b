package tiling

import "math"

// PageTable is a batch of tables in FlashInfer's paged-KV format: the
// pages of sequence i are Indices[Indptr[i]:Indptr[i+1]], and its last page
// holds LastPageLen[i] tokens, 1 ≤ LastPageLen[i] ≤ tile size. So a
// sequence's length is (pages-1)*tile + LastPageLen. Reuse one PageTable
// across steps: Build allocates only when the batch outgrows it.
type PageTable struct {
	Indptr      []int32
	Indices     []int32
	LastPageLen []int32
}

// Build fills pt from tables, all of one layout. A table with no tokens
// cannot be a row (FlashInfer needs LastPageLen ≥ 1) and is an error, as
// are mixed layouts and more pages than int32 counts; on error pt is
// emptied, never half-built.
func (pt *PageTable) Build(tables []*Table) error {
	pt.Indptr, pt.Indices, pt.LastPageLen = pt.Indptr[:0], pt.Indices[:0], pt.LastPageLen[:0]
	pages := 0
	for i, t := range tables {
		if t.n == 0 {
			return errf("PageTable.Build", int64(i), ErrEmpty)
		}
		if t.layout != tables[0].layout {
			return errf("PageTable.Build", int64(i), ErrRange)
		}
		if pages += t.layout.Tiles(t.n); pages > math.MaxInt32 {
			return errf("PageTable.Build", int64(pages), ErrRange)
		}
	}
	pt.Indptr = append(pt.Indptr, 0)
	for _, t := range tables {
		n := t.layout.Tiles(t.n)
		for _, id := range t.ids[:n] {
			pt.Indices = append(pt.Indices, int32(id))
		}
		pt.Indptr = append(pt.Indptr, int32(len(pt.Indices)))
		pt.LastPageLen = append(pt.LastPageLen, int32(t.n-(n-1)<<t.layout.TileShift))
	}
	return nil
}
