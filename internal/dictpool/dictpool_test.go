package dictpool

import (
	"testing"

	"github.com/layer0/anth/deflate"
)

// TestPoolKeepsDictionariesApart: a value put for one dictionary is never
// got for another, which a deflate Writer or Reader, reset only to the
// dictionary it was made with, depends on; the zero Pool is ready.
func TestPoolKeepsDictionariesApart(t *testing.T) {
	a, b := deflate.NewDictionary([]byte("the first dictionary")), deflate.NewDictionary([]byte("the second dictionary"))
	var p Pool[*int]
	if v, ok := p.Get(a); ok || v != nil {
		t.Fatalf("an empty pool gave %v, %v", v, ok)
	}
	for i := range 100 {
		v := new(int)
		*v = i
		p.Put(a, v)
		if got, ok := p.Get(b); ok || got != nil {
			t.Fatalf("got %v (put for another dictionary), %v", got, ok)
		}
		// sync.Pool may drop what it was given (the race detector drops
		// a quarter on purpose): only what it gives is checked.
		if got, ok := p.Get(a); ok && got != v {
			t.Fatalf("got %d, want %d", *got, i)
		}
	}
}
