package testdata

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/layer0/anth/sse"
)

// SortedKeys re-encodes every event's data with encoding/json, whose
// objects come out with their keys sorted, as a server that decodes and
// re-encodes the JSON writes them.
func SortedKeys(t interface {
	Helper()
	Fatal(...any)
}, stream []byte) []byte {
	t.Helper()
	var out []byte
	for _, ev := range Events(t, stream) {
		var v any
		if err := json.Unmarshal([]byte(ev[1]), &v); err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(v)
		out = sse.AppendEvent(out, []byte(ev[0]), data)
	}
	return out
}

// ShuffledKeys re-encodes every event's data with the members of each
// object in an order drawn from rng: an upstream whose keys follow no
// order at all, every event's its own (issue 26: a gateway's CPU must not
// depend on it). Numbers keep their text.
func ShuffledKeys(t interface {
	Helper()
	Fatal(...any)
}, stream []byte, rng *rand.Rand) []byte {
	t.Helper()
	var out []byte
	for _, ev := range Events(t, stream) {
		d := json.NewDecoder(strings.NewReader(ev[1]))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = sse.AppendEvent(out, []byte(ev[0]), appendShuffled(nil, v, rng))
	}
	return out
}

func appendShuffled(dst []byte, v any, rng *rand.Rand) []byte {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys) // then shuffled: the map's own order is not seeded
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			kj, _ := json.Marshal(k)
			dst = append(append(dst, kj...), ':')
			dst = appendShuffled(dst, v[k], rng)
		}
		return append(dst, '}')
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendShuffled(dst, e, rng)
		}
		return append(dst, ']')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}
