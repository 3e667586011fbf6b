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

// TestCoarseClockNeverEarly: an Append in place of a tail with a long TTL
// reads the store's clock (tail.now), which lags the monotonic clock by
// up to a tick; the tail it sets to expire still has its whole TTL from
// the Append, even when the clock is a tick behind.
func TestCoarseClockNeverEarly(t *testing.T) {
	m := NewMemory(MemoryOptions{})
	defer m.Close()
	ctx := context.Background()
	const ttl = 5 * time.Minute
	kept, err := m.Start(ctx, NewID(), Info{Owner: OwnerOf("k"), TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	tl := kept.(*tail)
	if !tl.coarse {
		t.Fatalf("a tail of TTL %v in a store ticking every %v reads the monotonic clock", ttl, m.tick)
	}
	if err := kept.Append(ctx, []byte("first"), false); err != nil { // its chunk: the store's lock
		t.Fatal(err)
	}
	m.mu.Lock()
	m.clock.Store(m.now() - int64(m.tick)) // a tick behind, the most it lags
	m.mu.Unlock()
	if !tl.appendInPlace([]byte("in place")) {
		t.Fatal("the Append did not go in place")
	}
	tl.mu.Lock()
	expires := tl.expires
	tl.mu.Unlock()
	if now := m.now(); expires < now+int64(ttl) {
		t.Fatalf("an Append in place set the tail to expire %v after it, under its TTL of %v", time.Duration(expires-now), ttl)
	}
	// A short TTL reads the monotonic clock, exact.
	short, err := m.Start(ctx, NewID(), Info{Owner: OwnerOf("k"), TTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if short.(*tail).coarse {
		t.Fatalf("a tail of TTL 1s in a store ticking every %v reads the store's clock", m.tick)
	}
}
