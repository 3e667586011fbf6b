package anthclient

import "testing"

// TestStatusErrorText: a *StatusError names its status, the status's text
// when HTTP has one, and the API's error type and message when it has
// them.
func TestStatusErrorText(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&StatusError{StatusCode: 404}, "anthclient: HTTP 404 Not Found"},
		{&StatusError{StatusCode: 529, Type: "overloaded_error", Message: "Overloaded"}, "anthclient: HTTP 529: overloaded_error: Overloaded"},
		{&StatusError{StatusCode: 500, Type: "api_error"}, "anthclient: HTTP 500 Internal Server Error: api_error"},
		{&StatusError{StatusCode: 400, Message: "bad"}, "anthclient: HTTP 400 Bad Request: bad"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%#v: %q, want %q", c.err, got, c.want)
		}
	}
}
