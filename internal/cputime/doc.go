// Package cputime reads the process's CPU time for the benchmarks that
// compare paired runs on a shared machine, where the wall clock also
// counts the time other processes took the cores: deflate's
// BenchmarkStream and anthhttp's held-tail and gateway benchmarks report
// it beside ns/op.
package cputime
