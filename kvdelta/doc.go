// Package kvdelta sends a KV cache snapshot as what changed since a base
// snapshot the receiver already holds, compressed losslessly and checked
// end to end, so that Apply(base, Encode(base, next)) is next bit for bit.
//
// In a causal decoder no past token's K or V ever changes, so between two
// snapshots of a sequence almost everything is a tile the receiver already
// has: the delta names those tiles (KEEP, found by tiling's chained tile
// hash), sends the tiles that are new (NEW), and sends a tile that was
// rewritten — in practice the partial last tile, which grew — as its XOR
// with the base tile (XOR), which is mostly zeros.
//
// Tile data is compressed by byte planes, as ZipNN does: each element's
// bytes go to separate planes, K and V apart (their exponent distributions
// differ), after a swap of two bits that puts bf16's and fp32's whole
// exponent in the top plane. The top plane, where nearly all the
// redundancy is, is entropy-coded: with huff0 in Fast mode, with zstd in
// Max mode; the near-random mantissa planes are stored raw in Fast mode.
// Every tile carries the CRC32C of its decoded bytes and the delta ends with
// a CRC32C of itself. SPEC.md §10 is the wire format.
package kvdelta
