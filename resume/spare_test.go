package resume_test

import (
	"bytes"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/layer0/anth/resume"
)

// TestMemorySpareNotFollowed: the chunks of a tail someone followed are
// never filled again, even once the tail is gone: the bytes a follower
// was given stay what they were while a new tail takes the store's room.
func TestMemorySpareNotFollowed(t *testing.T) {
	// Room for one tail and its 512-byte chunk: each new tail evicts the
	// one before.
	m := resume.NewMemory(resume.MemoryOptions{MaxBytes: 2*resume.TailOverhead + 512})
	defer m.Close()
	owner := resume.OwnerOf("k")
	id := mustCreate(t, m, resume.Info{Owner: owner})
	old := bytes.Repeat([]byte("a"), 100)
	if err := m.Append(bg, id, old, true); err != nil {
		t.Fatal(err)
	}
	f, err := m.Follow(bg, id, owner, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, p, err := f.Next(bg)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		next := mustCreate(t, m, resume.Info{Owner: owner})
		if err := m.Append(bg, next, bytes.Repeat([]byte("b"), 100), true); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := f.Next(bg); !errors.Is(err, resume.ErrGone) && !errors.Is(err, resume.ErrNotFound) {
		t.Fatalf("Next on the evicted tail = %v, want ErrGone", err)
	}
	if diff := cmp.Diff(old, p); diff != "" {
		t.Fatalf("a followed tail's bytes changed once it was evicted (-was +now):\n%s", diff)
	}
}

// TestMemorySpareReused: in a store at its bound, where every new tail
// evicts an old one, a tail's Appends allocate nothing: its chunks are
// the evicted tails'.
func TestMemorySpareReused(t *testing.T) {
	m := resume.NewMemory(resume.MemoryOptions{MaxBytes: 64 << 10})
	defer m.Close()
	info := resume.Info{Owner: resume.OwnerOf("k"), MaxBytes: 4 << 20}
	p := make([]byte, 1<<10)
	writes := sseWrites
	stream := func() {
		tl, err := m.Start(bg, resume.NewID(), info)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range writes {
			if err := tl.Append(bg, p[:w], i == len(writes)-1); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 200 {
		stream() // past the bound: the store evicts from now on
	}
	// The tail's record and its ID; its chunks nothing.
	n := testing.AllocsPerRun(100, stream)
	if raceEnabled {
		t.Logf("a stream into a full store: %v allocations under the race detector, not checked", n)
	} else if n > 2 {
		t.Fatalf("a stream into a full store: %v allocations, want 2 (its ID and its record)", n)
	}
	if _, n := m.Len(); n > 64<<10 {
		t.Fatalf("%d bytes charged, MaxBytes %d", n, 64<<10)
	}
}

// TestMemorySpareReusedMixed is TestMemorySpareReused with streams of two
// shapes in turn, an event stream's and an ANTH client's, as a gateway
// serving both keeps them: their first chunks differ (2 KiB and 512
// bytes), and a tail that finds no spare of its first chunk's size takes
// one that holds its first write rather than letting the spares go and
// allocating.
func TestMemorySpareReusedMixed(t *testing.T) {
	m := resume.NewMemory(resume.MemoryOptions{MaxBytes: 64 << 10})
	defer m.Close()
	info := resume.Info{Owner: resume.OwnerOf("k"), MaxBytes: 4 << 20}
	p := make([]byte, 1<<10)
	shapes := [][]int{sseWrites, anthWrites}
	var model [2][]byte // the last two tails' bytes, by the parity of their turn
	var ids [2]resume.ID
	turn := 0
	stream := func(writes []int) {
		id := resume.NewID()
		tl, err := m.Start(bg, id, info)
		if err != nil {
			t.Fatal(err)
		}
		sent := make([]byte, 0, 4<<10)
		for i, w := range writes {
			q := p[:w]
			if err := tl.Append(bg, q, i == len(writes)-1); err != nil {
				t.Fatal(err)
			}
			sent = append(sent, q...)
		}
		model[turn%2], ids[turn%2] = sent, id
		turn++
	}
	for i := range p {
		p[i] = byte(i * 7)
	}
	for range 100 {
		stream(shapes[0]) // past the bound: the store evicts from now on
		stream(shapes[1])
	}
	// Each pair of streams: two records and two IDs; their chunks nothing.
	n := testing.AllocsPerRun(100, func() {
		stream(shapes[0])
		stream(shapes[1])
	})
	if raceEnabled {
		t.Logf("two streams into a full store: %v allocations under the race detector, not checked", n)
	} else if n > 2*2+2 { // and the model's two copies
		t.Fatalf("two streams of different shapes into a full store: %v allocations, want 6 (2 IDs, 2 records, the test's 2 copies)", n)
	}
	if _, n := m.Len(); n > 64<<10 {
		t.Fatalf("%d bytes charged, MaxBytes %d", n, 64<<10)
	}
	// The tails made of other tails' chunks read back whole.
	for k, id := range ids {
		f, err := m.Follow(bg, id, info.Owner, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for {
			_, q, err := f.Next(bg)
			if err != nil {
				break
			}
			got = append(got, q...)
		}
		if diff := cmp.Diff(model[k], got); diff != "" {
			t.Fatalf("a tail built of spares (-sent +read):\n%s", diff)
		}
	}
}

// TestMemorySpareReleased: an idle store lets its spare chunks go within
// two sweeps, so the memory of tails that expired goes back to the
// garbage collector, not to the store's high-water mark.
func TestMemorySpareReleased(t *testing.T) {
	m := resume.NewMemory(resume.MemoryOptions{SweepEvery: 5 * time.Millisecond})
	defer m.Close()
	info := resume.Info{Owner: resume.OwnerOf("k"), TTL: time.Millisecond}
	for range 10 {
		id := mustCreate(t, m, info)
		if err := m.Append(bg, id, make([]byte, 1000), true); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if tails, n := m.Len(); tails == 0 && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			tails, n := m.Len()
			t.Fatalf("%d tails, %d bytes charged, long after every tail expired", tails, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestMemoryDroppedHoldsNothing: a dropped tail's record, which stays
// until its TTL so that a resume is told 410, holds no chunk it is no
// longer charged for: a store of tails dropped past their Info.MaxBytes
// holds its bound in heap.
func TestMemoryDroppedHoldsNothing(t *testing.T) {
	const max = 1 << 20
	m := resume.NewMemory(resume.MemoryOptions{MaxBytes: max})
	defer m.Close()
	info := resume.Info{Owner: resume.OwnerOf("k"), MaxBytes: 64 << 10}
	big := make([]byte, 60<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range max / resume.TailOverhead {
		id := mustCreate(t, m, info)
		if err := m.Append(bg, id, big, false); err != nil {
			t.Fatal(err)
		}
		// Past the tail's bound: it is dropped, its record stays.
		if err := m.Append(bg, id, big, false); !errors.Is(err, resume.ErrTooLarge) {
			t.Fatalf("Append past Info.MaxBytes = %v, want ErrTooLarge", err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if _, n := m.Len(); n > max || held > max*11/10 {
		t.Fatalf("%d bytes of heap held, %d charged, MaxBytes %d", held, n, max)
	}
}

// TestMemorySpareModel: random creates, appends, follows and ends over a
// store too small for them all, so that tails are evicted and their
// chunks filled again; every chunk a follower was given still holds what
// the model says, and every tail reads back as the model says or is gone.
func TestMemorySpareModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		max := rapid.Int64Range(2*resume.TailOverhead, 8<<10).Draw(rt, "max")
		m := resume.NewMemory(resume.MemoryOptions{MaxBytes: max})
		defer m.Close()
		owner := resume.OwnerOf("k")
		type model struct {
			id    resume.ID
			bytes []byte
			ended bool
		}
		type given struct {
			tail  *model
			start int64
			p     []byte // as the follower was given it
			want  []byte // a copy, made then
		}
		var tails []*model
		var gave []given
		for range rapid.IntRange(1, 80).Draw(rt, "ops") {
			switch op := rapid.IntRange(0, 5).Draw(rt, "op"); {
			case len(tails) == 0 || op == 0:
				id := resume.NewID()
				if err := m.Create(bg, id, resume.Info{Owner: owner}); err != nil {
					rt.Fatal(err)
				}
				tails = append(tails, &model{id: id})
			case op == 1:
				tl := tails[rapid.IntRange(0, len(tails)-1).Draw(rt, "tail")]
				f, err := m.Follow(bg, tl.id, owner, 0)
				if err != nil || len(tl.bytes) == 0 {
					continue // gone, or nothing to give yet
				}
				start, p, err := f.Next(bg)
				if err != nil {
					continue
				}
				gave = append(gave, given{tl, start, p, append([]byte(nil), p...)})
				f.Close()
			default:
				tl := tails[rapid.IntRange(0, len(tails)-1).Draw(rt, "tail")]
				p := rapid.SliceOfN(rapid.Byte(), 0, 600).Draw(rt, "p")
				end := rapid.IntRange(0, 5).Draw(rt, "end") == 0
				if err := m.Append(bg, tl.id, p, end); err == nil {
					tl.bytes = append(tl.bytes, p...)
					tl.ended = end
				}
			}
			if _, n := m.Len(); n > max {
				rt.Fatalf("%d bytes charged, MaxBytes %d", n, max)
			}
		}
		for _, g := range gave {
			if diff := cmp.Diff(g.want, g.p); diff != "" {
				rt.Fatalf("a chunk given to a follower was written again (-given +now):\n%s", diff)
			}
			if diff := cmp.Diff(g.tail.bytes[g.start:g.start+int64(len(g.p))], g.p); diff != "" {
				rt.Fatalf("a follower was given bytes the tail does not hold (-model +given):\n%s", diff)
			}
		}
		for _, tl := range tails {
			f, err := m.Follow(bg, tl.id, owner, 0)
			if err != nil {
				continue // evicted: a tail the model kept may be gone, never wrong
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
