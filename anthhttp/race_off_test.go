//go:build !race

package anthhttp

// RaceEnabled reports whether the tests run under the race detector, whose
// instrumentation allocates; exported for the tests of package
// anthhttp_test too.
const RaceEnabled = false
