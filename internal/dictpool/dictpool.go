// Package dictpool holds the one pool shape both HTTP packages keep
// anth-deflate state in: a sync.Pool per preset dictionary, since a
// deflate.Writer or deflate.Reader resets only to the dictionary it was
// made with. anthhttp keeps its Writers in one, anthclient its Readers;
// the codec package deflate keeps none (its reuse is the caller's, with
// Reset).
package dictpool

import (
	"sync"

	"github.com/layer0/anth/deflate"
)

// Pool keeps values made for one preset dictionary apart from those of
// another. The zero value is ready to use; a Pool must not be copied after
// first use.
type Pool[T any] struct{ m sync.Map } // *deflate.Dictionary → *sync.Pool of T

// Get returns a value made for dict and true, or the zero T and false
// when there is none to reuse.
func (p *Pool[T]) Get(dict *deflate.Dictionary) (T, bool) {
	if pool, ok := p.m.Load(dict); ok {
		if v, ok := pool.(*sync.Pool).Get().(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// Put keeps v, made for dict, for a later Get with the same dict.
func (p *Pool[T]) Put(dict *deflate.Dictionary, v T) {
	pool, _ := p.m.LoadOrStore(dict, &sync.Pool{})
	pool.(*sync.Pool).Put(v)
}
