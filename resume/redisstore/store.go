package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/layer0/anth/resume"
)

// Defaults for Options' zero values.
const (
	DefaultPrefix   = "anth:resume:"
	DefaultTTL      = resume.DefaultTTL
	DefaultMaxBytes = 16 << 20
	DefaultTimeout  = 2 * time.Second
	DefaultPoll     = 5 * time.Second
)

// Options configures a Store.
type Options struct {
	// Addr is Redis's host:port. Ignored when Client is set.
	Addr string
	// Client, when set, is used instead of dialing Addr; Close does not
	// close it.
	Client rueidis.Client
	// Prefix begins every key; zero means DefaultPrefix.
	Prefix string
	// TTL is used for tails whose Info.TTL is zero; zero means DefaultTTL.
	TTL time.Duration
	// MaxBytes bounds every tail, whatever its Info.MaxBytes; zero means
	// DefaultMaxBytes.
	MaxBytes int64
	// Timeout bounds dialing and each command's wait for an answer: past
	// it Redis is unavailable (resume.ErrUnavailable). Zero means
	// DefaultTimeout.
	Timeout time.Duration
	// Poll bounds each wait of a follower in XREAD BLOCK, after which it
	// checks that the tail still exists. Zero means DefaultPoll.
	Poll time.Duration
}

// Store is a resume.Store in Redis.
type Store struct {
	c       rueidis.Client
	scratch sync.Pool // *scratch
	own     bool
	prefix  string
	ttl     time.Duration
	max     int64
	poll    time.Duration
	timeout time.Duration
}

var _ resume.Store = (*Store)(nil)

// New returns a Store on opts.Client or a client of its own dialing
// opts.Addr. It fails with resume.ErrUnavailable if Redis cannot be
// reached within opts.Timeout.
func New(opts Options) (*Store, error) {
	s := &Store{c: opts.Client, prefix: opts.Prefix, ttl: opts.TTL, max: opts.MaxBytes, poll: opts.Poll, timeout: opts.Timeout}
	if s.prefix == "" {
		s.prefix = DefaultPrefix
	}
	if s.ttl <= 0 {
		s.ttl = DefaultTTL
	}
	if s.max <= 0 {
		s.max = DefaultMaxBytes
	}
	if s.poll <= 0 {
		s.poll = DefaultPoll
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.c == nil {
		c, err := rueidis.NewClient(rueidis.ClientOption{
			InitAddress: []string{opts.Addr},
			// No client-side cache: the store never reads a key twice.
			DisableCache: true,
			// Rueidis's 0.5 MiB buffers per connection would be most of
			// a small gateway's memory; an Append is a few KiB.
			ReadBufferEachConn:  64 << 10,
			WriteBufferEachConn: 64 << 10,
			Dialer:              net.Dialer{Timeout: s.timeout},
			// Bounds the wait for an answer: a silent server closes the
			// connection after it, failing what waits on it.
			ConnWriteTimeout: s.timeout,
			// A command is never retried: an Append sent twice would be
			// refused the second time at worst, but its caller is told.
			DisableRetry: true,
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", resume.ErrUnavailable, err)
		}
		s.c, s.own = c, true
	}
	return s, nil
}

// scratch is what one command needs beside its bytes: its keys, built in
// buf, and its arguments, so that an Append allocates nothing. The keys
// alias buf (rueidis.BinaryString): a scratch goes back to the pool only
// after the command's answer is read, when rueidis no longer reads them.
// A command that ends without an answer (the connection lost, the context
// done) may still sit in rueidis's write queue: its scratch is lent for
// good and left to the garbage collector.
type scratch struct {
	buf  []byte
	keys [2]string
	args [4]string
	lent bool
}

// get returns a scratch holding the hash's and the stream's keys for id.
func (s *Store) get(id resume.ID) *scratch {
	sc, _ := s.scratch.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	b := sc.buf[:0]
	for _, k := range [2]string{"i", "s"} {
		b = append(b, s.prefix...)
		b = append(b, '{')
		b = append(b, id...)
		b = append(b, "}:"...)
		b = append(b, k...)
	}
	sc.buf = b
	n := len(b) / 2
	sc.keys = [2]string{rueidis.BinaryString(b[:n]), rueidis.BinaryString(b[n:])}
	return sc
}

func (s *Store) put(sc *scratch) {
	if sc.lent {
		return
	}
	sc.keys, sc.args = [2]string{}, [4]string{}
	s.scratch.Put(sc)
}

// run runs a script on the scratch's keys and its first nargs arguments.
func (s *Store) run(ctx context.Context, sc *script, x *scratch, nargs int) rueidis.RedisResult {
	c := s.c
	r := c.Do(ctx, c.B().Evalsha().Sha1(sc.sha).Numkeys(2).Key(x.keys[:]...).Arg(x.args[:nargs]...).Build())
	if e, ok := rueidis.IsRedisErr(r.Error()); ok && e.IsNoScript() {
		r = c.Do(ctx, c.B().Eval().Script(sc.src).Numkeys(2).Key(x.keys[:]...).Arg(x.args[:nargs]...).Build())
	}
	if err := r.Error(); err != nil {
		if _, answered := rueidis.IsRedisErr(err); !answered {
			x.lent = true
		}
	}
	return r
}

// unavailable maps an error of the client to the caller's context error, or
// else to resume.ErrUnavailable.
func unavailable(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return ctx.Err()
	}
	return fmt.Errorf("%w: %w", resume.ErrUnavailable, err)
}

// Create implements resume.Store.
func (s *Store) Create(ctx context.Context, id resume.ID, info resume.Info) error {
	if !id.Valid() {
		return resume.ErrNotFound
	}
	ttl := info.TTL
	if ttl <= 0 {
		ttl = s.ttl
	}
	max := info.MaxBytes
	if max <= 0 || max > s.max {
		max = s.max
	}
	ms := ttl.Milliseconds()
	if ms < 1 {
		ms = 1
	}
	x := s.get(id)
	defer s.put(x)
	x.args = [4]string{string(info.Owner[:]), info.API, strconv.FormatInt(max, 10), strconv.FormatInt(ms, 10)}
	r, err := s.run(ctx, createScript, x, 4).ToArray()
	if err != nil {
		return unavailable(ctx, err)
	}
	if st, _ := r[0].AsInt64(); st == statusExists {
		return resume.ErrExists
	}
	return nil
}

// Append implements resume.Store: one EVALSHA, whatever len(p).
func (s *Store) Append(ctx context.Context, id resume.ID, p []byte, end bool) error {
	if !id.Valid() {
		return resume.ErrNotFound
	}
	e := ""
	if end {
		e = "1"
	}
	x := s.get(id)
	defer s.put(x)
	// BinaryString lends p to the client without a copy: run returns
	// after Redis answered, when the command's bytes are written.
	x.args[0], x.args[1] = rueidis.BinaryString(p), e
	res := s.run(ctx, appendScript, x, 2)
	if err := res.Error(); err != nil {
		return unavailable(ctx, err)
	}
	if st, err := res.AsInt64(); err == nil && st == statusOK {
		return nil
	}
	r, err := res.ToArray()
	if err != nil || len(r) == 0 {
		return fmt.Errorf("%w: append script answered %v", resume.ErrUnavailable, err)
	}
	st, _ := r[0].AsInt64()
	switch st {
	case statusNotFound:
		return resume.ErrNotFound
	case statusGone:
		return resume.ErrGone
	case statusEnded:
		return resume.ErrEnded
	case statusTooLarge:
		n, _ := r[1].AsInt64()
		max, _ := r[2].AsInt64()
		return fmt.Errorf("%w: %d bytes kept, %d appended, at most %d", resume.ErrTooLarge, n, len(p), max)
	}
	return fmt.Errorf("%w: append script answered %d", resume.ErrUnavailable, st)
}

// Follow implements resume.Store: one EVALSHA finds where to start; the
// follower reads from the next call of Next.
func (s *Store) Follow(ctx context.Context, id resume.ID, owner resume.Owner, from int64) (resume.Follower, error) {
	if !id.Valid() {
		return nil, resume.ErrNotFound
	}
	x := s.get(id)
	defer s.put(x)
	x.args[0], x.args[1] = string(owner[:]), strconv.FormatInt(from, 10)
	r, err := s.run(ctx, followScript, x, 2).ToArray()
	if err != nil {
		return nil, unavailable(ctx, err)
	}
	st, _ := r[0].AsInt64()
	switch st {
	case statusOK:
	case statusNotFound:
		return nil, resume.ErrNotFound
	case statusGone:
		return nil, resume.ErrGone
	case statusRange:
		n, _ := r[1].AsInt64()
		return nil, fmt.Errorf("%w: offset %d, %d bytes kept", resume.ErrRange, from, n)
	default:
		return nil, fmt.Errorf("%w: follow script answered %d", resume.ErrUnavailable, st)
	}
	start, _ := r[1].AsInt64()
	ended, _ := r[2].AsInt64()
	// The follower keeps keys of its own: x's go back to the pool.
	base := s.prefix + "{" + string(id) + "}:"
	return &follower{s: s, info: base + "i", stream: base + "s", after: strconv.FormatInt(start, 10) + "-0", next: start, ended: ended == 1}, nil
}

// Close implements resume.Store: it closes the client New dialed.
func (s *Store) Close() error {
	if s.own {
		s.c.Close()
	}
	return nil
}
