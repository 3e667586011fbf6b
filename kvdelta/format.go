package kvdelta

// The wire format, SPEC.md §10 (integers are minimal uvarints unless a width
// is given; u32 is big-endian):
//
//	delta   = header record* END trailer
//	header  = "ANKV" version:u8 flags:u8
//	          layers:uv kv_heads:uv head_dim:uv dtype:u8 tile_shift:u8 order:u8
//	          tokens:uv [base_tokens:uv base_id:16 bytes]   (if flagBase)
//	flags   = bit 0 flagBase, bit 1 flagHashes, bits 2-3 zero,
//	          bits 4-7 c: chunks of 2^(10+c) bytes, c ≤ 12
//	KEEP    = 1 base_tile:uv count:uv
//	NEW     = 2 count:uv (crc:u32 [hash:32])*count planes
//	XOR     = 3 base_tile:uv count:uv (crc:u32 [hash:32])*count planes
//	ROWS    = 4 base_tile:uv first_row:uv end_row:uv crc:u32 [hash:32] planes
//	END     = 0
//	trailer = crc:u32, the CRC32C of every byte before it
//	planes  = 2w planes of equal length, each cut into chunks:
//	          raw 0 bytes | RLE 1 byte | huff0 2 len:uv block | zstd 3 len:uv frame
//
// A hash follows a tile's CRC32C when flagHashes is set and the tile is full
// in the new snapshot. Record types 5-255 are malformed: there is no range a
// receiver may skip, since every record changes the snapshot.

const (
	magic   = "ANKV"
	version = 1

	flagBase     = 1 << 0
	flagHashes   = 1 << 1
	flagReserved = 1<<2 | 1<<3 // §10.2: MUST be zero

	// The chunk size is 2^(chunkLogBase+c) for the flags' top nibble c,
	// c ≤ maxChunkLog-chunkLogBase (§10.2).
	chunkLogBase = 10
	fastChunkLog = 16 // 64 KiB: huff0 blocks are at most 128 KiB and adapt better small
	maxChunkLog  = 22 // 4 MiB: zstd gains from a long window

	recEnd  = 0
	recKeep = 1
	recNew  = 2
	recXor  = 3
	recRows = 4

	methodRaw  = 0
	methodRLE  = 1
	methodHuff = 2
	methodZstd = 3

	idSize   = 16 // bytes of the base identity on the wire
	hashSize = 32 // bytes of a tile hash
	crcSize  = 4

	// maxDim bounds layers, kv_heads and head_dim (§10.2).
	maxDim = 1 << 20

	// maxTokens bounds token counts on the wire: 2^40 tokens is far beyond
	// any context.
	maxTokens = 1 << 40

	// maxRunBytes bounds the tiles one NEW or XOR record carries, unless a
	// single tile is larger (§10.3), and so the planes a decoder holds.
	maxRunBytes = 16 << 20
)
