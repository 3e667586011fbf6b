package redisstore_test

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/internal/redistest"
	"github.com/layer0/anth/resume"
	"github.com/layer0/anth/resume/redisstore"
	"github.com/layer0/anth/resume/storetest"
)

var bg = context.Background()

func newStore(t testing.TB, opts redisstore.Options) *redisstore.Store {
	t.Helper()
	s, err := redisstore.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	storetest.Run(t, func(t *testing.T) resume.Store {
		return newStore(t, redisstore.Options{Addr: srv.Addr, Poll: 200 * time.Millisecond})
	})
}

var (
	owner = resume.OwnerOf("sk-redis")
	info  = resume.Info{Owner: owner, API: "/v1/messages", TTL: time.Minute}
)

func create(t testing.TB, s resume.Store) resume.ID {
	t.Helper()
	id := resume.NewID()
	if err := s.Create(bg, id, info); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestTwoInstances: two stores on one Redis, as two gateway instances: one
// appends, the other follows live, and a third Store made after the first
// is closed (its instance killed) still reads the whole tail.
func TestTwoInstances(t *testing.T) {
	srv := redistest.Start(t)
	a := newStore(t, redisstore.Options{Addr: srv.Addr})
	b := newStore(t, redisstore.Options{Addr: srv.Addr})
	id := create(t, a)
	f, err := b.Follow(bg, id, owner, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	done := make(chan []byte)
	go func() {
		var got []byte
		for {
			_, p, err := f.Next(bg)
			if err != nil {
				if err != io.EOF {
					t.Errorf("Next: %v", err)
				}
				done <- got
				return
			}
			got = append(got, p...)
		}
	}()
	for i := range 50 {
		p := []byte{byte(i), byte(i), byte(i)}
		want = append(want, p...)
		if err := a.Append(bg, id, p, i == 49); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, <-done); diff != "" {
		t.Fatalf("follower on the other instance (-want +got):\n%s", diff)
	}
	a.Close()
	c := newStore(t, redisstore.Options{Addr: srv.Addr})
	f, err = c.Follow(bg, id, owner, 30)
	if err != nil {
		t.Fatal(err)
	}
	start, p, err := f.Next(bg)
	if err != nil || start != 30 || !cmp.Equal(p, want[30:33]) {
		t.Fatalf("after the appending instance closed: %d %v %v", start, p, err)
	}
}

// TestRestart: redis-server restarts (without persistence) while a
// follower waits; the follower gets a typed error, not a hang, and the
// tail is gone after the restart (ErrNotFound).
func TestRestart(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, redisstore.Options{Addr: srv.Addr, Poll: 200 * time.Millisecond, Timeout: 500 * time.Millisecond})
	id := create(t, s)
	if err := s.Append(bg, id, []byte("abc"), false); err != nil {
		t.Fatal(err)
	}
	f, err := s.Follow(bg, id, owner, 3)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		for {
			_, _, err := f.Next(bg)
			if err != nil {
				errc <- err
				return
			}
		}
	}()
	time.Sleep(50 * time.Millisecond)
	srv.Restart()
	select {
	case err := <-errc:
		if !errors.Is(err, resume.ErrUnavailable) && !errors.Is(err, resume.ErrGone) {
			t.Fatalf("follower across a restart: %v, want ErrUnavailable or ErrGone", err)
		}
		t.Logf("follower across a restart: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("follower hung across a restart")
	}
	// The client reconnects: the store works again, without the tail.
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err = s.Follow(bg, id, owner, 0)
		if !errors.Is(err, resume.ErrUnavailable) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !errors.Is(err, resume.ErrNotFound) {
		t.Fatalf("Follow after a restart = %v, want ErrNotFound", err)
	}
	// rueidis reconnects each of its connections when it next fails: an
	// Append may go out on one that has not yet, and is unavailable once
	// (seen under -race on a loaded machine).
	for {
		err = s.Append(bg, id, []byte("d"), false)
		if !errors.Is(err, resume.ErrUnavailable) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !errors.Is(err, resume.ErrNotFound) {
		t.Fatalf("Append after a restart = %v, want ErrNotFound", err)
	}
	for {
		err = s.Create(bg, resume.NewID(), info)
		if !errors.Is(err, resume.ErrUnavailable) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("Create after a restart: %v", err)
	}
}

// TestUnreachable: with Redis stopped, every call fails with ErrUnavailable
// within the store's Timeout; New on an address nobody answers does too.
func TestUnreachable(t *testing.T) {
	srv := redistest.Start(t)
	const timeout = 300 * time.Millisecond
	s := newStore(t, redisstore.Options{Addr: srv.Addr, Timeout: timeout, Poll: 100 * time.Millisecond})
	id := create(t, s)
	if err := s.Append(bg, id, []byte("abc"), false); err != nil {
		t.Fatal(err)
	}
	f, err := s.Follow(bg, id, owner, 0)
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	check := func(what string, err error, took time.Duration) {
		t.Helper()
		if !errors.Is(err, resume.ErrUnavailable) {
			t.Errorf("%s with Redis down = %v, want ErrUnavailable", what, err)
		}
		if took > 2*timeout+time.Second {
			t.Errorf("%s took %v with Redis down, Timeout %v", what, took, timeout)
		}
	}
	t0 := time.Now()
	err = s.Append(bg, id, []byte("d"), false)
	check("Append", err, time.Since(t0))
	t0 = time.Now()
	_, err = s.Follow(bg, id, owner, 0)
	check("Follow", err, time.Since(t0))
	t0 = time.Now()
	err = s.Create(bg, resume.NewID(), info)
	check("Create", err, time.Since(t0))
	t0 = time.Now()
	var nextErr error
	for nextErr == nil { // the first chunk may be the one read before
		_, _, nextErr = f.Next(bg)
	}
	check("Next", nextErr, time.Since(t0))

	// An address that accepts nothing: a listener that never answers.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	t0 = time.Now()
	_, err = redisstore.New(redisstore.Options{Addr: l.Addr().String(), Timeout: timeout})
	check("New on a silent server", err, time.Since(t0))
}

// TestAppendOneRoundTrip counts Redis's commands: an Append is one EVALSHA
// however many tokens its bytes hold (SPEC §13: batch, not one round trip
// per token).
func TestAppendOneRoundTrip(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, redisstore.Options{Addr: srv.Addr})
	id := create(t, s)
	s.Append(bg, id, []byte("warm"), false) // SCRIPT LOAD once
	before := calls(t, srv)
	const n = 100
	for range n {
		if err := s.Append(bg, id, make([]byte, 300), false); err != nil {
			t.Fatal(err)
		}
	}
	after := calls(t, srv)
	// Round trips: commands the client sent (EVALSHA, and PINGs the
	// client may send to check its connection, which are not the
	// store's).
	if got := after["evalsha"] - before["evalsha"]; got != n {
		t.Fatalf("%d appends took %d EVALSHA, want %d", n, got, n)
	}
	for _, cmd := range []string{"eval", "xread", "xrange", "hset", "xadd"} {
		if d := after[cmd] - before[cmd]; cmd == "eval" && d != 0 || (cmd == "hset" || cmd == "xadd") && d != n {
			t.Errorf("%s: %d calls for %d appends", cmd, d, n)
		}
	}
}

// calls returns Redis's count of calls of each command (INFO
// commandstats), those run by scripts included.
func calls(t testing.TB, srv *redistest.Server) map[string]int64 {
	t.Helper()
	m := make(map[string]int64)
	for _, line := range strings.Split(srv.Do("INFO", "commandstats"), "\r\n") {
		name, rest, ok := strings.Cut(line, ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			t.Fatalf("INFO commandstats: %q", line)
		}
		m[strings.TrimPrefix(name, "cmdstat_")] = v
	}
	return m
}

// TestFollowerOfExpiredTail: a follower waiting on a tail whose TTL passes
// gets ErrGone within Options.Poll of it, not a wait for ever on a stream
// that no longer exists.
func TestFollowerOfExpiredTail(t *testing.T) {
	srv := redistest.Start(t)
	const poll = 100 * time.Millisecond
	s := newStore(t, redisstore.Options{Addr: srv.Addr, Poll: poll})
	in := info
	in.TTL = 200 * time.Millisecond
	id := resume.NewID()
	if err := s.Create(bg, id, in); err != nil {
		t.Fatal(err)
	}
	f, err := s.Follow(bg, id, owner, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bg, 3*time.Second)
	defer cancel()
	t0 := time.Now()
	_, _, err = f.Next(ctx)
	if !errors.Is(err, resume.ErrGone) {
		t.Fatalf("Next on an expired tail = %v after %v, want ErrGone", err, time.Since(t0))
	}
	if took := time.Since(t0); took > in.TTL+2*poll+500*time.Millisecond {
		t.Fatalf("ErrGone after %v, TTL %v, Poll %v", took, in.TTL, poll)
	}
}

// TestAppendAllocs: an Append, the gateway's one call a write, allocates
// nothing in steady state (its keys and arguments live in a pooled
// scratch; the script answers an integer). The race detector's sync.Pool
// drops entries at random, so the count is checked without it (.ci/run
// runs Alloc tests so).
func TestAppendAllocs(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, redisstore.Options{Addr: srv.Addr})
	id := create(t, s)
	p := make([]byte, 16*9)
	s.Append(bg, id, p, false) // the script's first run
	// AllocsPerRun counts the whole process's allocations, rueidis's
	// background reader and writer included, which now and then allocate
	// for themselves (20 a run was seen once): the least of five runs is
	// Append's own, since an allocation of Append's shows in every run.
	n := math.Inf(1)
	for range 5 {
		n = min(n, testing.AllocsPerRun(200, func() {
			if err := s.Append(bg, id, p, false); err != nil {
				t.Fatal(err)
			}
		}))
	}
	if raceEnabled {
		t.Logf("Append: %v allocs under the race detector, not checked", n)
		return
	}
	if n != 0 {
		t.Fatalf("Append: %v allocs, want 0", n)
	}
}

// TestSilentServer: a Redis that accepts nothing and answers nothing (its
// process stopped: no reset, no refusal) makes Append, Follow and a
// follower's Next fail with ErrUnavailable within about Timeout, the
// bound the gateway's stream waits at most once (the gateway stops
// keeping a tail after its first failed Append).
func TestSilentServer(t *testing.T) {
	srv := redistest.Start(t)
	const timeout = 500 * time.Millisecond
	s := newStore(t, redisstore.Options{Addr: srv.Addr, Timeout: timeout, Poll: 100 * time.Millisecond})
	id := create(t, s)
	if err := s.Append(bg, id, []byte("abc"), false); err != nil {
		t.Fatal(err)
	}
	f, err := s.Follow(bg, id, owner, 3)
	if err != nil {
		t.Fatal(err)
	}
	srv.Pause()
	defer srv.Resume()
	bound := 3*timeout + time.Second
	for _, c := range []struct {
		what string
		f    func() error
	}{
		{"Append", func() error { return s.Append(bg, id, []byte("d"), false) }},
		{"Follow", func() error { _, err := s.Follow(bg, id, owner, 0); return err }},
		{"Next", func() error { _, _, err := f.Next(bg); return err }},
	} {
		t0 := time.Now()
		errc := make(chan error, 1)
		go func() { errc <- c.f() }()
		select {
		case err := <-errc:
			if !errors.Is(err, resume.ErrUnavailable) {
				t.Errorf("%s with Redis silent = %v, want ErrUnavailable", c.what, err)
			}
			t.Logf("%s: %v after %v", c.what, err, time.Since(t0).Round(time.Millisecond))
		case <-time.After(bound):
			t.Fatalf("%s with Redis silent: no answer after %v (Timeout %v)", c.what, bound, timeout)
		}
	}
}

// TestEvictedStream: a tail whose stream Redis evicted (maxmemory) but
// whose hash it kept is gone, not an error of the script.
func TestEvictedStream(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, redisstore.Options{Addr: srv.Addr})
	id := create(t, s)
	if err := s.Append(bg, id, []byte("abc"), false); err != nil {
		t.Fatal(err)
	}
	srv.Do("DEL", redisstore.DefaultPrefix+"{"+string(id)+"}:s")
	if _, err := s.Follow(bg, id, owner, 1); !errors.Is(err, resume.ErrGone) {
		t.Fatalf("Follow of a tail without its stream = %v, want ErrGone", err)
	}
}
