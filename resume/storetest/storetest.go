// Package storetest is the conformance suite every resume.Store passes:
// the contract of resume/store.go checked the same way against the memory
// store, the Redis store and any store a user writes.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/layer0/anth/resume"
)

// Run runs the suite against stores made by newStore, one per subtest;
// newStore registers the store's cleanup with t (Run closes nothing).
// Some subtests wait for a TTL of 300ms to pass; the suite takes about
// two seconds.
func Run(t *testing.T, newStore func(t *testing.T) resume.Store) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.f(t, newStore(t)) })
	}
}

var cases = []struct {
	name string
	f    func(t *testing.T, s resume.Store)
}{
	{"EveryOffset", everyOffset},
	{"LiveFollow", liveFollow},
	{"TwoFollowers", twoFollowers},
	{"EndThenEOF", endThenEOF},
	{"AppendAfterEnd", appendAfterEnd},
	{"OwnerMismatch", ownerMismatch},
	{"Unknown", unknown},
	{"CreateTwice", createTwice},
	{"Range", outOfRange},
	{"TooLarge", tooLarge},
	{"TTL", ttl},
	{"CancelUnblocksNext", cancelUnblocksNext},
	{"CopiesAppend", copiesAppend},
	{"Model", model},
	{"Start", start},
}

var (
	owner = resume.OwnerOf("sk-conformance")
	other = resume.OwnerOf("sk-someone-else")
	info  = resume.Info{Owner: owner, API: "/v1/messages", TTL: time.Minute, MaxBytes: 1 << 20}
)

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

func create(t tb, s resume.Store, info resume.Info) resume.ID {
	t.Helper()
	id := resume.NewID()
	if err := s.Create(context.Background(), id, info); err != nil {
		t.Fatalf("Create: %v", err)
	}
	return id
}

func appendAll(t testing.TB, s resume.Store, id resume.ID, parts [][]byte, end bool) {
	t.Helper()
	for i, p := range parts {
		if err := s.Append(context.Background(), id, p, end && i == len(parts)-1); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
}

// timeout bounds each wait of the suite, so a store that hangs fails.
const timeout = 5 * time.Second

// read reads f until it returns an error or has read up to want bytes
// (want < 0: until an error), checks that chunks come without gaps or
// overlaps, and returns where the first chunk started, the bytes from
// there, and the error that ended it (nil when want was reached).
func read(t tb, f resume.Follower, want int64) (first int64, got []byte, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	first, next := int64(-1), int64(-1)
	for want < 0 || next < want {
		start, p, err := f.Next(ctx)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Next blocked for %v at offset %d", timeout, next)
			}
			return first, got, err
		}
		if len(p) == 0 {
			t.Fatalf("Next returned an empty chunk at %d", start)
		}
		if first < 0 {
			first = start
		} else if start != next {
			t.Fatalf("chunk at %d after one that ended at %d (a gap or a duplicate)", start, next)
		}
		got = append(got, p...)
		next = start + int64(len(p))
	}
	return first, got, nil
}

func follow(t testing.TB, s resume.Store, id resume.ID, from int64) resume.Follower {
	t.Helper()
	f, err := s.Follow(context.Background(), id, owner, from)
	if err != nil {
		t.Fatalf("Follow at %d: %v", from, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// parts returns n appends of varied sizes, each with distinct bytes.
func parts(n int) (ps [][]byte, all []byte) {
	for i := range n {
		p := bytes.Repeat([]byte{byte('a' + i%26)}, 1+(i*37)%200)
		p[0] = byte(i)
		ps = append(ps, p)
		all = append(all, p...)
	}
	return ps, all
}

// startOf returns where the append holding offset from starts.
func startOf(ps [][]byte, from int64) int64 {
	var off int64
	for _, p := range ps {
		if from < off+int64(len(p)) {
			return off
		}
		off += int64(len(p))
	}
	return off
}

func everyOffset(t *testing.T, s resume.Store) {
	ps, all := parts(12)
	id := create(t, s, info)
	appendAll(t, s, id, ps, true)
	for from := int64(0); from <= int64(len(all)); from++ {
		f := follow(t, s, id, from)
		first, got, err := read(t, f, -1)
		if err != io.EOF {
			t.Fatalf("from %d: ended with %v, want io.EOF", from, err)
		}
		if from == int64(len(all)) {
			if got != nil {
				t.Fatalf("from the end: got %d bytes", len(got))
			}
			continue
		}
		if want := startOf(ps, from); first != want {
			t.Fatalf("from %d: first chunk at %d, want %d (the start of the append holding it)", from, first, want)
		}
		if diff := cmp.Diff(all[first:], got); diff != "" {
			t.Fatalf("from %d: bytes differ (-want +got):\n%s", from, diff)
		}
		f.Close()
	}
}

// liveFollow: a follower at 0 and one at the end, both started before the
// appends, read every byte once, in order.
func liveFollow(t *testing.T, s resume.Store) {
	ps, all := parts(200)
	id := create(t, s, info)
	appendAll(t, s, id, ps[:1], false)
	f0 := follow(t, s, id, 0)
	f1 := follow(t, s, id, int64(len(ps[0])))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i, p := range ps[1:] {
			if err := s.Append(context.Background(), id, p, i == len(ps)-2); err != nil {
				t.Errorf("Append: %v", err)
				return
			}
		}
	}()
	for _, f := range []resume.Follower{f0, f1} {
		first, got, err := read(t, f, -1)
		if err != io.EOF {
			t.Fatalf("ended with %v, want io.EOF", err)
		}
		if diff := cmp.Diff(all[first:], got); diff != "" {
			t.Fatalf("bytes differ (-want +got):\n%s", diff)
		}
	}
	<-done
}

// twoFollowers: two followers at once, each in its own goroutine, blocked
// in Next while the appends arrive.
func twoFollowers(t *testing.T, s resume.Store) {
	ps, all := parts(100)
	id := create(t, s, info)
	var wg sync.WaitGroup
	for range 2 {
		f := follow(t, s, id, 0)
		wg.Go(func() {
			first, got, err := read(t, f, -1)
			if err != io.EOF || first != 0 {
				t.Errorf("ended with %v at first %d, want io.EOF at 0", err, first)
			}
			if diff := cmp.Diff(all, got); diff != "" {
				t.Errorf("bytes differ (-want +got):\n%s", diff)
			}
		})
	}
	for i, p := range ps {
		if err := s.Append(context.Background(), id, p, i == len(ps)-1); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			time.Sleep(time.Millisecond) // let the followers block between appends
		}
	}
	wg.Wait()
}

func endThenEOF(t *testing.T, s resume.Store) {
	id := create(t, s, info)
	appendAll(t, s, id, [][]byte{[]byte("abc")}, false)
	f := follow(t, s, id, 0)
	if _, got, err := read(t, f, 3); err != nil || string(got) != "abc" {
		t.Fatalf("read %q, %v", got, err)
	}
	// An end with no bytes of its own ends the tail too.
	if err := s.Append(context.Background(), id, nil, true); err != nil {
		t.Fatal(err)
	}
	if _, got, err := read(t, f, -1); err != io.EOF || got != nil {
		t.Fatalf("after the end: %q, %v, want io.EOF", got, err)
	}
	// Again: io.EOF stays.
	if _, _, err := read(t, f, -1); err != io.EOF {
		t.Fatalf("Next after io.EOF: %v, want io.EOF", err)
	}
}

func appendAfterEnd(t *testing.T, s resume.Store) {
	id := create(t, s, info)
	appendAll(t, s, id, [][]byte{[]byte("abc")}, true)
	if err := s.Append(context.Background(), id, []byte("d"), false); !errors.Is(err, resume.ErrEnded) {
		t.Fatalf("Append after end = %v, want ErrEnded", err)
	}
	_, got, err := read(t, follow(t, s, id, 0), -1)
	if err != io.EOF || string(got) != "abc" {
		t.Fatalf("the tail after a refused Append: %q, %v", got, err)
	}
}

// start: a tail made by resume.Start and appended to through its Tail is
// the tail its ID names, which Appends by ID add to as well.
func start(t *testing.T, s resume.Store) {
	ctx := context.Background()
	id := resume.NewID()
	tl, err := resume.Start(ctx, s, id, info)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if _, err := resume.Start(ctx, s, id, info); !errors.Is(err, resume.ErrExists) {
		t.Fatalf("a second Start = %v, want ErrExists", err)
	}
	if err := tl.Append(ctx, []byte("ab"), false); err != nil {
		t.Fatal(err)
	}
	appendAll(t, s, id, [][]byte{[]byte("c")}, false)
	if err := tl.Append(ctx, []byte("d"), true); err != nil {
		t.Fatal(err)
	}
	if err := tl.Append(ctx, []byte("e"), false); !errors.Is(err, resume.ErrEnded) {
		t.Fatalf("Append through the Tail after end = %v, want ErrEnded", err)
	}
	_, got, err := read(t, follow(t, s, id, 0), -1)
	if err != io.EOF || string(got) != "abcd" {
		t.Fatalf("the tail: %q, %v, want \"abcd\", io.EOF", got, err)
	}
}

func ownerMismatch(t *testing.T, s resume.Store) {
	id := create(t, s, info)
	appendAll(t, s, id, [][]byte{[]byte("abc")}, false)
	if _, err := s.Follow(context.Background(), id, other, 0); !errors.Is(err, resume.ErrNotFound) {
		t.Fatalf("Follow with another owner = %v, want ErrNotFound", err)
	}
}

func unknown(t *testing.T, s resume.Store) {
	ctx := context.Background()
	for _, id := range []resume.ID{resume.NewID(), "", "not an id", "AAAAAAAAAAAAAAAAAAAA a"} {
		if _, err := s.Follow(ctx, id, owner, 0); !errors.Is(err, resume.ErrNotFound) {
			t.Errorf("Follow(%q) = %v, want ErrNotFound", id, err)
		}
		if err := s.Append(ctx, id, []byte("x"), false); !errors.Is(err, resume.ErrNotFound) {
			t.Errorf("Append(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func createTwice(t *testing.T, s resume.Store) {
	id := create(t, s, info)
	appendAll(t, s, id, [][]byte{[]byte("abc")}, false)
	if err := s.Create(context.Background(), id, info); !errors.Is(err, resume.ErrExists) {
		t.Fatalf("second Create = %v, want ErrExists", err)
	}
	if _, got, err := read(t, follow(t, s, id, 0), 3); err != nil || string(got) != "abc" {
		t.Fatalf("the tail after a refused Create: %q, %v", got, err)
	}
}

func outOfRange(t *testing.T, s resume.Store) {
	id := create(t, s, info)
	for _, from := range []int64{1, -1} {
		if _, err := s.Follow(context.Background(), id, owner, from); !errors.Is(err, resume.ErrRange) {
			t.Fatalf("Follow at %d of an empty tail = %v, want ErrRange", from, err)
		}
	}
	appendAll(t, s, id, [][]byte{[]byte("abc")}, false)
	if _, err := s.Follow(context.Background(), id, owner, 4); !errors.Is(err, resume.ErrRange) {
		t.Fatalf("Follow at 4 of 3 bytes = %v, want ErrRange", err)
	}
}

func tooLarge(t *testing.T, s resume.Store) {
	in := info
	in.MaxBytes = 100
	id := create(t, s, in)
	appendAll(t, s, id, [][]byte{make([]byte, 60), make([]byte, 40)}, false) // exactly MaxBytes is kept
	f := follow(t, s, id, 0)
	if _, _, err := read(t, f, 100); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(context.Background(), id, []byte("x"), false); !errors.Is(err, resume.ErrTooLarge) {
		t.Fatalf("Append past MaxBytes = %v, want ErrTooLarge", err)
	}
	if _, _, err := read(t, f, -1); !errors.Is(err, resume.ErrGone) {
		t.Fatalf("follower of a dropped tail: %v, want ErrGone", err)
	}
	if _, err := s.Follow(context.Background(), id, owner, 0); !errors.Is(err, resume.ErrGone) {
		t.Fatalf("Follow of a dropped tail = %v, want ErrGone", err)
	}
	if err := s.Append(context.Background(), id, []byte("x"), false); !errors.Is(err, resume.ErrGone) {
		t.Fatalf("Append to a dropped tail = %v, want ErrGone", err)
	}
}

func ttl(t *testing.T, s resume.Store) {
	in := info
	in.TTL = 300 * time.Millisecond
	idle := create(t, s, in)
	ended := create(t, s, in)
	busy := create(t, s, in)
	appendAll(t, s, idle, [][]byte{[]byte("a")}, false)
	appendAll(t, s, ended, [][]byte{[]byte("a")}, true)
	// busy is appended to every 100ms: its TTL runs from the last Append.
	for range 6 {
		appendAll(t, s, busy, [][]byte{[]byte("b")}, false)
		time.Sleep(100 * time.Millisecond)
	}
	for _, id := range []resume.ID{idle, ended} {
		if _, err := s.Follow(context.Background(), id, owner, 0); !errors.Is(err, resume.ErrNotFound) {
			t.Errorf("Follow past the TTL = %v, want ErrNotFound", err)
		}
		if err := s.Append(context.Background(), id, []byte("a"), false); !errors.Is(err, resume.ErrNotFound) {
			t.Errorf("Append past the TTL = %v, want ErrNotFound", err)
		}
	}
	if _, got, err := read(t, follow(t, s, busy, 0), 6); err != nil || string(got) != "bbbbbb" {
		t.Errorf("a tail appended to within its TTL: %q, %v", got, err)
	}
}

func cancelUnblocksNext(t *testing.T, s resume.Store) {
	id := create(t, s, info)
	f := follow(t, s, id, 0)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, _, err := f.Next(ctx); errc <- err }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Next after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(timeout):
		t.Fatal("cancel did not unblock Next")
	}
	// The follower still works.
	appendAll(t, s, id, [][]byte{[]byte("abc")}, true)
	if _, got, err := read(t, f, -1); err != io.EOF || string(got) != "abc" {
		t.Fatalf("after a cancelled Next: %q, %v", got, err)
	}
}

// copiesAppend: the caller reuses p after Append returns (Store.Append).
func copiesAppend(t *testing.T, s resume.Store) {
	id := create(t, s, info)
	p := []byte("abc")
	appendAll(t, s, id, [][]byte{p}, false)
	copy(p, "xyz")
	appendAll(t, s, id, [][]byte{p}, true)
	if _, got, err := read(t, follow(t, s, id, 0), -1); err != io.EOF || string(got) != "abcxyz" {
		t.Fatalf("got %q, %v, want abcxyz", got, err)
	}
}

// model: random appends, ends and follows at random cursors (inside,
// at, past the bytes kept; by the owner or not) give what a model of the
// contract says.
func model(t *testing.T, s resume.Store) {
	rapid.Check(t, func(rt *rapid.T) {
		id := create(rt, s, info)
		var ps [][]byte
		var all []byte
		ended := false
		ops := rapid.IntRange(1, 30).Draw(rt, "ops")
		for range ops {
			if rapid.IntRange(0, 2).Draw(rt, "op") < 2 {
				p := rapid.SliceOfN(rapid.Byte(), 0, 64).Draw(rt, "p")
				end := rapid.IntRange(0, 9).Draw(rt, "end") == 0
				err := s.Append(context.Background(), id, p, end)
				if ended {
					if !errors.Is(err, resume.ErrEnded) {
						rt.Fatalf("Append after end = %v", err)
					}
					continue
				}
				if err != nil {
					rt.Fatalf("Append: %v", err)
				}
				if len(p) > 0 {
					ps = append(ps, p)
					all = append(all, p...)
				}
				ended = end
				continue
			}
			n := int64(len(all))
			from := rapid.Int64Range(-1, n+1).Draw(rt, "from")
			who := owner
			if rapid.IntRange(0, 9).Draw(rt, "other") == 0 {
				who = other
			}
			f, err := s.Follow(context.Background(), id, who, from)
			switch {
			case who != owner:
				if !errors.Is(err, resume.ErrNotFound) {
					rt.Fatalf("Follow by another owner = %v", err)
				}
				continue
			case from < 0 || from > n:
				if !errors.Is(err, resume.ErrRange) {
					rt.Fatalf("Follow at %d of %d = %v, want ErrRange", from, n, err)
				}
				continue
			case err != nil:
				rt.Fatalf("Follow at %d of %d: %v", from, n, err)
			}
			want := n
			if ended {
				want = -1
			}
			var first int64
			var got []byte
			if from < n || ended {
				first, got, err = read(rt, f, want)
			}
			f.Close()
			if ended && err != io.EOF || !ended && err != nil {
				rt.Fatalf("Follow at %d of %d (ended %v): %v", from, n, ended, err)
			}
			if from == n {
				if len(got) != 0 {
					rt.Fatalf("Follow at the end gave %d bytes", len(got))
				}
				continue
			}
			type chunk struct {
				First int64
				Bytes []byte
			}
			wantFirst := startOf(ps, from)
			if diff := cmp.Diff(chunk{wantFirst, all[wantFirst:]}, chunk{first, got}); diff != "" {
				rt.Fatalf("Follow at %d (-model +store):\n%s", from, diff)
			}
		}
	})
}
