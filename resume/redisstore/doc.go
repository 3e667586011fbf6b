// Package redisstore is a resume.Store in Redis, for gateways that run as
// several instances behind one address: any instance can resume a response
// another is sending, or was sending before it died. It is a package of its
// own so that users of the memory store do not link a Redis client.
//
// # Layout
//
// A response with ID id is two keys, both with the prefix (Options.Prefix,
// "anth:resume:" by default) and the ID in braces, so a Redis Cluster puts
// them in one slot:
//
//	{id}:i  a hash: o owner (32 bytes, resume.Owner), a API path,
//	        m MaxBytes, t TTL in ms, n bytes kept,
//	        e "1" once ended, d "1" once dropped
//	{id}:s  a stream: one entry per Append, entry ID "<offset>-1" where
//	        offset is the Append's first byte; fields p (the bytes) and
//	        e "1" on the Append that ends the tail. Markers get the ID
//	        "<bytes kept>-2": field e alone for an end with no bytes, field
//	        d when the tail is dropped (then every entry before it is
//	        trimmed away).
//
// Because an entry's ID is its offset, XREVRANGE from "<from>-1" with
// COUNT 1 finds the Append holding a cursor, and a follower blocks in
// XREAD BLOCK after the last ID it read. Create, Append and Follow's
// lookup are Lua scripts (EVALSHA), so each is one round trip and atomic:
// an Append checks the hash, adds the entry, counts the bytes and renews
// both keys' TTL (PEXPIRE) at once, and allocates nothing in the client.
// A follower catches up with XRANGE, 256 entries a round trip, then blocks
// in XREAD BLOCK after the last entry it read.
//
// # Bounds and faults
//
// A tail holds at most min(Info.MaxBytes, Options.MaxBytes) bytes; Redis's
// own maxmemory bounds them all: run it with maxmemory-policy noeviction
// (an Append past maxmemory is then an OOM error reply, ErrUnavailable,
// and the gateway stops keeping that tail) or volatile-ttl (the tails
// nearest their end go first); a tail whose hash Redis evicted is not
// found, one whose stream it evicted is gone. A follower blocks in XREAD for at most Options.Poll and then
// checks that the tail still exists, so a tail that expires or vanishes in
// a restart gives its followers ErrGone within Poll. Redis is run without
// persistence by the tests: a restart loses every tail, and resumes after it
// are ErrNotFound. Any failure to reach Redis (refused, reset, no answer
// within Options.Timeout, an error reply such as OOM or LOADING) is
// resume.ErrUnavailable, wrapping the client's error.
//
// # Client
//
// The store uses github.com/redis/rueidis. Against go-redis v9.23.0, on the
// store's own work with a local redis-server (see the commit that added this
// package for the figures): an Append allocates nothing in rueidis and 13
// times in go-redis, cancelling a context unblocks an XREAD BLOCK in
// rueidis at once and not in go-redis (which waits out the BLOCK), and
// go-redis v9.23.0 needs Go 1.26 where this module's floor is 1.25.
package redisstore
