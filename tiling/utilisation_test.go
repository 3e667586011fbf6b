package tiling

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestUtilisation replays a simulated workload, the comparison of the
// PagedAttention paper (SOSP'23, fig. 2), and checks that reserving whole
// tiles as a sequence grows keeps memory nearly all in use while the seed's
// power-of-two reservation of the max_tokens budget does not. Run with -v
// for the table.
//
// Requests: prompts and outputs log-normal around 300 and 250 tokens (a
// chat workload's shape), max_tokens drawn from budgets clients commonly
// send (512 to 8,192), output cut at the budget. Utilisation is the tokens
// held over the tokens reserved, summed over every decoding step of every
// request, i.e. averaged over the time memory is held.
func TestUtilisation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	logNormal := func(median, sigma float64) int {
		return max(1, int(median*math.Exp(sigma*rng.NormFloat64())))
	}
	budgets := []int{512, 1024, 2048, 4096, 8192}
	l := Layout{TileShift: 4} // 16-token tiles, vLLM's default block
	schemes := []struct {
		name    string
		reserve func(prompt, maxTokens, used int) int
	}{
		{"seed: RoundPow2(prompt+max_tokens) up front", func(p, m, _ int) int { return l.RoundPow2(p + m) }},
		{"exact prompt+max_tokens up front", func(p, m, _ int) int { return p + m }},
		{"RoundPow2 of the tokens so far", func(_, _, u int) int { return l.RoundPow2(u) }},
		{"tiles of 16 as the sequence grows (Capacity)", func(_, _, u int) int { return l.Capacity(u) }},
	}
	held := make([]float64, len(schemes))
	var used float64
	worstTileWaste := 0
	const requests = 5000
	for range requests {
		prompt := logNormal(300, 1.0)
		maxTokens := budgets[rng.IntN(len(budgets))]
		out := min(logNormal(250, 0.9), maxTokens)
		for step := 0; step <= out; step++ {
			u := prompt + step
			used += float64(u)
			for i, s := range schemes {
				held[i] += float64(s.reserve(prompt, maxTokens, u))
			}
			worstTileWaste = max(worstTileWaste, l.Waste(u))
		}
	}
	util := make([]float64, len(schemes))
	for i, s := range schemes {
		util[i] = used / held[i]
		t.Logf("%-46s %5.1f%% of reserved KV memory holds tokens", s.name, 100*util[i])
	}
	if util[3] < 0.95 || worstTileWaste >= l.Size() {
		t.Errorf("tile reservation: %.1f%% used, worst waste %d tokens", 100*util[3], worstTileWaste)
	}
	if util[0] >= util[3] || util[2] >= util[3] {
		t.Errorf("power-of-two reservation beat tile reservation: %v", util)
	}
}
