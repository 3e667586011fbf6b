//go:build !unix

package cputime

import "time"

// Process is not read here: paired benchmarks report wall time alone.
func Process() time.Duration { return 0 }
