package redisstore_test

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/layer0/anth/resume"
	"github.com/layer0/anth/resume/redisstore"
)

// A gateway keeps its tails in Redis when it runs as several instances;
// if Redis is down when it starts, it can stream without resuming rather
// than not at all. (Not run: it needs a Redis; the package's tests start
// one.)
func ExampleNew() {
	var store resume.Store
	rs, err := redisstore.New(redisstore.Options{Addr: "127.0.0.1:6379", TTL: 5 * time.Minute, Timeout: time.Second})
	switch {
	case errors.Is(err, resume.ErrUnavailable):
		log.Printf("resuming is off: %v", err)
	case err != nil:
		log.Fatal(err)
	default:
		store = rs
		defer rs.Close()
	}
	if store == nil {
		return
	}
	ctx := context.Background()
	id := resume.NewID()
	owner := resume.OwnerOf("sk-key")
	if err := store.Create(ctx, id, resume.Info{Owner: owner, API: "/v1/messages"}); err != nil {
		log.Fatal(err)
	}
	// One Append per write to the client, several tokens' frames each:
	// one round trip to Redis.
	store.Append(ctx, id, []byte("frames of a write"), false)
}
