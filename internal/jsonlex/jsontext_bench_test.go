//go:build goexperiment.jsonv2

package jsonlex

import (
	"bytes"
	"encoding/json/jsontext"
	"testing"
)

// The same jobs with encoding/json/jsontext (Go 1.25+, GOEXPERIMENT=jsonv2):
// go test -bench . with GOEXPERIMENT=jsonv2 sets them beside the others.

func BenchmarkFieldJSONText(b *testing.B) {
	b.SetBytes(int64(len(benchMessageDelta)))
	b.ReportAllocs()
	var r bytes.Reader
	dec := jsontext.NewDecoder(&r)
	for b.Loop() {
		r.Reset(benchMessageDelta)
		dec.Reset(&r)
		found := false
		for !found {
			tok, err := dec.ReadToken()
			if err != nil {
				b.Fatal(err)
			}
			// The usage object's output_tokens: a name at depth 2.
			if tok.Kind() == '"' && dec.StackDepth() == 2 && tok.String() == "output_tokens" {
				if v, err := dec.ReadToken(); err != nil || v.Uint() != 15 {
					b.Fatal(err)
				}
				found = true
			}
		}
	}
}

func BenchmarkCompactJSONText(b *testing.B) {
	b.SetBytes(int64(len(benchStart)))
	b.ReportAllocs()
	var v jsontext.Value
	for b.Loop() {
		v = append(v[:0], benchStart...)
		if err := v.Compact(); err != nil {
			b.Fatal(err)
		}
	}
}
