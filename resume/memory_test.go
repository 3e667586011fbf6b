package resume_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/layer0/anth/resume"
)

var bg = context.Background()

func mustCreate(t testing.TB, s resume.Store, info resume.Info) resume.ID {
	t.Helper()
	id := resume.NewID()
	if err := s.Create(bg, id, info); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestMemoryEvictionOrder pins the order MemoryOptions.MaxBytes states:
// ended tails least recently appended to first, then live ones, and the
// tail being appended to never.
func TestMemoryEvictionOrder(t *testing.T) {
	// Room for three tails of 512 bytes of buffer (their starts are in
	// TailOverhead), and one more record.
	per := int64(resume.TailOverhead + 512)
	max := 3*per + resume.TailOverhead
	m := resume.NewMemory(resume.MemoryOptions{MaxBytes: max})
	defer m.Close()
	owner := resume.OwnerOf("k")
	info := resume.Info{Owner: owner, API: "/v1/messages", TTL: time.Minute}
	p := make([]byte, 100)
	live1 := mustCreate(t, m, info)
	ended := mustCreate(t, m, info)
	live2 := mustCreate(t, m, info)
	for _, id := range []resume.ID{live1, ended, live2} {
		if err := m.Append(bg, id, p, id == ended); err != nil {
			t.Fatal(err)
		}
	}
	if _, n := m.Len(); n != 3*per {
		t.Fatalf("charged %d bytes, want %d", n, 3*per)
	}
	// A fourth tail's first Append needs 512 more bytes: the ended tail
	// goes first although live1 was appended to before it.
	fourth := mustCreate(t, m, info)
	if err := m.Append(bg, fourth, p, false); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Follow(bg, ended, owner, 0); !errors.Is(err, resume.ErrGone) {
		t.Fatalf("ended tail: Follow = %v, want ErrGone", err)
	}
	if _, err := m.Follow(bg, live1, owner, 0); err != nil {
		t.Fatalf("live tail evicted before the ended one: %v", err)
	}
	// A fifth: the dropped record goes, then the oldest live tail, live1.
	fifth := mustCreate(t, m, info)
	f1, err := m.Follow(bg, live1, owner, 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Append(bg, fifth, p, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f1.Next(bg); !errors.Is(err, resume.ErrGone) {
		t.Fatalf("follower of the evicted live tail: Next = %v, want ErrGone", err)
	}
	if _, err := m.Follow(bg, live2, owner, 0); err != nil {
		t.Fatalf("live2 evicted before live1: %v", err)
	}
	if _, n := m.Len(); n > max {
		t.Fatalf("charged %d bytes, past the bound %d", n, max)
	}
}

// TestMemoryHeldPerResponse measures what a kept response costs in heap
// beyond its bytes and checks TailOverhead covers it, so MaxBytes bounds
// the real memory.
func TestMemoryHeldPerResponse(t *testing.T) {
	const n = 2000
	m := resume.NewMemory(resume.MemoryOptions{MaxBytes: 1 << 30})
	defer m.Close()
	info := resume.Info{Owner: resume.OwnerOf("k"), API: "/v1/messages"}
	ids := make([]resume.ID, n)
	for i := range ids {
		ids[i] = resume.NewID()
	}
	p := make([]byte, 300)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, id := range ids {
		if err := m.Create(bg, id, info); err != nil {
			t.Fatal(err)
		}
		for range 10 {
			if err := m.Append(bg, id, p, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := float64(after.HeapAlloc-before.HeapAlloc) / n
	_, charged := m.Len()
	perCharged := float64(charged) / n
	t.Logf("a response of 10 appends of 300 bytes: %.0f bytes of heap, %.0f charged", held, perCharged)
	if held > perCharged*1.05 {
		t.Errorf("heap per response %.0f > charged %.0f: TailOverhead (%d) undercounts", held, perCharged, resume.TailOverhead)
	}
	runtime.KeepAlive(ids)
}

// TestMemoryCloseStopsSweep checks Close ends the sweep goroutine and
// unblocks followers.
func TestMemoryCloseStopsSweep(t *testing.T) {
	before := runtime.NumGoroutine()
	m := resume.NewMemory(resume.MemoryOptions{SweepEvery: time.Millisecond})
	info := resume.Info{Owner: resume.OwnerOf("k")}
	id := mustCreate(t, m, info)
	f, err := m.Follow(bg, id, info.Owner, 0)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { _, _, err := f.Next(bg); errc <- err }()
	time.Sleep(5 * time.Millisecond)
	m.Close()
	if err := <-errc; !errors.Is(err, resume.ErrUnavailable) {
		t.Fatalf("Next after Close = %v, want ErrUnavailable", err)
	}
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Fatalf("%d goroutines after Close, %d before", g, before)
	}
}

// TestMemoryAppendAllocs: Append with nobody waiting allocates only when
// the buffer grows, so a steady stream of appends costs no garbage.
func TestMemoryAppendAllocs(t *testing.T) {
	m := resume.NewMemory(resume.MemoryOptions{})
	defer m.Close()
	id := mustCreate(t, m, resume.Info{})
	p := make([]byte, 200)
	// Grow once to a large capacity.
	big := make([]byte, 1<<20)
	m.Append(bg, id, big, false)
	// The starts slice grows by doubling: measure fewer appends than its
	// capacity so neither buffer grows.
	allocs := testing.AllocsPerRun(1, func() {
		if err := m.Append(bg, id, p, false); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("Append: %v allocs, want 0", allocs)
	}
}

func ExampleMemory() {
	store := resume.NewMemory(resume.MemoryOptions{MaxBytes: 16 << 20})
	defer store.Close()
	ctx := context.Background()
	owner := resume.OwnerOf("sk-key")
	id := resume.NewID()
	store.Create(ctx, id, resume.Info{Owner: owner, API: "/v1/messages", TTL: time.Minute})
	store.Append(ctx, id, []byte("frame1"), false)
	store.Append(ctx, id, []byte("frame2"), true)

	// A client that read 6 bytes resumes there.
	f, err := store.Follow(ctx, id, owner, 6)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	for {
		start, p, err := f.Next(ctx)
		if err == io.EOF {
			break
		}
		fmt.Println(start, string(p))
	}
	// Output: 6 frame2
}

// TestMemoryBoundFlood: the worst a caller can do to a Memory is create
// tails without end and fill them; the tails held, their count and the
// heap stay within MaxBytes (plus the records of the followers' tails,
// which a follower keeps alive until it is closed).
func TestMemoryBoundFlood(t *testing.T) {
	const max = 1 << 20
	m := resume.NewMemory(resume.MemoryOptions{MaxBytes: max})
	defer m.Close()
	info := resume.Info{Owner: resume.OwnerOf("k"), MaxBytes: 64 << 10}
	p := make([]byte, 4<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 20000 {
		id := resume.NewID()
		if err := m.Create(bg, id, info); err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 {
			for range 3 {
				if err := m.Append(bg, id, p, false); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, n := m.Len(); n > max {
			t.Fatalf("after %d tails: %d bytes charged, MaxBytes %d", i, n, max)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	tails, n := m.Len()
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("20,000 tails created: %d held, %d bytes charged, %d bytes of heap", tails, n, held)
	if tails > max/resume.TailOverhead {
		t.Errorf("%d tails held, more than MaxBytes/TailOverhead", tails)
	}
	if held > max*11/10 {
		t.Errorf("%d bytes of heap held, MaxBytes %d", held, max)
	}
}

// TestMemoryEvictionModel: random creates, appends and ends over a store
// too small for them all; after every step the charge is within MaxBytes,
// and every tail reads back as the model says or is gone.
func TestMemoryEvictionModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		max := rapid.Int64Range(2*resume.TailOverhead, 8<<10).Draw(rt, "max")
		m := resume.NewMemory(resume.MemoryOptions{MaxBytes: max})
		defer m.Close()
		owner := resume.OwnerOf("k")
		type model struct {
			id    resume.ID
			bytes []byte
			ended bool
			gone  bool
		}
		var tails []*model
		for range rapid.IntRange(1, 60).Draw(rt, "ops") {
			if len(tails) == 0 || rapid.IntRange(0, 3).Draw(rt, "create") == 0 {
				id := resume.NewID()
				if err := m.Create(bg, id, resume.Info{Owner: owner}); err != nil {
					rt.Fatal(err)
				}
				tails = append(tails, &model{id: id})
				continue
			}
			tl := tails[rapid.IntRange(0, len(tails)-1).Draw(rt, "tail")]
			p := rapid.SliceOfN(rapid.Byte(), 0, 600).Draw(rt, "p")
			end := rapid.IntRange(0, 5).Draw(rt, "end") == 0
			err := m.Append(bg, tl.id, p, end)
			switch {
			case errors.Is(err, resume.ErrGone), errors.Is(err, resume.ErrNotFound), errors.Is(err, resume.ErrTooLarge):
				tl.gone = true
			case tl.ended:
				if !errors.Is(err, resume.ErrEnded) {
					rt.Fatalf("Append after end: %v", err)
				}
			case err != nil:
				rt.Fatal(err)
			default:
				tl.bytes = append(tl.bytes, p...)
				tl.ended = end
			}
			if _, n := m.Len(); n > max {
				rt.Fatalf("%d bytes charged, MaxBytes %d", n, max)
			}
		}
		for _, tl := range tails {
			f, err := m.Follow(bg, tl.id, owner, 0)
			if errors.Is(err, resume.ErrGone) || errors.Is(err, resume.ErrNotFound) {
				continue // evicted: a tail the model kept may be gone, never wrong
			}
			if err != nil {
				rt.Fatal(err)
			}
			if tl.gone {
				rt.Fatalf("a tail that failed an Append is followable")
			}
			var got []byte
			for len(got) < len(tl.bytes) {
				_, p, err := f.Next(bg)
				if err != nil {
					rt.Fatalf("Next: %v", err)
				}
				got = append(got, p...)
			}
			if diff := cmp.Diff(tl.bytes, got, cmpopts.EquateEmpty()); diff != "" {
				rt.Fatalf("tail bytes (-model +store):\n%s", diff)
			}
		}
	})
}

// TestMemoryTailAfterRemoval: a Tail (Memory.Start) whose tail expired or
// was removed to make room writes nowhere, not even into a new tail made
// under its ID since, and leaves the store's charge as it was.
func TestMemoryTailAfterRemoval(t *testing.T) {
	owner := resume.OwnerOf("k")
	t.Run("Expired", func(t *testing.T) {
		m := resume.NewMemory(resume.MemoryOptions{SweepEvery: time.Hour})
		defer m.Close()
		id := resume.NewID()
		old, err := m.Start(bg, id, resume.Info{Owner: owner, TTL: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := old.Append(bg, []byte("old"), false); err != nil {
			t.Fatal(err)
		}
		time.Sleep(40 * time.Millisecond)
		// The same ID again, which the first's expiry frees.
		if _, err := m.Start(bg, id, resume.Info{Owner: owner, TTL: time.Minute}); err != nil {
			t.Fatal(err)
		}
		if err := old.Append(bg, []byte("stray"), false); !errors.Is(err, resume.ErrNotFound) {
			t.Fatalf("Append through the expired tail = %v, want ErrNotFound", err)
		}
		if err := m.Append(bg, id, []byte("new"), true); err != nil {
			t.Fatalf("Append to the new tail: %v", err)
		}
		if got := readAll(t, m, id, owner); got != "new" {
			t.Fatalf("the new tail holds %q, want %q", got, "new")
		}
		if n, bytes := m.Len(); n != 1 || bytes != resume.TailOverhead+512 {
			t.Fatalf("Len = %d tails, %d bytes; want 1, %d", n, bytes, resume.TailOverhead+512)
		}
	})
	t.Run("Evicted", func(t *testing.T) {
		// Room for one record: a second tail removes the first.
		m := resume.NewMemory(resume.MemoryOptions{MaxBytes: resume.TailOverhead})
		defer m.Close()
		old, err := m.Start(bg, resume.NewID(), resume.Info{Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		id := mustCreate(t, m, resume.Info{Owner: owner})
		if err := old.Append(bg, []byte("stray"), false); !errors.Is(err, resume.ErrNotFound) {
			t.Fatalf("Append through the removed tail = %v, want ErrNotFound", err)
		}
		if n, bytes := m.Len(); n != 1 || bytes != resume.TailOverhead {
			t.Fatalf("Len = %d tails, %d bytes; want 1, %d", n, bytes, resume.TailOverhead)
		}
		if err := m.Append(bg, id, nil, true); err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, m, id, owner); got != "" {
			t.Fatalf("the new tail holds %q, want nothing", got)
		}
	})
}

// readAll reads an ended tail from 0.
func readAll(t *testing.T, m *resume.Memory, id resume.ID, owner resume.Owner) string {
	t.Helper()
	f, err := m.Follow(bg, id, owner, 0)
	if err != nil {
		t.Fatalf("Follow: %v", err)
	}
	defer f.Close()
	var got []byte
	for {
		_, p, err := f.Next(bg)
		if err == io.EOF {
			return string(got)
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		got = append(got, p...)
	}
}
