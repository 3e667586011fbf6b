package anthhttp

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestReadBodyAsBuffer: readBody returns what bytes.Buffer.ReadFrom of an
// io.LimitReader, which it replaced, made of the same body: the same bytes,
// or an *Error of the same kind at the same offset, whatever the declared
// length (true, short, long or absent), the bound and the reads' sizes.
func TestReadBodyAsBuffer(t *testing.T) {
	broken := errors.New("connection cut")
	rapid.Check(t, func(rt *rapid.T) {
		body := rapid.SliceOfN(rapid.Byte(), 0, 5000).Draw(rt, "body")
		maxSize := rapid.IntRange(1, 6000).Draw(rt, "maxSize")
		cl := int64(len(body)) + int64(rapid.IntRange(-3, 3).Draw(rt, "lie"))
		if rapid.Bool().Draw(rt, "undeclared") || cl < 0 {
			cl = -1
		}
		cut := rapid.Bool().Draw(rt, "cut")
		chunk := rapid.IntRange(1, 2000).Draw(rt, "chunk")
		eofWithData := rapid.Bool().Draw(rt, "eofWithData")
		source := func() io.Reader {
			var r io.Reader = &chunked{rest: body, n: chunk, eofWithData: eofWithData}
			if cut {
				r = io.MultiReader(r, iotest.ErrReader(broken))
			}
			return r
		}
		got, gotErr := readBody(source(), cl, maxSize)
		want, wantErr := bufferRead(source(), maxSize)
		if d := cmp.Diff(describe(want, wantErr), describe(got, gotErr)); d != "" {
			rt.Fatalf("(-bytes.Buffer +readBody):\n%s", d)
		}
	})
}

// bufferRead is what ReadRequestBody read a body with before readBody.
func bufferRead(r io.Reader, maxSize int) ([]byte, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, int64(maxSize)+1))
	if err != nil {
		return nil, &Error{Offset: n, Err: err, Detail: "reading the request body"}
	}
	if n > int64(maxSize) {
		return nil, &Error{Offset: int64(maxSize), Err: ErrTooLarge}
	}
	return buf.Bytes(), nil
}

type outcome struct {
	Body   []byte
	Offset int64
	Err    string
}

func describe(b []byte, err error) outcome {
	var e *Error
	if errors.As(err, &e) {
		return outcome{Offset: e.Offset, Err: e.Err.Error()}
	}
	return outcome{Body: b}
}

// chunked gives rest n bytes a Read, and io.EOF with the last of them
// (as net/http's body of a declared length does) if eofWithData.
type chunked struct {
	rest        []byte
	n           int
	eofWithData bool
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.rest) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.rest[:min(c.n, len(c.rest))])
	c.rest = c.rest[n:]
	if len(c.rest) == 0 && c.eofWithData {
		return n, io.EOF
	}
	return n, nil
}

// TestReadBodyOneAllocation: a body of a true Content-Length under 1 KiB
// is read into one buffer (bytes.Buffer.ReadFrom made two).
func TestReadBodyOneAllocation(t *testing.T) {
	if RaceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	body := bytes.Repeat([]byte("x"), 57)
	for _, eofWithData := range []bool{false, true} {
		r := &chunked{n: len(body), eofWithData: eofWithData}
		n := testing.AllocsPerRun(100, func() {
			r.rest = body
			if _, err := readBody(r, int64(len(body)), DefaultMaxRequestSize); err != nil {
				t.Fatal(err)
			}
		})
		if n != 1 {
			t.Errorf("EOF with the data %v: %v allocations, want 1", eofWithData, n)
		}
	}
}

// TestMediaType: mediaType is mime.ParseMediaType's media type, for the
// values it looks up and for any other.
func TestMediaType(t *testing.T) {
	for _, c := range commonContentTypes {
		if mt, _, _ := mime.ParseMediaType(c[0]); mt != c[1] {
			t.Errorf("%q: commonContentTypes says %q, mime.ParseMediaType %q", c[0], c[1], mt)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		v := rapid.OneOf(rapid.String(), rapid.StringMatching(`[ A-Za-z/;=" -]{0,40}`)).Draw(rt, "v")
		if mt, _, _ := mime.ParseMediaType(v); mediaType(v) != mt {
			rt.Fatalf("%q: %q, mime.ParseMediaType %q", v, mediaType(v), mt)
		}
	})
}

// FuzzMediaType: mediaType agrees with mime.ParseMediaType.
func FuzzMediaType(f *testing.F) {
	for _, c := range commonContentTypes {
		f.Add(c[0])
	}
	for _, s := range []string{"Application/JSON", "application/json;", "application/json; charset=utf-8; charset=latin1", "text/event-stream ; charset=utf-8", " application/json", "text/plain", "/", "a/b; c*0=d; c*1=e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if mt, _, _ := mime.ParseMediaType(v); mediaType(v) != mt {
			t.Fatalf("%q: %q, mime.ParseMediaType %q", v, mediaType(v), mt)
		}
	})
}
