//go:build !race

package anthhttp

const raceEnabled = false
