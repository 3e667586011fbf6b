package frame

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// fullFrames is the worst input for a joined value (SPEC.md §4): Magic, then
// n full frames of type t, each continuing the value, and then one that ends
// it. It is made as it is read, so that the input itself costs the test no
// memory, and it counts the bytes it has handed out.
type fullFrames struct {
	frame []byte // one full frame
	n     int    // full frames left
	pre   []byte // what is left of Magic or of the frame being sent
	tail  []byte // the frame that ends the value
	sent  int64
}

func newFullFrames(t Type, n int) *fullFrames {
	var full, tail []byte
	if t == TypeError {
		full = AppendError(nil, CodeAPI, strings.Repeat("e", maxMessagePerFrame))[:MaxFrameSize]
		tail = AppendError(nil, CodeAPI, "end")
	} else {
		full = AppendDone(nil, StopSequence, strings.Repeat("d", maxStopSequencePerFrame))[:MaxFrameSize]
		tail = AppendDone(nil, StopSequence, "end")
	}
	return &fullFrames{frame: full, n: n, pre: []byte(Magic), tail: tail}
}

func (g *fullFrames) Read(p []byte) (int, error) {
	if len(g.pre) == 0 {
		switch {
		case g.n > 0:
			g.pre, g.n = g.frame, g.n-1
		case g.tail != nil:
			g.pre, g.tail = g.tail, nil
		default:
			return 0, io.EOF
		}
	}
	k := copy(p, g.pre)
	g.pre = g.pre[k:]
	g.sent += int64(k)
	return k, nil
}

// valueAfter is the payload a Reader has joined after k+1 frames of type t.
func valueAfter(t Type, k int) int {
	key := 1
	if t == TypeError {
		key = 2
	}
	return MaxPayload + k*(MaxPayload-key)
}

// crossing returns the index of the full frame whose part takes a value of
// type t past limit, and that frame's stream offset.
func crossing(t Type, limit int) (int, int64) {
	k := 0
	for valueAfter(t, k) <= limit {
		k++
	}
	return k, int64(len(Magic)) + int64(k)*MaxFrameSize
}

// TestReaderValueLimit: a value continued without end fails with ErrTooLarge
// at the frame that crosses the limit, pulled or pushed, DONE or ERROR,
// default or configured limit, and the Reader never holds more of it than
// the limit. Before the limit, the Reader joined all 64 full frames (4 MiB)
// here, allocated 6 bytes per byte received and returned the whole value.
func TestReaderValueLimit(t *testing.T) {
	const frames = 64 // 4 MiB of full frames: four times the default limit
	for _, typ := range []Type{TypeError, TypeDone} {
		for _, limit := range []int{0, 200_000, MaxPayload} {
			want := limit
			if want <= 0 {
				want = DefaultMaxValueSize
			}
			_, wantOff := crossing(typ, want)
			opts := ReaderOptions{MaxValueSize: limit}
			for _, mode := range []string{"pull", "push"} {
				r, sent, err := readValue(t, typ, frames, mode, opts)
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, ErrTooLarge) || e.Offset != wantOff || e.Type != typ {
					t.Fatalf("%v, limit %d, %s: %v, want ErrTooLarge at offset %d", typ, limit, mode, err, wantOff)
				}
				// Held: the joined value never passes the limit, nor two bytes
				// a byte received.
				if c := cap(r.joined); c > want || int64(c) > 2*sent {
					t.Errorf("%v, limit %d, %s: holds %d bytes of value after %d received, want at most %d", typ, limit, mode, c, sent, want)
				}
				// Sticky, and no further input is read for it.
				if _, err2 := r.Next(); err2 != err {
					t.Errorf("%v, %s: second Next: %v, want the same error", typ, mode, err2)
				}
			}
		}
	}
}

// readValue reads the worst input of newFullFrames(typ, frames) with a
// Reader made with opts, pulled from an io.Reader or pushed a frame's
// worth at a time, and returns the Reader, the bytes it was given and the
// error that ended it.
func readValue(t *testing.T, typ Type, frames int, mode string, opts ReaderOptions) (*Reader, int64, error) {
	t.Helper()
	g := newFullFrames(typ, frames)
	if mode == "pull" {
		r := NewReader(g, opts)
		for {
			if _, err := r.Next(); err != nil {
				return r, g.sent, err
			}
		}
	}
	r := NewPushReader(opts)
	piece := make([]byte, MaxFrameSize)
	for {
		n, rerr := g.Read(piece)
		r.Write(piece[:n])
		if rerr != nil {
			r.CloseWrite()
		}
		for {
			_, err := r.Next()
			if err == ErrNeedMore {
				break
			}
			if err != nil {
				return r, g.sent, err
			}
		}
	}
}

// TestReaderValueLimitAlloc measures the worst input's cost as the issue
// did: bytes allocated (runtime.MemStats.TotalAlloc) per byte received, and
// bytes held after the error while the Reader is alive. Without the limit
// the 256 full frames here (16.8 MB) cost 99.9 MB allocated and 20.3 MB held;
// with it, 2.3 MB and 1.2 MB: the default limit of 1 MiB, whatever follows.
func TestReaderValueLimitAlloc(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation figures need a normal run")
	}
	for _, mode := range []string{"pull", "push"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r, sent, err := readValue(t, TypeError, 256, mode, ReaderOptions{})
		runtime.GC()
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("%s: %d bytes received, %d allocated (%.2f a byte), %d held (%.2f a byte)",
			mode, sent, alloc, float64(alloc)/float64(sent), held, float64(held)/float64(sent))
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s: %v, want ErrTooLarge", mode, err)
		}
		// The bound: the value grows by doubling to at most the limit (under
		// 2× the limit allocated in all), plus the input buffer (a push
		// Reader's, of the pieces it was given, grows by append too) and the
		// test's own piece and error.
		if limit := uint64(2*DefaultMaxValueSize + 4*MaxFrameSize); alloc > limit {
			t.Errorf("%s: %d bytes allocated for %d received, want at most %d", mode, alloc, sent, limit)
		}
		if limit := int64(DefaultMaxValueSize + 3*MaxFrameSize); held > limit {
			t.Errorf("%s: %d bytes held, want at most %d", mode, held, limit)
		}
		runtime.KeepAlive(r)
	}
}

// TestReaderValueAtLimit: a value of exactly the limit is returned whole, one
// byte more is ErrTooLarge, and values the Writer splits read back equal
// whenever they fit (a property over lengths and limits).
func TestReaderValueAtLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 5*maxMessagePerFrame).Draw(t, "message")
		limit := rapid.IntRange(MaxPayload, 6*MaxPayload).Draw(t, "limit")
		isErr := rapid.Bool().Draw(t, "error")
		value := bytes.Repeat([]byte{'m'}, n)
		var stream []byte
		if isErr {
			stream = AppendError(AppendMagic(nil), CodeOverloaded, string(value))
		} else {
			stream = AppendDone(AppendMagic(nil), StopSequence, string(value))
		}
		want := Frame{Type: TypeError, Payload: append([]byte{byte(uint16(CodeOverloaded) >> 8), byte(uint16(CodeOverloaded) & 0xFF)}, value...)}
		if !isErr {
			want = Frame{Type: TypeDone, Payload: append([]byte{byte(StopSequence)}, value...)}
		}
		continues := len(stream)-len(Magic) > MaxFrameSize
		for _, k := range []int{len(stream), 1000} {
			got, err := pushAll(NewPushReader(ReaderOptions{MaxValueSize: limit}), stream, k)
			if continues && len(want.Payload) > limit {
				if !errors.Is(err, ErrTooLarge) || len(got) != 0 {
					t.Fatalf("%d-byte value, limit %d: %d frames, %v; want ErrTooLarge", len(want.Payload), limit, len(got), err)
				}
				continue
			}
			if diff := cmp.Diff([]Frame{want}, got); err != nil || diff != "" {
				t.Fatalf("%d-byte value, limit %d, pieces of %d: %v (-want +got)\n%s", len(want.Payload), limit, k, err, diff)
			}
		}
	})
}
