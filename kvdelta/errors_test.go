package kvdelta

import (
	"errors"
	"testing"

	"github.com/layer0/anth/tiling"
)

// TestErrorMessages: an Error says where (an offset in the delta, none for
// Encode's input), the kind, and the detail if any; it unwraps to its kind.
func TestErrorMessages(t *testing.T) {
	for _, c := range []struct {
		err  *Error
		want string
	}{
		{&Error{Offset: 0, Err: ErrMalformed, Detail: "magic"}, "kvdelta: offset 0: malformed: magic"},
		{&Error{Offset: 72, Err: ErrChecksum}, "kvdelta: offset 72: checksum mismatch"},
		{&Error{Offset: -1, Err: ErrSnapshot, Detail: "token count -1"}, "kvdelta: invalid snapshot: token count -1"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
		if !errors.Is(c.err, c.err.Err) {
			t.Errorf("%q is not its kind", c.err)
		}
	}
	// Encode's errors are of its input, at no offset.
	_, err := NewEncoder(Options{}).Encode(nil, nil, &Snapshot{Geometry: tiling.Geometry{}})
	var e *Error
	if !errors.As(err, &e) || e.Offset != -1 || e.Err != ErrSnapshot {
		t.Errorf("Encode of no geometry: %#v", err)
	}
}
