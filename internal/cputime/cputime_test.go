package cputime

import "testing"

// TestProcessAdvances: burning CPU shows in Process, so a benchmark that
// reports it reports something.
func TestProcessAdvances(t *testing.T) {
	start := Process()
	x := 0
	for i := 0; i < 200_000_000 && Process() == start; i++ {
		x += i
	}
	if Process() <= start {
		t.Fatalf("Process did not advance (%d)", x)
	}
}
