//go:build !race

package anth_test

const raceEnabled = false
