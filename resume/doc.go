// Package resume keeps the tails of streamed responses so that a client
// whose connection dropped can read exactly what it missed and then the
// live rest (SPEC.md §13): a Store holds what each response's client reads
// (its ANTH frames, or its events) under an unguessable ID, bound to the caller's credentials, in memory
// (NewMemory) or in Redis (package resume/redisstore), and anthhttp's
// Gateway serves resume requests from it. The writer of a response holds
// its tail as a Tail (Start), which a Starter such as Memory makes the
// tail itself, so that the Append of every write skips finding it by ID.
package resume
