//go:build !race

package request

const raceEnabled = false
