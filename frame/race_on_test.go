//go:build race

package frame

const raceEnabled = true
