package resume_test

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/resume"
)

// TestMemoryConcurrentTails: writers append to their own tails through
// Tail (most Appends in place, under the tail's lock alone) in a store
// too small for them all, so that each write may evict another writer's
// tail, while followers read the tails as they grow. Every follower reads
// a prefix of what its tail's writer appended, byte for byte, ending in
// io.EOF after all of it or in ErrGone; every failed Append is ErrGone
// or ErrNotFound (evicted), and the charge ends within MaxBytes. Run with
// -race, it checks the two locks' rules (Memory's doc): the writers take
// the store's lock only when their Appends do, which a check of the
// charge after each Append would add, hiding a missing lock.
func TestMemoryConcurrentTails(t *testing.T) {
	const writers, tails, appends = 8, 12, 40
	max := int64(writers * (resume.TailOverhead + 640))
	m := resume.NewMemory(resume.MemoryOptions{MaxBytes: max})
	defer m.Close()
	owner := resume.OwnerOf("k")
	var gone atomic.Int64
	var wg sync.WaitGroup
	// Every writer's first tail is live, with its first chunk, before any
	// writer goes on: however the writers are scheduled, the live tails
	// then outgrow the store, which must evict some of them.
	var ready sync.WaitGroup
	ready.Add(writers)
	errs := make(chan error, writers*tails*2)
	for w := range writers {
		wg.Go(func() {
			waiting := true
			defer func() {
				if waiting {
					ready.Done()
				}
			}()
			for n := range tails {
				id := resume.NewID()
				kept, err := m.Start(bg, id, resume.Info{Owner: owner})
				if err != nil {
					errs <- err
					return
				}
				got := make(chan []byte, 1)
				f, err := m.Follow(bg, id, owner, 0)
				switch {
				case err == nil:
					wg.Go(func() { got <- follow(f, errs) })
				case errors.Is(err, resume.ErrGone), errors.Is(err, resume.ErrNotFound):
					got <- nil // evicted already, by another writer
				default:
					errs <- err
					return
				}
				var sent []byte
				for i := range appends {
					p := bytes.Repeat([]byte{byte(w), byte(n), byte(i)}, 1+(i*7+w)%23)
					err := kept.Append(bg, p, i == appends-1)
					if err != nil {
						gone.Add(1)
						if !errors.Is(err, resume.ErrGone) && !errors.Is(err, resume.ErrNotFound) {
							errs <- err
						}
						break
					}
					sent = append(sent, p...)
					if waiting {
						waiting = false
						ready.Done()
						ready.Wait()
					}
				}
				if f != nil {
					f.Close() // a follower still waiting on an evicted tail ends
				}
				read := <-got
				if len(read) > len(sent) || !bytes.Equal(read, sent[:len(read)]) {
					errs <- errors.New(cmp.Diff(sent, read))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if gone.Load() == 0 {
		t.Error("no live tail was evicted: the store is too big to test eviction")
	}
	if _, c := m.Len(); c > max {
		t.Errorf("%d bytes charged, past MaxBytes %d", c, max)
	}
}

// follow reads f to its end, and returns what it read: all of its tail
// (io.EOF), or a prefix (ErrGone, or the follower closed).
func follow(f resume.Follower, errs chan<- error) []byte {
	var read []byte
	for {
		start, p, err := f.Next(bg)
		switch {
		case err == io.EOF, errors.Is(err, resume.ErrGone):
			return read
		case err != nil:
			return read // closed by its writer
		}
		if start != int64(len(read)) {
			errs <- errors.New("a chunk not where the last one ended")
			return read
		}
		read = append(read, p...)
	}
}

// TestMemoryEvictsUntouchedFirst: a live tail appended to in place (under
// its own lock, so that it stays where it is on the store's list) is not
// taken for the least recently appended one: of two live tails, the one
// appended to last survives, though its last Append changed nothing the
// store's lock guards.
func TestMemoryEvictsUntouchedFirst(t *testing.T) {
	per := int64(resume.TailOverhead + 512)
	m := resume.NewMemory(resume.MemoryOptions{MaxBytes: 2*per + resume.TailOverhead})
	defer m.Close()
	owner := resume.OwnerOf("k")
	info := resume.Info{Owner: owner}
	p := make([]byte, 100)
	start := func() (resume.ID, resume.Tail) {
		id := resume.NewID()
		kept, err := m.Start(bg, id, info)
		if err != nil {
			t.Fatal(err)
		}
		if err := kept.Append(bg, p, false); err != nil { // its first chunk: the store's lock
			t.Fatal(err)
		}
		return id, kept
	}
	a, keptA := start()
	b, _ := start()
	if err := keptA.Append(bg, p[:10], false); err != nil { // in place
		t.Fatal(err)
	}
	start() // its chunk evicts one live tail
	if _, err := m.Follow(bg, b, owner, 0); !errors.Is(err, resume.ErrGone) {
		t.Errorf("the tail appended to less recently: Follow = %v, want ErrGone", err)
	}
	if _, err := m.Follow(bg, a, owner, 0); err != nil {
		t.Errorf("the tail appended to last was evicted: %v", err)
	}
}
