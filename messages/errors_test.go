package messages

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
		{&Error{Offset: 12, Err: ErrMalformed, Detail: "x"}, "messages: offset 12: malformed: x"},
		{&Error{Offset: 0, Err: ErrTooLarge, Detail: "x"}, "messages: offset 0: too large: x"},
		{&Error{Offset: -1, Err: ErrTruncated}, "messages: unexpected EOF"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%#v: %q, want %q", c.err, got, c.want)
		}
	}
	if e := (&Error{Err: frame.ErrTruncated}); !errors.Is(e, ErrTruncated) || errors.Unwrap(e) != frame.ErrTruncated {
		t.Errorf("an *Error does not unwrap to its kind")
	}
}
