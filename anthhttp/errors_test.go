package anthhttp

import (
	"errors"
	"testing"

	"github.com/layer0/anth/frame"
)

// TestErrorText: an *Error names its offset when it is known (0 too), its
// kind and its detail; a *StatusError its status, the status's text when
// HTTP has one, and the API's error type and message when it has them.
func TestErrorText(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&Error{Offset: 12, Err: ErrMalformed, Detail: "x"}, "anthhttp: offset 12: malformed: x"},
		{&Error{Offset: -1, Err: ErrMediaType, Detail: "x"}, "anthhttp: unsupported media type: x"},
		{&StatusError{StatusCode: 404}, "anthhttp: HTTP 404 Not Found"},
		{&StatusError{StatusCode: 529, Type: "overloaded_error", Message: "Overloaded"}, "anthhttp: HTTP 529: overloaded_error: Overloaded"},
		{&StatusError{StatusCode: 500, Type: "api_error"}, "anthhttp: HTTP 500 Internal Server Error: api_error"},
		{&StatusError{StatusCode: 400, Message: "bad"}, "anthhttp: HTTP 400 Bad Request: bad"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%#v: %q, want %q", c.err, got, c.want)
		}
	}
	if e := (&Error{Err: frame.ErrTruncated}); !errors.Is(e, ErrTruncated) || errors.Unwrap(e) != frame.ErrTruncated {
		t.Errorf("an *Error does not unwrap to its kind")
	}
}
