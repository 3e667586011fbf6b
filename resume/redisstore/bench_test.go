package redisstore_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/layer0/anth/internal/redistest"
	"github.com/layer0/anth/resume"
	"github.com/layer0/anth/resume/redisstore"
)

// tokenBytes is an ANTH text token frame's typical size (README: 9.26
// bytes a token for a 1,000-token response).
const tokenBytes = 9

// stores returns the stores the benchmarks compare: Memory, the baseline a
// one-instance gateway uses, and Redis.
func stores(b *testing.B, srv *redistest.Server) []struct {
	name string
	s    resume.Store
} {
	m := resume.NewMemory(resume.MemoryOptions{MaxBytes: 1 << 30})
	b.Cleanup(func() { m.Close() })
	return []struct {
		name string
		s    resume.Store
	}{{"memory", m}, {"redis", newStore(b, redisstore.Options{Addr: srv.Addr})}}
}

// BenchmarkAppend: one Append per gateway write of k tokens. It reports
// time per token, Redis commands per token (round trips: EVALSHA; and all
// commands Redis ran, the script's own included), and the bytes Redis
// holds per token kept (MEMORY USAGE of both keys after 1,024 tokens).
func BenchmarkAppend(b *testing.B) {
	srv := redistest.Start(b)
	for _, st := range stores(b, srv) {
		for _, k := range []int{1, 4, 16, 32} {
			b.Run(fmt.Sprintf("%s/tokens=%d", st.name, k), func(b *testing.B) {
				p := make([]byte, k*tokenBytes)
				id := create(b, st.s)
				st.s.Append(bg, id, p, false)
				var before map[string]int64
				if st.name == "redis" {
					before = calls(b, srv)
				}
				b.SetBytes(int64(len(p)))
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					if n%4096 == 4095 { // a new response, within every bound
						id = create(b, st.s)
					}
					if err := st.s.Append(bg, id, p, false); err != nil {
						b.Fatal(err)
					}
					n++
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*k), "ns/token")
				if st.name != "redis" {
					return
				}
				after := calls(b, srv)
				var all int64
				for cmd, v := range after {
					all += v - before[cmd]
				}
				all -= 1                                         // the INFO that read the first count
				all -= after["hset"] - before["hset"] - int64(n) // Create's HSETs, of the new responses
				all -= 3 * int64(n/4096)                         // and their EXISTS, DEL, PEXPIRE
				b.ReportMetric(float64(after["evalsha"]-before["evalsha"])/float64(n*k), "roundtrips/token")
				b.ReportMetric(float64(all)/float64(n*k), "rediscmds/token")
				b.ReportMetric(heldPerToken(b, srv, st.s, k), "redisB/token")
			})
		}
	}
}

// heldPerToken keeps a 1,024-token tail in appends of k tokens and returns
// the bytes Redis holds for it per token.
func heldPerToken(b *testing.B, srv *redistest.Server, s resume.Store, k int) float64 {
	const tokens = 1024
	id := create(b, s)
	p := make([]byte, k*tokenBytes)
	for range tokens / k {
		if err := s.Append(bg, id, p, false); err != nil {
			b.Fatal(err)
		}
	}
	var held int64
	for _, key := range []string{"i", "s"} {
		v, err := strconv.ParseInt(trimInt(srv.Do("MEMORY", "USAGE", redisstore.DefaultPrefix+"{"+string(id)+"}:"+key, "SAMPLES", "0")), 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		held += v
	}
	return float64(held) / tokens
}

func trimInt(s string) string {
	if len(s) > 0 && s[0] == ':' {
		return s[1:]
	}
	return s
}

// BenchmarkFollowLatency: from the start of an Append to a follower
// blocked in Next returning its bytes; for Redis the follower uses a
// second Store, as another gateway instance would. It reports p50 and
// p99.
func BenchmarkFollowLatency(b *testing.B) {
	srv := redistest.Start(b)
	for _, st := range stores(b, srv) {
		b.Run(st.name, func(b *testing.B) {
			writer := st.s
			reader := st.s
			if st.name == "redis" {
				reader = newStore(b, redisstore.Options{Addr: srv.Addr})
			}
			id := create(b, writer)
			f, err := reader.Follow(bg, id, owner, 0)
			if err != nil {
				b.Fatal(err)
			}
			got := make(chan time.Time)
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			go func() {
				for {
					if _, _, err := f.Next(ctx); err != nil {
						return
					}
					got <- time.Now()
				}
			}()
			p := make([]byte, 16*tokenBytes)
			var lat []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				if err := writer.Append(bg, id, p, false); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, (<-got).Sub(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
		})
	}
}

// BenchmarkReadTail: a resume from 0 of an ended tail of 1,000 appends of
// 16 tokens, read to io.EOF.
func BenchmarkReadTail(b *testing.B) {
	srv := redistest.Start(b)
	for _, st := range stores(b, srv) {
		b.Run(st.name, func(b *testing.B) {
			id := create(b, st.s)
			p := make([]byte, 16*tokenBytes)
			for i := range 1000 {
				if err := st.s.Append(bg, id, p, i == 999); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(1000 * int64(len(p)))
			b.ReportAllocs()
			for b.Loop() {
				f, err := st.s.Follow(bg, id, owner, 0)
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, _, err := f.Next(bg); err != nil {
						break
					}
				}
				f.Close()
			}
		})
	}
}
