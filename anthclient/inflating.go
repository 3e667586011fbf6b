package anthclient

import (
	"io"

	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/internal/dictpool"
)

// inflaters keeps the anth-deflate Readers of responses read to their end,
// as anthhttp keeps its Writers: a client reads many short responses, and
// making a Reader (44 KiB) for each cost twice the CPU of the rest on the
// recordings (compare's BenchmarkClient).
var inflaters dictpool.Pool[*deflate.Reader]

// inflating reads an anth-deflate body through a pooled Reader, which goes
// back to the pool when the body has given its last error (io.EOF
// included): Read never uses it again.
type inflating struct {
	z    *deflate.Reader
	dict *deflate.Dictionary
	err  error
}

func newInflating(body io.Reader, dict *deflate.Dictionary) *inflating {
	if z, ok := inflaters.Get(dict); ok {
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
		inflaters.Put(r.dict, r.z)
		r.z = nil
	}
	return n, err
}
