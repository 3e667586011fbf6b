package anth_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/layer0/anth/anthclient"
	"github.com/layer0/anth/anthhttp"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
	"github.com/layer0/anth/request"
)

// BenchmarkRequest converts the request bodies of testdata/requests, all of
// them each op, JSON → ANTH and ANTH → JSON, beside what a server would do
// with encoding/json to read and write the same bodies generically:
// Unmarshal into any and Marshal again. MB/s are of JSON.
func BenchmarkRequest(b *testing.B) {
	benchRequests(b, testdata.Requests(b), request.AppendANTH, request.AppendJSON)
}

// BenchmarkChatRequest is BenchmarkRequest for the Chat Completions
// request bodies of testdata/requests/chat (SPEC.md §5.5), with gzip of
// the JSON, level 5 and 9, as the byte baseline (ANTH/JSON beside
// gzip/JSON) and its CPU each way.
func BenchmarkChatRequest(b *testing.B) {
	benchRequests(b, testdata.ChatRequests(b), request.AppendChatANTH, request.AppendChatJSON)
}

// benchRequests converts bodies, all of them each op, with toANTH and
// back with toJSON, beside encoding/json's generic read and write and gzip
// of the JSON.
func benchRequests(b *testing.B, bodies map[string][]byte, toANTH, toJSON func(dst, src []byte) ([]byte, error)) {
	names := slices.Sorted(maps.Keys(bodies))
	var total int
	anth := map[string][]byte{}
	var anthTotal int
	for _, name := range names {
		total += len(bodies[name])
		a, err := toANTH(nil, bodies[name])
		if err != nil {
			b.Fatal(err)
		}
		anth[name] = a
		anthTotal += len(a)
	}
	b.Run("json-to-anth", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			for _, name := range names {
				out, _ = toANTH(out[:0], bodies[name])
			}
		}
		b.ReportMetric(float64(anthTotal)/float64(total), "ANTH/JSON")
	})
	b.Run("anth-to-json", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			for _, name := range names {
				out, _ = toJSON(out[:0], anth[name])
			}
		}
	})
	b.Run("encoding-json-any", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		for b.Loop() {
			for _, name := range names {
				var v any
				if err := json.Unmarshal(bodies[name], &v); err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	for _, level := range []int{5, 9} {
		// Each body its own gzip stream, as each is its own HTTP request.
		zipped := map[string][]byte{}
		var zTotal int
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, level)
		for _, name := range names {
			buf.Reset()
			zw.Reset(&buf)
			zw.Write(bodies[name])
			zw.Close()
			zipped[name] = bytes.Clone(buf.Bytes())
			zTotal += buf.Len()
		}
		b.Run("gzip-"+strconv.Itoa(level), func(b *testing.B) {
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				for _, name := range names {
					buf.Reset()
					zw.Reset(&buf)
					zw.Write(bodies[name])
					zw.Close()
				}
			}
			b.ReportMetric(float64(zTotal)/float64(total), "gzip/JSON")
		})
		if level == 9 {
			continue
		}
		b.Run("gunzip", func(b *testing.B) {
			b.SetBytes(int64(total))
			b.ReportAllocs()
			var zr gzip.Reader
			for b.Loop() {
				for _, name := range names {
					zr.Reset(bytes.NewReader(zipped[name]))
					io.Copy(io.Discard, &zr)
				}
			}
		})
	}
}

// BenchmarkGatewayLatency streams 100 responses at once on 127.0.0.1, each
// an event every millisecond carrying the time it was sent, and reports
// the time from the upstream's write to the client's frame at the 50th and
// 99th percentile: straight from the upstream (SSE), and through the
// gateway as ANTH and as SSE. The gateway adds the difference.
func BenchmarkGatewayLatency(b *testing.B) {
	const streams, events = 100, 200
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n")
		for range events {
			time.Sleep(time.Millisecond)
			fmt.Fprintf(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"%d\"}}\n\n", time.Now().UnixNano())
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	gw := httptest.NewServer(anthhttp.NewGateway(messages.API{Decoders: &messages.DecoderPool{}}, anthhttp.GatewayOptions{Upstream: u}))
	defer gw.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams, MaxConnsPerHost: 0}}
	for _, c := range []struct {
		name, base, accept string
	}{{"direct-sse", upstream.URL, "text/event-stream"}, {"gateway-anth", gw.URL, anthclient.Accept}, {"gateway-sse", gw.URL, "text/event-stream"}} {
		b.Run(c.name, func(b *testing.B) {
			var mu sync.Mutex
			var lat []time.Duration
			for b.Loop() {
				var wg sync.WaitGroup
				for range streams {
					wg.Add(1)
					go func() {
						defer wg.Done()
						mine := readLatencies(b, client, c.base, c.accept)
						mu.Lock()
						lat = append(lat, mine...)
						mu.Unlock()
					}()
				}
				wg.Wait()
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// readLatencies streams one response and returns, for each text frame, the
// time since the upstream wrote it.
func readLatencies(b *testing.B, client *http.Client, base, accept string) []time.Duration {
	req, _ := http.NewRequest("POST", base+"/v1/messages", strings.NewReader(`{"model":"m","max_tokens":1,"stream":true,"messages":[]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		b.Error(err)
		return nil
	}
	defer resp.Body.Close()
	fr, err := anthclient.NewFrameReader(resp, messages.API{})
	if err != nil {
		b.Error(err)
		return nil
	}
	var lat []time.Duration
	for f, err := range fr.All() {
		if err != nil {
			b.Error(err)
			return lat
		}
		if f.Type == frame.TypeText {
			_, text, _ := f.Text()
			sent, _ := strconv.ParseInt(string(text), 10, 64)
			lat = append(lat, time.Since(time.Unix(0, sent)))
		}
	}
	return lat
}
