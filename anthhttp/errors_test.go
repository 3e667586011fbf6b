package anthhttp

import (
	"errors"
	"testing"

	"github.com/layer0/anth/frame"
)

// TestErrorText: an *Error names its offset when it is known (0 too), its
// kind and its detail.
func TestErrorText(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&Error{Offset: 12, Err: ErrMalformed, Detail: "x"}, "anthhttp: offset 12: malformed: x"},
		{&Error{Offset: -1, Err: ErrMediaType, Detail: "x"}, "anthhttp: unsupported media type: x"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%#v: %q, want %q", c.err, got, c.want)
		}
	}
	if e := (&Error{Err: frame.ErrTruncated}); !errors.Is(e, ErrTruncated) || errors.Unwrap(e) != frame.ErrTruncated {
		t.Errorf("an *Error does not unwrap to its kind")
	}
}
