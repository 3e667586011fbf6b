// Package tiling lays out a KV cache in tiles of 2^k tokens and keeps its
// books: where a position lives (Layout), where a value lives in a flat
// buffer (Geometry), which physical tiles a sequence holds (Table), a pool of
// tiles with reference counts for shared prefixes (Pool), the page tables
// attention kernels consume (FlashInfer's indptr/indices/last_page_len and
// vLLM's slot mapping), and a chained hash per full tile that names a prefix
// the same way on every machine (Hash).
//
// Tiles are powers of two so that every mapping is a shift and a mask.
// Capacities are not: a sequence reserves whole tiles, wasting less than
// one tile, where rounding its budget up to a power of two (the seed design,
// kept as Layout.RoundPow2) wastes up to half of it.
package tiling
