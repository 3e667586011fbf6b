//go:build unix

package deflate_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, user and system,
// every thread's (the garbage collector's too): what a paired benchmark
// compares on a shared machine, where the wall clock also counts the time
// other processes took the cores.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
