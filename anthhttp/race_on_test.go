//go:build race

package anthhttp

const raceEnabled = true
