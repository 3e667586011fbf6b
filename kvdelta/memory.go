package kvdelta

import (
	"strconv"
	"unsafe"
)

// What a Decoder may allocate ahead of the bytes that justify it (see the
// package doc): each of these is allocated before all of its bytes are in
// hand, and the chunk being decoded (as read and as decoded) on top.
const (
	headPiece  = 16 << 10 // a piece of a record's CRC32Cs, or of its hashes
	finalAhead = 8 << 10  // a snapshot's Data, or its Hashes, before its last bytes
	recordCost = 32       // bytes of bookkeeping charged to each record
	zstdCost   = 256 << 10
)

// budget accounts one call's allocations against Limits.MaxBytes.
type budget struct {
	max       int64 // MaxBytes less the scratch kept from earlier calls
	allocated int64
	justified int64 // bytes in hand other than those read: decoded, named, bookkeeping
}

// take accounts n bytes about to be allocated, or refuses them.
func (b *budget) take(in *input, n int) error {
	if err := b.need(in, int64(n)); err != nil {
		return err
	}
	b.allocated += int64(n)
	return nil
}

// need refuses a call that would have to allocate n bytes more than it may.
func (b *budget) need(in *input, n int64) error {
	if n > b.max-b.allocated {
		return in.fail(ErrTooLarge, strconv.FormatInt(b.allocated+n, 10)+" bytes, past the limit of "+strconv.FormatInt(b.max, 10))
	}
	return nil
}

// spool holds one run of bytes written front to back, in pieces of one size
// (the last one shorter): it never allocates a piece before a write reaches
// it, never copies to grow, and keeps its pieces for the next run.
type spool struct {
	piece  int
	pieces [][]byte
	n, len int // bytes written, bytes the run will hold
}

// reset starts a run of n bytes in pieces of piece bytes.
func (s *spool) reset(piece, n int) {
	if piece != s.piece {
		s.pieces = s.pieces[:0]
		s.piece = piece
	}
	s.n, s.len = 0, n
}

// next returns room for the next n bytes, which must lie in one piece.
func (s *spool) next(b *budget, in *input, n int) ([]byte, error) {
	k, o := s.n/s.piece, s.n%s.piece
	if o == 0 {
		want := min(s.piece, s.len-s.n)
		if k == len(s.pieces) || cap(s.pieces[k]) < want {
			if err := b.take(in, want); err != nil {
				return nil, err
			}
			p := make([]byte, want)
			if k == len(s.pieces) {
				s.pieces = append(s.pieces, p)
			} else {
				s.pieces[k] = p
			}
		}
		s.pieces[k] = s.pieces[k][:want]
	}
	s.n += n
	return s.pieces[k][o : o+n], nil
}

// at returns bytes [off, off+n) of the run, which must lie in one piece.
func (s *spool) at(off, n int) []byte { return s.pieces[off/s.piece][off%s.piece:][:n] }

// bytes returns the bytes of the spool's pieces.
func (s *spool) bytes() int {
	n := 0
	for _, p := range s.pieces {
		n += cap(p)
	}
	return n
}

// assembly builds a snapshot's Data or Hashes in order. Until the buffer for
// all of it is allocated, which waits until no more than finalAhead bytes
// of it are still to come, the parts done so far are kept apart: base tiles
// (only read, never copied twice) and the decoded output of records.
type assembly[T any] struct {
	buf   []T // all n elements, once allocated
	n     int
	done  int
	parts [][]T
}

func (a *assembly[T]) start(n int, reuse []T) {
	a.buf, a.n, a.done = nil, n, 0
	if cap(reuse) >= n {
		a.buf = reuse[:n]
	}
}

// room returns where the next k elements go: in the buffer, or in a part
// of their own.
func (a *assembly[T]) room(b *budget, in *input, k int) ([]T, error) {
	if a.buf != nil {
		return a.buf[a.done : a.done+k], nil
	}
	if err := b.take(in, k*a.size()); err != nil {
		return nil, err
	}
	return make([]T, k), nil
}

// add completes the next len(p) elements with p: what room returned, or
// elements of the base, which are copied now or when the buffer is made.
func (a *assembly[T]) add(b *budget, in *input, p []T) error {
	if len(p) == 0 {
		return nil
	}
	if a.buf != nil {
		if &p[0] != &a.buf[a.done] {
			copy(a.buf[a.done:], p)
		}
	} else {
		if len(a.parts) == cap(a.parts) {
			c := a.grown()
			if err := b.take(in, c*int(unsafe.Sizeof(p))); err != nil {
				return err
			}
			a.parts = append(make([][]T, 0, c), a.parts...)
		}
		a.parts = append(a.parts, p)
	}
	a.done += len(p)
	return nil
}

// grown returns the room for parts that a full list of them grows to.
func (a *assembly[T]) grown() int { return max(8, 2*cap(a.parts)) }

// cost returns the bytes that k more elements take until the buffer is
// made: themselves, apart, and the list of parts grown for them if it is
// full, and the buffer.
func (a *assembly[T]) cost(k int) int64 {
	if a.buf != nil {
		return 0
	}
	n := int64(a.n+k) * int64(a.size())
	if k > 0 && len(a.parts) == cap(a.parts) {
		n += int64(a.grown()) * int64(unsafe.Sizeof([]T(nil)))
	}
	return n
}

// settle makes the buffer once no more than ahead bytes of it are to come,
// and moves the parts into it.
func (a *assembly[T]) settle(b *budget, in *input, ahead int) error {
	if a.buf != nil || (a.n-a.done)*a.size() > ahead {
		return nil
	}
	if err := b.take(in, a.n*a.size()); err != nil {
		return err
	}
	a.buf = make([]T, a.n)
	at := 0
	for _, p := range a.parts {
		at += copy(a.buf[at:], p)
	}
	a.drop()
	return nil
}

// drop forgets the parts, so that they can be collected.
func (a *assembly[T]) drop() {
	clear(a.parts)
	a.parts = a.parts[:0]
}

func (a *assembly[T]) size() int {
	var t T
	return int(unsafe.Sizeof(t))
}
