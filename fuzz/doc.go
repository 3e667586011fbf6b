// Package fuzz holds the project's native fuzz targets, one place for CI to
// run them all (go test -fuzz=^FuzzX$ ./fuzz). Each target checks invariants,
// not just the absence of panics: whatever parses re-encodes to the bytes it
// came from. Seed inputs live in testdata/fuzz/<target>/.
package fuzz
