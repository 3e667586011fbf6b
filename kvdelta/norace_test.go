//go:build !race

package kvdelta

const raceEnabled = false
