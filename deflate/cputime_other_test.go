//go:build !unix

package deflate_test

import "time"

// processCPU is not read here: paired benchmarks report wall time alone.
func processCPU() time.Duration { return 0 }
