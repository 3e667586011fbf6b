package frame

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// genRunIDs draws IDs in runs of narrow and wide ones, as real vocabularies
// over 65,536 give them.
func genRunIDs() *rapid.Generator[[]uint32] {
	return rapid.Custom(func(t *rapid.T) []uint32 {
		var ids []uint32
		for range rapid.IntRange(0, 8).Draw(t, "runs") {
			lo, hi := uint32(0), uint32(0xFFFF)
			if rapid.Bool().Draw(t, "wide") {
				lo, hi = 0x10000, 200018
			}
			ids = append(ids, rapid.SliceOfN(rapid.Uint32Range(lo, hi), 1, 6).Draw(t, "run")...)
		}
		return ids
	})
}

// smallestRuns is the fewest bytes any split of ids into TOKEN and TOKEN32
// frames takes (ids short enough for one frame of each), found by trying
// every split.
func smallestRuns(ids []uint32) int {
	// best[i]: the fewest bytes for ids[:i].
	best := make([]int, len(ids)+1)
	for i := 1; i <= len(ids); i++ {
		best[i] = -1
		for j := 0; j < i; j++ {
			width := 2
			if !narrowAll(ids[j:i]) {
				width = 4
			}
			if c := best[j] + HeaderSize + width*(i-j); best[i] < 0 || c < best[i] {
				best[i] = c
			}
		}
	}
	return best[len(ids)]
}

func narrowAll(ids []uint32) bool { return narrowRun(ids) == len(ids) }

// TestAppendTokenRuns: the frames carry the IDs in order, as SPEC.md §3.1
// splits them: TOKEN frames hold narrow IDs only, a TOKEN32 frame starts
// and ends with a wide ID and holds narrow runs of at most 2, and the
// frames take at most 2 bytes more than the best split of all for each
// TOKEN32 frame (1 for a narrow ID at either edge, which the rule leaves
// out).
func TestAppendTokenRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := genRunIDs().Draw(t, "ids")
		b := AppendTokenRuns(nil, ids...)
		var got []uint32
		wideFrames := 0
		for rest := b; len(rest) > 0; {
			f, n, err := Parse(rest)
			if err != nil {
				t.Fatalf("% X: %v", b, err)
			}
			start := len(got)
			if got, err = f.Tokens(got); err != nil {
				t.Fatal(err)
			}
			in := got[start:]
			if f.Type == TypeToken32 {
				wideFrames++
				if narrowRun(in) > 0 || in[len(in)-1] <= 0xFFFF {
					t.Fatalf("%v: TOKEN32 frame %v starts or ends narrow", ids, in)
				}
				for i := 0; i < len(in); {
					if m := narrowRun(in[i:]); m > 2 {
						t.Fatalf("%v: TOKEN32 frame %v holds a narrow run of %d", ids, in, m)
					} else {
						i += m + 1
					}
				}
			}
			rest = rest[n:]
		}
		if d := cmp.Diff(ids, got); d != "" {
			t.Fatalf("IDs (-want +got):\n%s", d)
		}
		if best := smallestRuns(ids); len(b) > best+2*wideFrames {
			t.Fatalf("%v: %d bytes, the best split %d, %d TOKEN32 frames", ids, len(b), best, wideFrames)
		}
	})
}
