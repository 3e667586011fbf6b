package resume

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"
)

// ID names one kept response. It is 128 random bits, written as 22
// characters of unpadded base64url (the Anth-Resume-Id header's value):
// unguessable, so knowing a response's ID is no weaker a secret than the
// response itself. NewID makes one.
type ID string

// NewID returns a new ID from crypto/rand.
func NewID() ID {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	return ID(base64.RawURLEncoding.EncodeToString(b[:]))
}

// Valid reports whether id has the form NewID gives, so that a store never
// sees a key a client made up in another shape (a Redis key with a space, a
// megabyte-long name).
func (id ID) Valid() bool {
	if len(id) != 22 {
		return false
	}
	// What base64.RawURLEncoding.DecodeString accepts at this length, but
	// for the CRs and LFs it skips; and every Create checks its ID, so it
	// allocates nothing, and looks each character up in a bitmap.
	for i := 0; i < len(id); i++ {
		if c := id[i]; c >= 128 || idChars[c>>6]&(1<<(c&63)) == 0 {
			return false
		}
	}
	return true
}

// idChars is base64url's alphabet as a bitmap of the bytes below 128:
// bit c&63 of word c>>6 is set for "-", "0"-"9", "A"-"Z", "_" and "a"-"z".
var idChars = [2]uint64{
	1<<'-' | (1<<10-1)<<'0',
	(1<<26-1)<<('A'-64) | 1<<('_'-64) | (1<<26-1)<<('a'-64),
}

// Owner is who may read a kept response: the SHA-256 of the credentials
// that asked for it (OwnerOf), never the credentials themselves, so a store
// (or a Redis dump) holds no API key. A request with other credentials is
// told the response does not exist (ErrNotFound), not that it is someone
// else's.
type Owner [sha256.Size]byte

// OwnerOf returns the Owner for a request's credentials, its API key or
// Authorization header value, or "" for a request that carries none.
func OwnerOf(credentials string) Owner {
	// Hashed from an array on the stack: every resumable stream asks for
	// its owner, and credentials are short.
	var buf [256]byte
	return sha256.Sum256(append(append(buf[:0], ownerPrefix...), credentials...))
}

const ownerPrefix = "anth-resume-owner\x00"

// Info is what a store keeps about a response beside its bytes.
type Info struct {
	Owner Owner
	// API is the path of the API the response answers ("/v1/messages"),
	// so a resume at another API's path is refused.
	API string
	// TTL is how long the tail is kept after its last Append; a tail
	// nobody appends to for TTL is gone (ErrNotFound), ended or not.
	// Zero means the store's default.
	TTL time.Duration
	// MaxBytes bounds the tail's bytes: an Append past it fails with
	// ErrTooLarge and the tail is dropped (ErrGone to whoever resumes).
	// Zero means no bound of its own (the store's bounds still hold).
	MaxBytes int64
}

// Errors a Store returns. A gateway maps them to statuses (SPEC.md §13).
var (
	// ErrNotFound: no such response for this owner (unknown, expired or
	// another caller's; the three are not told apart).
	ErrNotFound = errors.New("resume: no such response")
	// ErrGone: the response was kept but its tail was dropped (it grew
	// past Info.MaxBytes, or the store evicted it to stay in its bounds).
	ErrGone = errors.New("resume: response no longer kept")
	// ErrTooLarge: an Append would take the tail past Info.MaxBytes.
	ErrTooLarge = errors.New("resume: tail too large")
	// ErrExists: a Create for an ID the store already holds.
	ErrExists = errors.New("resume: response already exists")
	// ErrEnded: an Append after the tail was marked ended.
	ErrEnded = errors.New("resume: tail already ended")
	// ErrRange: a cursor past the bytes kept.
	ErrRange = errors.New("resume: offset past the bytes kept")
	// ErrUnavailable: the store cannot be reached (Redis down). Streams
	// go on; resuming is refused with this error.
	ErrUnavailable = errors.New("resume: store unavailable")
)

// A Store keeps the tails of responses a gateway is sending, so a client
// whose connection dropped can read what it missed and then the live rest.
// The bytes kept are what the response's client reads (SPEC.md §13.1): an
// ANTH client's frames after the magic, uncompressed, or an event-stream
// client's events, whole, in order. The store knows nothing of either: an
// offset is a byte offset into those bytes (0 is the first frame or
// event), and every Append starts on a frame's or an event's boundary,
// which the reader of a resumed tail uses to check a cursor.
//
// A Store is safe for concurrent use: one goroutine appends to a tail while
// any number follow it.
type Store interface {
	// Create starts an empty tail for id. It fails with ErrExists if id
	// exists.
	Create(ctx context.Context, id ID, info Info) error
	// Append adds p, one or more whole frames or events, at the tail's
	// end; end marks the response ended (its end is in p or before), after
	// which the tail only expires. A store may keep p only until Append
	// returns, so callers may reuse it.
	Append(ctx context.Context, id ID, p []byte, end bool) error
	// Follow opens the tail of id for owner at byte offset from. The
	// Follower's first chunk starts at or before from (at the start of
	// the Append that holds from; its start says where), so the caller can
	// check that from is a boundary by walking the frames or events before
	// it.
	// A from equal to the bytes kept so far waits for the next Append; one
	// past them is ErrRange (a gateway appends before it writes to its
	// client, so no client can have read bytes the store lacks).
	Follow(ctx context.Context, id ID, owner Owner, from int64) (Follower, error)
	// Close releases the store's resources (a Redis client's connections).
	Close() error
}

// A Tail is one kept response as the writer that created it holds it
// (Start): Appends through it go to its tail without finding the tail by
// its ID, which for Memory is a map lookup and a check of the ID on every
// write of every stream. It is the tail, not the ID: once the tail has
// expired or been removed, Append fails (ErrNotFound, ErrGone) even if
// another tail has been created under the same ID since.
type Tail interface {
	// Append is Store.Append for the tail's ID.
	Append(ctx context.Context, p []byte, end bool) error
}

// A Starter is a Store that hands back the Tail it creates (Memory does).
type Starter interface {
	Store
	// Start is Create, returning the tail created.
	Start(ctx context.Context, id ID, info Info) (Tail, error)
}

// Start creates id's tail in s, as Create does, and returns it as a Tail:
// s's own when s is a Starter, else one that calls s.Append with id.
func Start(ctx context.Context, s Store, id ID, info Info) (Tail, error) {
	if st, ok := s.(Starter); ok {
		return st.Start(ctx, id, info)
	}
	if err := s.Create(ctx, id, info); err != nil {
		return nil, err
	}
	return byID{s, id}, nil
}

// byID is the Tail of a Store that is no Starter.
type byID struct {
	s  Store
	id ID
}

func (t byID) Append(ctx context.Context, p []byte, end bool) error {
	return t.s.Append(ctx, t.id, p, end)
}

// A Follower reads a tail from a cursor: what is kept, then what is
// appended while it reads, until the tail ends.
type Follower interface {
	// Next returns the next chunk of the tail: its bytes and the offset of
	// their first byte. Chunks come in order and without gaps (each starts
	// where the one before ended, except that the first may start before
	// the cursor given to Follow). It blocks until bytes arrive, and
	// returns io.EOF after the last chunk of an ended tail, ErrGone if the
	// tail was dropped meanwhile, or ctx's error. The bytes are valid until
	// the next call.
	Next(ctx context.Context) (start int64, p []byte, err error)
	Close() error
}
