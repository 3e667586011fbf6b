//go:build race

package kvdelta

// raceEnabled: the race detector makes sync.Pool drop what it holds at
// random, so code that pools (huff0's buffers, the zstd decoder) allocates
// now and then.
const raceEnabled = true
