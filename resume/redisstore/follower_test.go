package redisstore

import (
	"strconv"
	"testing"
)

// FuzzEntryOffset: an entry ID from Redis gives its offset or an error,
// never a panic, and an ID the append script writes gives back its offset.
func FuzzEntryOffset(f *testing.F) {
	for _, s := range []string{"0-1", "123-2", "-", "", "1", "x-1", "9223372036854775807-1", "9223372036854775808-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		n, err := entryOffset(id)
		if err == nil && n < 0 {
			// ParseInt takes a sign: the script never writes one, and a
			// follower checks the offset against the one it expects.
			if id[0] != '-' && id[0] != '+' {
				t.Fatalf("%q: offset %d", id, n)
			}
		}
		if err == nil {
			m, err := entryOffset(strconv.FormatInt(n, 10) + "-1")
			if err != nil || m != n {
				t.Fatalf("%d-1: %d, %v", n, m, err)
			}
		}
	})
}
