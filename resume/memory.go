package resume

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for MemoryOptions' zero values and for an Info whose TTL is zero.
const (
	// DefaultTTL is how long a tail is kept after its last Append when its
	// Info.TTL is zero.
	DefaultTTL = 5 * time.Minute
	// DefaultMemoryMaxBytes bounds a Memory's tails together when
	// MemoryOptions.MaxBytes is zero.
	DefaultMemoryMaxBytes = 64 << 20
	// DefaultSweepEvery is how often a Memory drops expired tails when
	// MemoryOptions.SweepEvery is zero.
	DefaultSweepEvery = 10 * time.Second
)

// TailOverhead is what a Memory charges each tail beside its bytes: the
// tail's record and its map entry (whose key is the ID's bytes), rounded
// up (measured by TestMemoryHeldPerResponse). Charging it bounds the
// number of tails, not only their bytes, so a flood of empty responses
// cannot grow the map without limit.
const TailOverhead = 512

// MemoryOptions configures a Memory. The zero value is usable.
type MemoryOptions struct {
	// MaxBytes bounds the memory all tails hold together: each tail is
	// charged its chunks' capacity, TailOverhead (which covers where its
	// first 16 Appends start) and 8 bytes an Append past those; the
	// store's spare chunks (see Memory) are charged too. When an Append or
	// Create would pass it the store frees what holds nothing a resume
	// can read, dropped tails' records and then its spare chunks, and then
	// evicts other tails: ended tails, then live ones, each group least
	// recently appended to first (for live tails, in the second-chance
	// order of Memory.oldest, as most Appends leave the lists alone).
	// An evicted tail is gone (ErrGone) to its followers and to Follow
	// until its TTL passes. Zero means DefaultMemoryMaxBytes.
	MaxBytes int64
	// TTL is used for tails whose Info.TTL is zero; zero means DefaultTTL.
	// A tail is kept at least its TTL after its last Append, and one
	// whose TTL is at least 64 of the store's ticks (TTL/64, between 10 ms
	// and 1 s; a second with DefaultTTL) at most two ticks longer: its
	// Appends read the store's clock, which its goroutine sets every
	// tick, rather than the monotonic clock.
	TTL time.Duration
	// SweepEvery is how often expired tails are dropped by a goroutine
	// that Close stops; between sweeps an expired tail is dropped when it
	// is next touched. Zero means DefaultSweepEvery.
	SweepEvery time.Duration
}

// Memory is a Store in the process's memory, for a gateway that runs as
// one instance. It wakes followers by closing a channel made only when
// someone waits, and bounds its memory by MemoryOptions.MaxBytes.
//
// Most Appends take only their tail's own lock: one that fits in the
// room left in the tail's last chunk changes nothing but the tail. The
// rest (a tail's first bytes, a new chunk, its end), Create, Follow and
// eviction take the store's lock, and then the tail's; so streams do not
// queue for one lock on every write, as they did when the store's lock
// was taken by every Append (a third of the CPU of a busy gateway's kept
// streams went to passing it between cores).
//
// A tail of n bytes in k Appends holds about n + TailOverhead bytes (and
// 8 more an Append past its 16th), plus the room left in its last chunk
// (which is charged): a tail's bytes are kept in chunks, each half as big
// as the tail before it, so a growing tail is never copied.
//
// The chunks of a tail that is removed (evicted, expired) before anyone
// followed it, so that no slice of them was ever handed out, are kept as
// spares, still charged, for the next tails to fill: a busy store, where
// every new tail makes another go, allocates no chunks of its own
// (BenchmarkMemoryStream: 3,520 bytes allocated for an event stream's
// response of 2,683 become 736, its ID and its record). Each sweep lets
// go of the spares no tail took since the sweep before, so an idle
// store's memory goes back to the garbage collector.
type Memory struct {
	mu     sync.Mutex
	tails  map[idKey]*tail // by the ID's bytes: a key with no pointer, which the garbage collector skips and a lookup compares in place
	lists  [3]tailList     // by class: dropped, ended, live; oldest first
	total  int64           // charged bytes of all tails
	max    int64
	ttl    time.Duration
	base   time.Time   // what now counts from
	closed atomic.Bool // set under mu; read without it by appendInPlace

	// clock is now's reading as of the last tick of the sweep's
	// goroutine, every tick: what an Append in place of a tail whose TTL
	// is long beside tick reads (tail.now).
	clock atomic.Int64
	tick  time.Duration

	// spare holds the chunks of removed tails that were never followed,
	// by capacity: class k those of 2^k to 2^(k+1)-1 bytes. Their
	// capacity, spareBytes, is in total.
	spare      [64][][]byte
	spareBytes int64

	stop chan struct{}
	done chan struct{}
}

// Classes of tails, in the order Memory evicts them.
const (
	classDropped = iota
	classEnded
	classLive
	classSpare // not a list: makeRoom's turn to free spares
)

// A tail's fields are the store's: they change with Memory.mu held, and
// with the tail's own mu too for those appendInPlace reads or writes
// (chunks, size, starts, expires, ended, dropped, removed, touched,
// wake), which appendInPlace changes with mu alone. So a tail's mu is
// taken after the store's (never the other way round), and one holding
// both may take another tail's mu (to evict it): only the holder of the
// store's lock holds two.
type tail struct {
	m        *Memory    // the tail's store, for Append through the tail (Tail)
	mu       sync.Mutex // see above
	owner    Owner
	ttl      time.Duration
	maxBytes int64     // Info.MaxBytes; Info.API is not kept, as Memory never reads it (the Owner covers the API, see anthhttp)
	chunks   [][]byte  // the tail's bytes, in chunks never written below their length, so slices of them handed out stay valid
	chunk0   [4][]byte // chunks' first backing
	size     int64     // the bytes in chunks
	starts   []int64   // offset of each Append's first byte
	first    [16]int64 // starts' first backing: most responses take fewer Appends, and then no allocation of their own
	ended    bool
	// followed: Follow has been called on it, so slices of its chunks
	// may be held outside the store, which therefore never reuses them.
	followed bool
	dropped  bool  // grew past MaxBytes or was evicted: ErrGone
	removed  bool  // no longer in the map (expired): ErrGone to followers
	touched  bool  // appended to in place since it was put at the back of its list (oldest)
	coarse   bool  // its TTL is long beside the store's tick: an Append in place reads Memory.clock (tail.now)
	class    uint8 // the list it is on: classDropped, classEnded or classLive; beside the flags, in their padding, so the record stays in the 416-byte size class (BenchmarkResumeHeld)
	key      idKey // its key in the map, the ID's bytes, held in the record rather than as the ID's string
	expires  int64 // Memory.now's reading past which the tail is gone
	charged  int64
	wake     chan struct{} // made by a waiting follower, closed by the next change

	prev, next *tail
}

// idKey is an ID as a map key: its 22 bytes (ID.Valid), in the record,
// where a string key was a pointer to an object of its own for every tail
// (that the store kept alive and the garbage collector marked).
type idKey [22]byte

// keyOf returns id's key; id is Valid.
func keyOf(id ID) (k idKey) {
	copy(k[:], id)
	return k
}

type tailList struct{ head, last *tail }

func (l *tailList) push(t *tail) {
	t.prev, t.next = l.last, nil
	if l.last != nil {
		l.last.next = t
	} else {
		l.head = t
	}
	l.last = t
}

func (l *tailList) remove(t *tail) {
	if t.prev != nil {
		t.prev.next = t.next
	} else {
		l.head = t.next
	}
	if t.next != nil {
		t.next.prev = t.prev
	} else {
		l.last = t.prev
	}
	t.prev, t.next = nil, nil
}

// NewMemory returns a Memory with opts, and starts the goroutine that
// sweeps expired tails; Close stops it.
func NewMemory(opts MemoryOptions) *Memory {
	m := &Memory{
		tails: make(map[idKey]*tail),
		max:   opts.MaxBytes,
		ttl:   opts.TTL,
		base:  time.Now(),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	if m.max <= 0 {
		m.max = DefaultMemoryMaxBytes
	}
	if m.ttl <= 0 {
		m.ttl = DefaultTTL
	}
	every := opts.SweepEvery
	if every <= 0 {
		every = DefaultSweepEvery
	}
	m.tick = min(max(m.ttl/coarseTicks, 10*time.Millisecond), time.Second)
	m.clock.Store(m.now())
	go m.sweep(every)
	return m
}

// coarseTicks is how many of the store's ticks a tail's TTL must span for
// its Appends in place to read the store's clock rather than the
// monotonic clock (tail.now): with the slack that keeps it from expiring
// early, two ticks, such a tail is kept at most 1/32 of its TTL longer.
const coarseTicks = 64

func (m *Memory) sweep(every time.Duration) {
	defer close(m.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	clock := time.NewTicker(m.tick)
	defer clock.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-clock.C:
			m.clock.Store(m.now())
		case <-tick.C:
			m.mu.Lock()
			// The spares no tail took since the sweep before go; those
			// of the tails expiring now wait for the next.
			m.releaseSpares()
			now := m.now()
			for _, t := range m.tails {
				t.mu.Lock()
				m.expired(t, now)
				t.mu.Unlock()
			}
			m.mu.Unlock()
		}
	}
}

var errClosed = fmt.Errorf("%w: memory store closed", ErrUnavailable)

// Create implements Store. An invalid id is refused with ErrNotFound, as
// Follow refuses it.
func (m *Memory) Create(ctx context.Context, id ID, info Info) error {
	_, err := m.Start(ctx, id, info)
	return err
}

// Start implements Starter: the Tail it returns is the tail's record, so
// that an Append through it finds the tail without the map or the ID.
func (m *Memory) Start(ctx context.Context, id ID, info Info) (Tail, error) {
	if !id.Valid() {
		return nil, ErrNotFound
	}
	if info.TTL <= 0 {
		info.TTL = m.ttl
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed.Load() {
		return nil, errClosed
	}
	now := m.now()
	key := keyOf(id)
	if t := m.tails[key]; t != nil {
		t.mu.Lock()
		gone := m.expired(t, now)
		t.mu.Unlock()
		if !gone {
			return nil, ErrExists
		}
	}
	if !m.makeRoom(TailOverhead, nil) {
		return nil, fmt.Errorf("%w: MaxBytes %d holds no tail (%d bytes each)", ErrTooLarge, m.max, TailOverhead)
	}
	t := &tail{m: m, owner: info.Owner, ttl: info.TTL, maxBytes: info.MaxBytes, key: key, class: classLive, charged: TailOverhead, expires: now + int64(info.TTL)}
	if info.TTL >= coarseTicks*m.tick {
		// The store's clock lags the monotonic clock by up to a tick (and
		// however late its goroutine runs): two ticks more, so that an
		// Append that reads it never sets the tail to expire early.
		t.coarse, t.ttl = true, info.TTL+2*m.tick
	}
	t.starts = t.first[:0]
	m.tails[key] = t
	m.lists[classLive].push(t)
	m.total += t.charged
	return t, nil
}

// Append implements Store.
func (m *Memory) Append(ctx context.Context, id ID, p []byte, end bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var t *tail
	if id.Valid() { // else no tail has it: Start refuses it
		t = m.tails[keyOf(id)]
	}
	if t == nil {
		if !m.closed.Load() {
			return ErrNotFound
		}
		return errClosed
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return m.append(t, p, end)
}

// Append implements Tail. A record no longer in the store (expired, or
// removed to make room) is not found, as its ID is not: it is never
// written to again, and a new tail under the same ID has a record of its
// own.
func (t *tail) Append(ctx context.Context, p []byte, end bool) error {
	if !end && t.appendInPlace(p) {
		return nil
	}
	m := t.m
	m.mu.Lock()
	defer m.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.removed && !m.closed.Load() {
		return ErrNotFound
	}
	return m.append(t, p, end)
}

// appendInPlace appends p to t with t's lock alone, and reports whether it
// could: when p fits in the room left in t's last chunk and in its starts,
// and t is live, so that neither the store's charge nor its lists change.
// The tail stays where it is on its list, marked touched, so that the
// store moves it to the back when it next looks there for a tail to evict
// (oldest). Otherwise Append takes the store's lock (append).
func (t *tail) appendInPlace(p []byte) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := len(t.chunks) - 1
	if k < 0 || t.ended || t.dropped || t.removed || t.m.closed.Load() ||
		cap(t.chunks[k])-len(t.chunks[k]) < len(p) || len(t.starts) == cap(t.starts) ||
		t.maxBytes > 0 && t.size+int64(len(p)) > t.maxBytes {
		return false
	}
	now := t.now()
	if now > t.expires {
		return false // append deletes it
	}
	if len(p) > 0 {
		t.starts = append(t.starts, t.size)
		t.chunks[k] = append(t.chunks[k], p...)
		t.size += int64(len(p))
	}
	t.expires = now + int64(t.ttl)
	t.touched = true
	t.wakeAll()
	return true
}

// append appends p to t, with m.mu and t.mu held. It copies p into the tail's last
// chunk, or a new one (newChunk) when p does not fit: an Append is never
// split across chunks, and a tail never grows past Info.MaxBytes.
func (m *Memory) append(t *tail, p []byte, end bool) error {
	if m.closed.Load() {
		return errClosed
	}
	now := m.now()
	if m.expired(t, now) {
		return ErrNotFound
	}
	switch {
	case t.dropped:
		return ErrGone
	case t.ended:
		return ErrEnded
	}
	n := t.size
	if max := t.maxBytes; max > 0 && n+int64(len(p)) > max {
		m.drop(t, true)
		return fmt.Errorf("%w: %d bytes kept, %d appended, at most %d", ErrTooLarge, n, len(p), max)
	}
	if len(p) > 0 {
		var last []byte
		if k := len(t.chunks); k > 0 {
			last = t.chunks[k-1]
		}
		starts := t.starts
		if cap(starts) == len(starts) {
			starts = make([]int64, len(starts), 2*cap(starts)+4)
			copy(starts, t.starts)
		}
		var fresh []byte // a new chunk, the tail's once there is room for it
		if cap(last)-len(last) < len(p) {
			c, spared := m.chunkFor(t, n, len(p))
			if spared {
				// Charged already, as a spare: the tail's at once, so
				// that dropping it below gives it back.
				t.charged += int64(cap(c))
				t.addChunk(c)
			} else {
				fresh = c
			}
		}
		charge := t.charged + int64(cap(fresh)) + t.startsCharge(cap(starts)) - t.startsCharge(cap(t.starts))
		if charge != t.charged {
			// Make room before taking it, so the bound holds at every
			// instant, not only after the old buffer is collected.
			if !m.makeRoom(charge-t.charged, t) {
				m.drop(t, true)
				return fmt.Errorf("%w: the store's %d bytes cannot hold %d for one tail", ErrTooLarge, m.max, charge)
			}
			m.total += charge - t.charged
			t.charged = charge
		}
		if fresh != nil {
			t.addChunk(fresh)
		}
		k := len(t.chunks) - 1
		t.chunks[k] = append(t.chunks[k], p...)
		t.size += int64(len(p))
		t.starts = append(starts, n)
	}
	t.expires = now + int64(t.ttl)
	// To the back of its class's list, as the most recently appended: a
	// tail that is there already, as a lone stream's always is, stays
	// without touching its neighbours' records.
	if end || m.lists[t.class].last != t {
		m.lists[t.class].remove(t)
		if end {
			t.ended = true
			t.class = classEnded
		}
		m.lists[t.class].push(t)
	}
	t.touched = false // it is at the back
	t.wakeAll()
	return nil
}

// addChunk adds c, empty, as t's last chunk.
func (t *tail) addChunk(c []byte) {
	if t.chunks == nil {
		t.chunks = t.chunk0[:0]
	}
	t.chunks = append(t.chunks, c[:0])
}

// chunkFor returns an empty chunk for t, of size bytes, to which need
// more are appended: a spare that holds them (and then spared is true)
// or a new one (newChunk), for which the caller makes room. A store at
// its bound frees what makeRoom would, in its order, one at a time, until
// a spare fits or a new chunk does; but the chunks of a tail it drops
// become spares, so that they serve this one.
func (m *Memory) chunkFor(t *tail, size int64, need int) (c []byte, spared bool) {
	want := chunkSize(size, need, t.maxBytes)
	most := int64(-1) // the largest chunk t may take, if it is bounded
	if limit := t.maxBytes; limit > 0 {
		most = limit - size
	}
	for {
		if c := m.takeSpare(want, most); c != nil {
			return c, true
		}
		// A smaller spare that holds this Append rather than a new
		// chunk: in a store serving streams of several shapes, where a
		// tail of one evicts a tail of another, the spares are seldom
		// of the size wanted, and letting them go to allocate cost a
		// stream a chunk (TestMemorySpareReusedMixed).
		if c := m.takeSmaller(int64(need), want, most); c != nil {
			return c, true
		}
		if m.total+want <= m.max {
			break
		}
		if d := m.oldest(classDropped, t); d != nil {
			d.mu.Lock()
			m.delete(d)
			d.mu.Unlock()
			continue
		}
		if m.releaseSpare() {
			continue // it did not fit
		}
		d := m.oldest(classEnded, t)
		if d == nil {
			d = m.oldest(classLive, t)
		}
		if d == nil {
			break // makeRoom fails too: t is dropped
		}
		d.mu.Lock()
		m.drop(d, true)
		d.mu.Unlock()
	}
	return newChunk(want), false
}

// oldest returns the least recently appended tail of class other than
// keep, or nil. A list is in the order its tails were last put at its
// back, by an append under the store's lock; a live tail appended to in
// place since (touched) is put at the back when met at the front, and
// not taken: the "second chance" order of the CLOCK algorithm, which is
// least recently appended first but among tails appended to in place
// since the store last looked. Ended and dropped tails are never appended
// to. keep is the tail whose append asks, which holds its own lock.
func (m *Memory) oldest(class int, keep *tail) *tail {
	l := &m.lists[class]
	// Each turn clears a mark, which only appends in place since can set
	// again: at most one turn a tail, and one more, unless those appends
	// race the store round its list; then the front goes.
	for range len(m.tails) + 1 {
		t := l.head
		if t != nil && t == keep {
			t = t.next
		}
		if t == nil || class != classLive {
			return t
		}
		t.mu.Lock()
		touched := t.touched
		t.touched = false
		t.mu.Unlock()
		if !touched {
			return t
		}
		l.remove(t)
		l.push(t)
	}
	t := l.head
	if t != nil && t == keep {
		t = t.next
	}
	return t
}

// takeSpare returns a spare chunk of capacity want to most (when most >=
// 0) and less than four times want, or nil, and counts it out of the
// spares (its charge stays in total).
func (m *Memory) takeSpare(want, most int64) []byte {
	if m.spareBytes == 0 {
		return nil
	}
	// Class k-1 holds chunks of want bytes and some smaller (a chunk
	// made for want is in it when its size class is not a power of
	// two); k and k+1 only larger ones.
	k := bits.Len64(uint64(want - 1))
	for i := max(k-1, 0); i < len(m.spare) && i <= k+1; i++ {
		s := m.spare[i]
		if len(s) == 0 {
			continue
		}
		c := s[len(s)-1]
		if int64(cap(c)) < want || most >= 0 && int64(cap(c)) > most {
			continue
		}
		return m.popSpare(i)
	}
	return nil
}

// takeSmaller returns a spare chunk of capacity need to less than want
// (and at most most, when most >= 0), the largest found, or nil, and
// counts it out of the spares. Of each class it looks at the last chunk
// only, as takeSpare does.
func (m *Memory) takeSmaller(need, want, most int64) []byte {
	if m.spareBytes == 0 || need <= 0 {
		return nil
	}
	// Class k holds chunks of 2^k to 2^(k+1)-1 bytes: want's class down
	// to need's.
	for i := bits.Len64(uint64(want)) - 1; i >= bits.Len64(uint64(need))-1; i-- {
		s := m.spare[i]
		if len(s) == 0 {
			continue
		}
		c := s[len(s)-1]
		if n := int64(cap(c)); n < need || n >= want || most >= 0 && n > most {
			continue
		}
		return m.popSpare(i)
	}
	return nil
}

// popSpare takes the last spare chunk of class k, which has one, out of
// the spares; its charge stays in total.
func (m *Memory) popSpare(k int) []byte {
	s := m.spare[k]
	c := s[len(s)-1]
	s[len(s)-1] = nil
	m.spare[k] = s[:len(s)-1]
	m.spareBytes -= int64(cap(c))
	return c
}

// putSpare keeps c as a spare; its charge is in total already.
func (m *Memory) putSpare(c []byte) {
	k := bits.Len64(uint64(cap(c))) - 1
	m.spare[k] = append(m.spare[k], c)
	m.spareBytes += int64(cap(c))
}

// releaseSpare lets the largest spare chunk go, and reports whether there
// was one.
func (m *Memory) releaseSpare() bool {
	if m.spareBytes == 0 {
		return false
	}
	for k := len(m.spare) - 1; k >= 0; k-- {
		if len(m.spare[k]) > 0 {
			m.total -= int64(cap(m.popSpare(k)))
			return true
		}
	}
	return false // not reached: spareBytes counts the chunks held
}

// releaseSpares lets every spare chunk go.
func (m *Memory) releaseSpares() {
	for k := range m.spare {
		clear(m.spare[k])
		m.spare[k] = m.spare[k][:0]
	}
	m.total -= m.spareBytes
	m.spareBytes = 0
}

// chunkSize is the capacity of a new chunk for a tail of size bytes to
// which need more are appended: half as big as the tail so far (so
// chunks grow geometrically, as a buffer grown by half again would, but
// nothing is copied), room for need at least, and no more than limit
// allows (when limit > 0), which a tail may never pass.
func chunkSize(size int64, need int, limit int64) int64 {
	c := max(int64(need), size/2)
	if size == 0 {
		// The first write predicts the rest: an event stream's first
		// event is several times an ANTH client's first frames, and so
		// is its response. Room for four more like it spares a growing
		// tail most of its chunks.
		c = max(512, 4*int64(need))
	}
	if limit > 0 && size+c > limit {
		c = limit - size
	}
	return c
}

// newChunk returns an empty chunk of at least c bytes: through append,
// so that its capacity is all of the allocation (its size class), and
// what is charged is what is held.
func newChunk(c int64) []byte {
	return slices.Grow([]byte(nil), int(c))
}

// Follow implements Store.
func (m *Memory) Follow(ctx context.Context, id ID, owner Owner, from int64) (Follower, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed.Load() {
		return nil, errClosed
	}
	if !id.Valid() {
		return nil, ErrNotFound
	}
	t := m.tails[keyOf(id)]
	if t == nil || t.owner != owner {
		return nil, ErrNotFound
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if m.expired(t, m.now()) {
		return nil, ErrNotFound
	}
	if t.dropped {
		return nil, ErrGone
	}
	n := t.size
	if from < 0 || from > n {
		return nil, fmt.Errorf("%w: offset %d, %d bytes kept", ErrRange, from, n)
	}
	// The first chunk starts where the Append holding from started
	// (Store.Follow), so the caller can walk frames up to from.
	cursor := from
	if from < n {
		i := sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > from }) - 1
		cursor = t.starts[i]
	}
	t.followed = true
	return &memoryFollower{m: m, t: t, cursor: cursor}, nil
}

// now is the time on the monotonic clock, in nanoseconds since the
// store was made: an Append reads it, and reading the monotonic clock
// alone (time.Since) costs half of time.Now, which reads the wall clock too.
func (m *Memory) now() int64 { return int64(time.Since(m.base)) }

// now is the time an Append in place of t reads: the store's clock, read
// from memory, for a tail whose TTL spans coarseTicks of its ticks, else
// the monotonic clock. Reading the clock was a third of such an Append
// (28 ns on this machine's kvm-clock, every write of every stream).
func (t *tail) now() int64 {
	if t.coarse {
		return t.m.clock.Load()
	}
	return t.m.now()
}

// expired reports whether t's TTL has passed at now, and if so deletes it;
// m.mu and t.mu are held.
func (m *Memory) expired(t *tail, now int64) bool {
	if now > t.expires {
		m.delete(t)
		return true
	}
	return false
}

// drop, release and delete are called with m.mu and t.mu held.

// drop frees t's bytes and keeps its record, so Follow and its followers
// learn it is gone (ErrGone) until its TTL passes; with spare, its chunks
// become spares if they may (release).
func (m *Memory) drop(t *tail, spare bool) {
	m.release(t, spare)
	t.dropped = true
	m.lists[t.class].remove(t)
	t.class = classDropped
	m.lists[t.class].push(t)
	t.wakeAll()
}

// release takes t's bytes from it, leaving it charged TailOverhead: with
// spare, its chunks become spares if no slice of them was ever handed out
// (nobody followed it); else they are the garbage collector's once any
// followers let go.
func (m *Memory) release(t *tail, spare bool) {
	freed := t.charged - TailOverhead
	if spare && !t.followed {
		for _, c := range t.chunks {
			m.putSpare(c)
			freed -= int64(cap(c))
		}
	}
	m.total -= freed
	t.charged = TailOverhead
	// chunk0 too: a dropped tail's record stays until its TTL, and must
	// not hold on to the bytes it is no longer charged for.
	clear(t.chunk0[:])
	t.chunks, t.starts, t.size = nil, nil, 0
}

// delete removes t from the store.
func (m *Memory) delete(t *tail) {
	m.release(t, true)
	m.total -= t.charged
	t.charged = 0
	t.removed = true
	m.lists[t.class].remove(t)
	delete(m.tails, t.key)
	t.wakeAll()
}

// makeRoom evicts tails other than keep until need more bytes fit in
// MaxBytes, in the order MemoryOptions.MaxBytes states, and reports
// whether they fit. Spares go after dropped tails' records (which hold
// nothing anyone can read), so that the room for a new tail's record
// leaves them for its chunks (chunkFor), and before any tail's bytes.
func (m *Memory) makeRoom(need int64, keep *tail) bool {
	// Dropped records last too: dropping a tail without bytes frees
	// nothing, and its record must go for a new one to fit.
	for _, class := range [...]int{classDropped, classSpare, classEnded, classLive, classDropped} {
		for m.total+need > m.max {
			if class == classSpare {
				if !m.releaseSpare() {
					break
				}
				continue
			}
			t := m.oldest(class, keep)
			if t == nil {
				break
			}
			t.mu.Lock()
			if class == classDropped {
				m.delete(t)
			} else {
				m.drop(t, false)
			}
			t.mu.Unlock()
		}
	}
	return m.total+need <= m.max
}

// startsCharge is what where Appends start costs beside the record, with
// room for c of them: nothing while they fit in the record's own.
func (t *tail) startsCharge(c int) int64 {
	if c <= len(t.first) {
		return 0
	}
	return 8 * int64(c)
}

// chunkAt returns the bytes kept from off, which is below t.size, to the
// end of the chunk holding it: a slice that later Appends leave as it is.
func (t *tail) chunkAt(off int64) []byte {
	for _, c := range t.chunks {
		if off < int64(len(c)) {
			return c[off:len(c):len(c)]
		}
		off -= int64(len(c))
	}
	return nil // not reached: off < t.size
}

func (t *tail) wakeAll() {
	if t.wake != nil {
		close(t.wake)
		t.wake = nil
	}
}

// Close implements Store: it stops the sweep, and followers and later
// calls get ErrUnavailable.
func (m *Memory) Close() error {
	m.mu.Lock()
	if m.closed.Load() {
		m.mu.Unlock()
		return nil
	}
	m.closed.Store(true)
	for _, t := range m.tails {
		t.mu.Lock()
		t.wakeAll()
		t.mu.Unlock()
	}
	m.mu.Unlock()
	close(m.stop)
	<-m.done
	return nil
}

// Len returns the number of tails the store holds (live, ended and
// dropped), and the bytes charged against MemoryOptions.MaxBytes: theirs
// and the spare chunks'.
func (m *Memory) Len() (tails int, bytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tails), m.total
}

type memoryFollower struct {
	m      *Memory
	t      *tail
	cursor int64
	closed bool
}

var errFollowerClosed = errors.New("resume: follower closed")

// Next implements Follower. Its chunk is the bytes kept past the cursor
// to the end of the tail's chunk holding it, a slice of that chunk (which
// is never written below its length, so the slice stays valid even after
// the next call).
func (f *memoryFollower) Next(ctx context.Context) (int64, []byte, error) {
	m, t := f.m, f.t
	for {
		m.mu.Lock()
		t.mu.Lock()
		start, p, wake, err := f.next()
		t.mu.Unlock()
		m.mu.Unlock()
		if wake == nil {
			return start, p, err
		}
		select {
		case <-ctx.Done():
			return 0, nil, ctx.Err()
		case <-wake:
		}
	}
}

// next is Next's step, with m.mu and t.mu held: the chunk past the
// cursor, an error, or, when there is neither yet, the channel the next
// change closes.
func (f *memoryFollower) next() (int64, []byte, chan struct{}, error) {
	m, t := f.m, f.t
	switch {
	case f.closed:
		return 0, nil, nil, errFollowerClosed
	case m.closed.Load():
		return 0, nil, nil, errClosed
	case t.dropped || t.removed:
		return 0, nil, nil, ErrGone
	case m.expired(t, m.now()):
		return 0, nil, nil, ErrGone
	}
	if f.cursor < t.size {
		start := f.cursor
		p := t.chunkAt(start)
		f.cursor += int64(len(p))
		return start, p, nil, nil
	}
	if t.ended {
		return 0, nil, nil, io.EOF
	}
	if t.wake == nil {
		t.wake = make(chan struct{})
	}
	return 0, nil, t.wake, nil
}

// Close implements Follower.
func (f *memoryFollower) Close() error {
	f.m.mu.Lock()
	f.closed = true
	f.m.mu.Unlock()
	return nil
}
