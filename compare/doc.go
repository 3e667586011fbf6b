// Package compare measures ANTH against what servers deploy today: the
// Messages API's Server-Sent Events behind gzip, brotli or zstd with a
// flush per event. It is a nested module so that the brotli codec it
// compares with is never a dependency of the library.
//
// The measurements are go test benchmarks (see README.md): bytes on the
// wire over HTTP on 127.0.0.1, the server's and the client's CPU per delta,
// and packets per 1,000 tokens with and without frame.WriterOptions.Coalesce.
// go test -run TestReport -report prints them all as Markdown tables, every
// ratio taken within the one run.
package compare
