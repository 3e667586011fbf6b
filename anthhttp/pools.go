package anthhttp

import (
	"bytes"
	"io"
	"sync"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/internal/dictpool"
	"github.com/layer0/anth/sse"
)

// The server's pools, as gzhttp keeps its gzip writers: it serves many
// short streams at once, and what a stream needs is costly to make (an
// anth-deflate Writer 150 KiB, a Scanner's buffer 8 KiB). The codec
// packages keep none: their reuse is the caller's, with Reset. (The
// client's anth-deflate Readers are anthclient's.)

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
var coders dictpool.Pool[*coder]

func getCoder(dict *deflate.Dictionary) *coder {
	if c, ok := coders.Get(dict); ok {
		c.w.Reset(&c.out)
		return c
	}
	c := &coder{}
	c.w = deflate.NewWriter(&c.out, dict)
	return c
}

func putCoder(c *coder) {
	c.out.Reset()
	coders.Put(c.w.Dictionary(), c)
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

// gatherBufs keeps the buffers relays gather a write's events into (the
// event stream's, and ANTH frames the upstream sent together): growing
// one from nil again was a few allocations a stream, each event-stream
// response's most. A buffer that grew past maxPooledGather, for an event
// near the event limit, is left to the garbage collector.
var gatherBufs sync.Pool // of *[]byte

// maxPooledGather bounds the buffers gatherBufs keeps: a write gathers up
// to maxGather bytes and one event more.
const maxPooledGather = 2 * maxGather

func getGather() *[]byte {
	if p, _ := gatherBufs.Get().(*[]byte); p != nil {
		*p = (*p)[:0]
		return p
	}
	return new([]byte)
}

// putGather gives back p, now holding b (which may have grown from *p).
func putGather(p *[]byte, b []byte) {
	if cap(b) > maxPooledGather {
		return
	}
	*p = b[:0]
	gatherBufs.Put(p)
}
