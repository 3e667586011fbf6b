package anthhttp

import (
	"bytes"
	"io"
	"sync"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/sse"
)

// The HTTP layer's pools, as gzhttp keeps its gzip writers: it serves and
// reads many short streams at once, and what a stream needs is costly to
// make (an anth-deflate Writer 150 KiB, a Reader 44 KiB, a Scanner's buffer
// 8 KiB). The codec packages keep none: their reuse is the caller's, with
// Reset.

// byDict keeps values made for one preset dictionary apart from those of
// another: a Writer or Reader resets to the dictionary it was made with.
type byDict[T any] struct{ m sync.Map } // *deflate.Dictionary → *sync.Pool of T

func (p *byDict[T]) get(dict *deflate.Dictionary) (T, bool) {
	if pool, ok := p.m.Load(dict); ok {
		if v, ok := pool.(*sync.Pool).Get().(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

func (p *byDict[T]) put(dict *deflate.Dictionary, v T) {
	pool, _ := p.m.LoadOrStore(dict, &sync.Pool{})
	pool.(*sync.Pool).Put(v)
}

// scanners keeps the Scanners of finished event-stream relays, whose 8 KiB
// buffer is most of what a relayed stream allocates.
var scanners sync.Pool

func getScanner(r io.Reader) *sse.Scanner {
	if sc, _ := scanners.Get().(*sse.Scanner); sc != nil {
		sc.Reset(r)
		return sc
	}
	return sse.NewScanner(r, 0)
}

// coder is an anth-deflate Writer and the buffer it writes a record to.
type coder struct {
	w   *deflate.Writer
	out bytes.Buffer
}

// coders keeps the coders of finished streams: a stream is short, and
// making one costs more than the records it writes (BenchmarkServer,
// recordings).
var coders byDict[*coder]

func getCoder(dict *deflate.Dictionary) *coder {
	if c, ok := coders.get(dict); ok {
		c.w.Reset(&c.out)
		return c
	}
	c := &coder{}
	c.w = deflate.NewWriter(&c.out, dict)
	return c
}

func putCoder(c *coder) {
	c.out.Reset()
	coders.put(c.w.Dictionary(), c)
}

// inflaters keeps the anth-deflate Readers of responses read to their end:
// a client reads many short responses, and making a Reader for each cost
// twice the CPU of the rest on the recordings (compare's BenchmarkClient).
var inflaters byDict[*deflate.Reader]

// inflating reads an anth-deflate body through a pooled Reader, which goes
// back to the pool when the body has given its last error (io.EOF
// included): Read never uses it again.
type inflating struct {
	z    *deflate.Reader
	dict *deflate.Dictionary
	err  error
}

func newInflating(body io.Reader, dict *deflate.Dictionary) *inflating {
	if z, ok := inflaters.get(dict); ok {
		z.Reset(body)
		return &inflating{z: z, dict: dict}
	}
	return &inflating{z: deflate.NewReader(body, dict), dict: dict}
}

func (r *inflating) Read(p []byte) (int, error) {
	if r.z == nil {
		return 0, r.err
	}
	n, err := r.z.Read(p)
	if err != nil {
		r.err = err
		r.z.Reset(nil)
		inflaters.put(r.dict, r.z)
		r.z = nil
	}
	return n, err
}

// copyBufferSize is the buffer ReverseProxy copies a response body with:
// its own default, 32 KiB, which is also maxGather, the most the relay
// gathers into one write.
const copyBufferSize = 32 << 10

// copyBuffers is the Gateway's httputil.BufferPool. Without one,
// ReverseProxy allocates a 32 KiB buffer for every response it copies:
// 70 % of the bytes a stream of testdata/sse allocates through the
// Gateway, and the garbage collector's work that follows.
type copyBuffers struct{ p sync.Pool } // of *[copyBufferSize]byte

func (c *copyBuffers) Get() []byte {
	if b, _ := c.p.Get().(*[copyBufferSize]byte); b != nil {
		return b[:]
	}
	return new([copyBufferSize]byte)[:]
}

func (c *copyBuffers) Put(b []byte) {
	if len(b) == copyBufferSize {
		c.p.Put((*[copyBufferSize]byte)(b))
	}
}
