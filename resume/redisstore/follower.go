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

// batch is how many entries a follower reads per round trip.
const batch = 64

var errFollowerClosed = errors.New("resume: follower closed")

type follower struct {
	s            *Store
	info, stream string
	after        string // the stream ID to read after: "<offset>-0" first, then the last entry's
	next         int64  // the offset the next chunk must start at
	pending      []rueidis.XRangeEntry
	ended        bool
	err          error // sticky: io.EOF, ErrGone, closed
	buf          []byte
}

// Next implements resume.Follower: one chunk per Append, read in batches
// of 64 entries with XREAD, blocking at most Options.Poll per round trip.
// The chunk is a copy in a buffer the follower reuses.
func (f *follower) Next(ctx context.Context) (int64, []byte, error) {
	for f.err == nil {
		for len(f.pending) > 0 {
			e := f.pending[0]
			f.pending = f.pending[1:]
			f.after = e.ID
			if _, ok := e.FieldValues["d"]; ok {
				f.err = resume.ErrGone
				break
			}
			_, end := e.FieldValues["e"]
			p, ok := e.FieldValues["p"]
			if end {
				f.ended = true
			}
			if !ok || len(p) == 0 {
				continue
			}
			start, err := entryOffset(e.ID)
			if err != nil || start != f.next {
				// Entry IDs are offsets the append script wrote: anything
				// else is not our stream.
				f.err = fmt.Errorf("%w: stream entry %q where offset %d was due", resume.ErrUnavailable, e.ID, f.next)
				break
			}
			f.next = start + int64(len(p))
			f.buf = append(f.buf[:0], p...)
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

// read fills pending with XREAD BLOCK, and when Poll passes with nothing
// read, checks that the tail still exists (an expired or lost tail's
// stream would block its followers for ever).
func (f *follower) read(ctx context.Context) error {
	c := f.s.c
	r, err := c.Do(ctx, c.B().Xread().Count(batch).Block(f.s.poll.Milliseconds()).Streams().Key(f.stream).Id(f.after).Build()).AsXRead()
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
	f.pending = r[f.stream]
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
