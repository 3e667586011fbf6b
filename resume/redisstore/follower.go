package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"github.com/layer0/anth/resume"
)

// batch is how many entries a follower reads per round trip: XRANGE while
// it catches up with what is kept, XREAD BLOCK once it has (a live
// follower gets what an Append added, usually one entry).
const batch = 256

var errFollowerClosed = errors.New("resume: follower closed")

type follower struct {
	s            *Store
	info, stream string
	after        string // the stream ID to read after: "<offset>-0" first, then the last entry's
	next         int64  // the offset the next chunk must start at
	live         bool   // caught up: read with XREAD BLOCK
	pending      []entry
	ended        bool
	err          error // sticky: io.EOF, ErrGone, closed
	buf          []byte
}

// entry is a stream entry as the append script writes them (doc.go).
type entry struct {
	id        string
	p         string
	end, drop bool
}

// Next implements resume.Follower: one chunk per Append. The chunk is a
// copy in a buffer the follower reuses.
func (f *follower) Next(ctx context.Context) (int64, []byte, error) {
	for f.err == nil {
		for len(f.pending) > 0 {
			e := f.pending[0]
			f.pending = f.pending[1:]
			f.after = e.id
			if e.drop {
				f.err = resume.ErrGone
				break
			}
			if e.end {
				f.ended = true
			}
			if len(e.p) == 0 {
				continue
			}
			start, err := entryOffset(e.id)
			if err != nil || start != f.next {
				// Entry IDs are offsets the append script wrote: anything
				// else is not our stream.
				f.err = fmt.Errorf("%w: stream entry %q where offset %d was due", resume.ErrUnavailable, e.id, f.next)
				break
			}
			f.next = start + int64(len(e.p))
			f.buf = append(f.buf[:0], e.p...)
			return start, f.buf, nil
		}
		if f.err != nil {
			break
		}
		if f.ended {
			f.err = io.EOF
			break
		}
		if err := f.read(ctx); err != nil {
			return 0, nil, err
		}
	}
	return 0, nil, f.err
}

// read fills pending: with XRANGE until it reads fewer than batch entries,
// then with XREAD BLOCK, and when Poll passes with nothing read, checks
// that the tail still exists (an expired or lost tail's stream would block
// its followers for ever).
func (f *follower) read(ctx context.Context) error {
	c := f.s.c
	if !f.live {
		r, err := c.Do(ctx, c.B().Xrange().Key(f.stream).Start("("+f.after).End("+").Count(batch).Build()).ToArray()
		if err != nil {
			return unavailable(ctx, err)
		}
		if err := f.parse(r); err != nil {
			return err
		}
		f.live = len(r) < batch
		if len(r) > 0 {
			return nil
		}
	}
	res := c.Do(ctx, c.B().Xread().Count(batch).Block(f.s.poll.Milliseconds()).Streams().Key(f.stream).Id(f.after).Build())
	streams, err := res.AsMap()
	if rueidis.IsRedisNil(err) {
		n, err := c.Do(ctx, c.B().Exists().Key(f.info).Build()).AsInt64()
		if err != nil {
			return unavailable(ctx, err)
		}
		if n == 0 {
			f.err = resume.ErrGone
		}
		return nil
	}
	if err != nil {
		return unavailable(ctx, err)
	}
	m := streams[f.stream]
	r, err := m.ToArray()
	if err != nil {
		return unavailable(ctx, err)
	}
	return f.parse(r)
}

// parse appends the entries of an XRANGE or XREAD reply to pending.
func (f *follower) parse(r []rueidis.RedisMessage) error {
	f.pending = f.pending[:0]
	for i := range r {
		kv, err := r[i].ToArray()
		if err != nil || len(kv) != 2 {
			return fmt.Errorf("%w: a stream entry of %d parts (%v)", resume.ErrUnavailable, len(kv), err)
		}
		var e entry
		if e.id, err = kv[0].ToString(); err != nil {
			return fmt.Errorf("%w: %w", resume.ErrUnavailable, err)
		}
		fields, err := kv[1].ToArray()
		if err != nil {
			return fmt.Errorf("%w: %w", resume.ErrUnavailable, err)
		}
		for j := 0; j+1 < len(fields); j += 2 {
			name, _ := fields[j].ToString()
			switch name {
			case "p":
				e.p, _ = fields[j+1].ToString()
			case "e":
				e.end = true
			case "d":
				e.drop = true
			}
		}
		f.pending = append(f.pending, e)
	}
	return nil
}

// entryOffset returns the offset an entry ID "<offset>-<seq>" holds.
func entryOffset(id string) (int64, error) {
	i := strings.IndexByte(id, '-')
	if i < 0 {
		return 0, fmt.Errorf("redisstore: entry ID %q", id)
	}
	return strconv.ParseInt(id[:i], 10, 64)
}

// Close implements resume.Follower.
func (f *follower) Close() error {
	if f.err == nil {
		f.err = errFollowerClosed
	}
	f.pending = nil
	return nil
}
