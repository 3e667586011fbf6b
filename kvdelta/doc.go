// Package kvdelta sends a KV cache snapshot as what changed since a base
// snapshot the receiver already holds, compressed losslessly and checked
// end to end, so that Apply(base, Encode(base, next)) is next bit for bit.
//
// In a causal decoder no past token's K or V ever changes, so between two
// snapshots of a sequence almost everything is a tile the receiver already
// has: the delta names those tiles (KEEP, found by tiling's chained tile
// hash), sends the tiles that are new (NEW), and sends a tile that was
// rewritten — in practice the partial last tile, which grew — as its new
// rows (ROWS) or its XOR with the base tile (XOR), which is mostly zeros.
//
// Tile data is compressed by byte planes, as ZipNN does: each element's
// bytes go to separate planes, K and V apart (their exponent distributions
// differ), after a swap of two bits that puts bf16's and fp32's whole
// exponent in the top plane. The top plane, where nearly all the
// redundancy is, is entropy-coded: with huff0 in Fast mode, with zstd in
// Max mode; the near-random mantissa planes are stored raw in Fast mode.
// Every tile carries the CRC32C of its decoded bytes and the delta ends with
// a CRC32C of itself. SPEC.md §10 is the wire format; format.go sums it up.
//
// # Memory
//
// A Decoder allocates as the delta's bytes arrive and are checked, never as
// its header declares: a header that declares a snapshot of terabytes and
// stops costs nothing. Each buffer is allocated once the bytes it will hold
// are in hand — read from the delta, decoded from a chunk (each chunk is
// checked to decode to exactly its size as it is decoded), or named in the
// base by a KEEP or ROWS record — except for a fixed amount ahead: the chunk
// being decoded, as read and as decoded (64 KiB each in Fast mode, at most
// 4 MiB each), and 64 KiB of other buffers. A byte in hand is held at most
// three times (in its plane, in its decoded tile, in the snapshot), so, in
// the terms of Stats,
//
//	Allocated ≤ 3·Justified + 2·chunk size + 64 KiB (+ 256 KiB for the zstd decoder, once)
//
// and never more than Limits.MaxBytes, which counts every buffer, the
// scratch a Decoder keeps between calls included. A delta that cannot be
// decoded within it fails with ErrTooLarge before the memory is allocated:
// at its header if the snapshot alone is too large, at a record if decoding
// that record would pass the limit. A failed call leaves the Decoder with
// no more scratch than it had before it.
//
// The snapshot's buffer is allocated when no more than 8 KiB of it is still
// to come, so until then the tiles decoded so far are kept apart: Apply
// holds a snapshot's sent (not kept) tiles twice at its end, besides the
// planes of one record (up to 16 MiB, or a tile), which the Decoder keeps.
// ApplyTo into a Snapshot whose Data has room holds them once, and in a
// loop allocates nothing at all.
//
// Compression means a delta of a few hundred bytes can make a call allocate
// up to MaxBytes (a run of one byte is two bytes a chunk), so MaxBytes is
// what a server must afford for each delta in flight. The default, 1 GiB,
// is for a server that takes deltas from the network: it admits a 512 MiB
// snapshot applied whole (the cache of an 8B-parameter model in bf16 at
// 4,096 tokens), and any delta onto a base the server holds whose new
// tiles fit beside it, while a handful in flight stay within a machine's
// memory. A receiver that expects larger snapshots sets a larger limit.
package kvdelta
