//go:build race

package kvdelta

// raceEnabled: the race detector makes sync.Pool drop what it holds at
// random, so code that pools (the zstd decoder) allocates.
const raceEnabled = true
