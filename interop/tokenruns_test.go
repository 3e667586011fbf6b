package interop

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/layer0/anth/frame"
)

// js/src/encode.js's encodeTokenRuns is the twin of Go's
// frame.AppendTokenRuns (SPEC.md §3.1's split of a batch into TOKEN and
// TOKEN32 runs). TestTokenRunsGolden pins what Go writes for seeded batches
// in js/test/testdata/tokenruns-golden.json, and js/test/encode.test.js
// holds the JavaScript to the same bytes. Regenerate with
// go test -run TestTokenRunsGolden -update-tokenruns-golden.
var updateTokenRunsGolden = flag.Bool("update-tokenruns-golden", false, "write js/test/testdata/tokenruns-golden.json")

const tokenRunsGoldenPath = "../js/test/testdata/tokenruns-golden.json"

type tokenRunsCase struct {
	IDs    []uint32 `json:"ids"`
	Frames string   `json:"frames"` // hex
}

// buildTokenRunsGolden draws batches of up to 24 IDs in runs of narrow and
// wide ones (lengths 1–5, so runs of 1, 2 and 3 between wide IDs all
// occur), and the ends: none, one narrow, one wide.
func buildTokenRunsGolden() []tokenRunsCase {
	rng := rand.New(rand.NewPCG(23, 1))
	batches := [][]uint32{{}, {42}, {200018}, {42, 200018}, {200018, 42}, {70000, 1, 2, 70000}, {70000, 1, 2, 3, 70000}}
	for range 200 {
		var ids []uint32
		for range rng.IntN(8) {
			wide := rng.IntN(2) == 0
			for range 1 + rng.IntN(5) {
				if wide {
					ids = append(ids, 0x10000+rng.Uint32N(200019-0x10000))
				} else {
					ids = append(ids, rng.Uint32N(0x10000))
				}
			}
		}
		batches = append(batches, ids)
	}
	cases := make([]tokenRunsCase, len(batches))
	for i, ids := range batches {
		cases[i] = tokenRunsCase{IDs: append([]uint32{}, ids...), Frames: hex.EncodeToString(frame.AppendTokenRuns(nil, ids...))}
	}
	return cases
}

func TestTokenRunsGolden(t *testing.T) {
	b, err := json.MarshalIndent(buildTokenRunsGolden(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *updateTokenRunsGolden {
		if err := os.WriteFile(tokenRunsGoldenPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(tokenRunsGoldenPath)
	if err != nil {
		t.Fatalf("%v (regenerate with -update-tokenruns-golden)", err)
	}
	if diff := cmp.Diff(string(want), string(b)); diff != "" {
		t.Errorf("Go differs from %s (-file +Go):\n%s", tokenRunsGoldenPath, diff)
	}
}
