package resume

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
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

// TestMemoryHoldsNoID: a Memory keeps a tail under its ID's bytes, in the
// tail's record, not under the ID's string, which was an object of its
// own for every tail the store holds, alive as long as the tail and marked
// at every collection. The string the caller gave is collected while the
// tail is still found by an equal one.
func TestMemoryHoldsNoID(t *testing.T) {
	m := NewMemory(MemoryOptions{})
	defer m.Close()
	ctx := context.Background()
	id := ID(strings.Clone(string(NewID()))) // an object of its own, 24 bytes: not the tiny allocator's
	again := ID(strings.Clone(string(id)))
	collected := make(chan struct{})
	runtime.AddCleanup(unsafe.StringData(string(id)), func(ch chan struct{}) { close(ch) }, collected)
	owner := OwnerOf("k")
	kept, err := m.Start(ctx, id, Info{Owner: owner, API: strings.Clone("/v1/messages")})
	if err != nil {
		t.Fatal(err)
	}
	id = ""
	deadline := time.Now().Add(5 * time.Second)
	for done := false; !done; {
		runtime.GC()
		select {
		case <-collected:
			done = true
		case <-time.After(10 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("the ID's string is still held while its tail is kept")
			}
		}
	}
	if err := kept.Append(ctx, []byte("x"), true); err != nil {
		t.Fatal(err)
	}
	f, err := m.Follow(ctx, again, owner, 0)
	if err != nil {
		t.Fatalf("Follow with an equal ID: %v", err)
	}
	f.Close()
	runtime.KeepAlive(kept)
}
