package resume

import (
	"testing"
	"unsafe"
)

// TestTailRecordSize: a tail's record fits the 416-byte size class, which
// every kept response holds (BenchmarkResumeHeld: one field more took it
// to 448 bytes, 32 more a response).
func TestTailRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(tail{}); n > 416 {
		t.Fatalf("a tail's record is %d bytes, past the 416-byte size class", n)
	}
}
