package anth_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/frame"
	"github.com/layer0/anth/internal/cputime"
	"github.com/layer0/anth/internal/jsonlex"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/sse"
)

// chatResponse is the 1,000-token response of benchTokens as the OpenAI
// API streams it with include_usage: a role chunk, one chunk per token
// with its envelope, service_tier, usage null and an obfuscation string, a
// finish chunk, a usage chunk and [DONE].
func chatResponse() []byte {
	head := `{"id":"chatcmpl-CXk2Jv7mQ9rT1sYb4nLw8eZ3aPdF","object":"chat.completion.chunk","created":1764633604,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[{"index":0,"delta":`
	obf := func(i int) string { return `,"obfuscation":"` + "Xa9fQz2kLm0pR7"[:1+i%13] + `"}` }
	var b []byte
	b = append(b, "data: "+head+`{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null`+obf(0)+"\n\n"...)
	for i, t := range benchTokens {
		b = append(b, "data: "+head+`{"content":`...)
		b = jsonlex.AppendString(b, t.text)
		b = append(b, `},"logprobs":null,"finish_reason":null}],"usage":null`+obf(i)+"\n\n"...)
	}
	b = append(b, "data: "+head+`{},"logprobs":null,"finish_reason":"stop"}],"usage":null`+obf(3)+"\n\n"...)
	b = append(b, `data: {"id":"chatcmpl-CXk2Jv7mQ9rT1sYb4nLw8eZ3aPdF","object":"chat.completion.chunk","created":1764633604,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[],"usage":{"prompt_tokens":25,"completion_tokens":`+strconv.Itoa(streamTokens)+`,"total_tokens":1025,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"obfuscation":"Q2"}`+"\n\n"...)
	return append(b, "data: [DONE]\n\n"...)
}

// chatChunk is the part of openai-go's ChatCompletionChunk a client reads,
// decoded with encoding/json as the SDKs' own decoders do (openai-go's
// apijson is slower still): the baseline a client of SSE pays per chunk.
type chatChunk struct {
	ID                string `json:"id"`
	Object            string `json:"object"`
	Created           int64  `json:"created"`
	Model             string `json:"model"`
	ServiceTier       string `json:"service_tier"`
	SystemFingerprint string `json:"system_fingerprint"`
	Choices           []struct {
		Index int `json:"index"`
		Delta struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			Refusal   string `json:"refusal"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		Logprobs     json.RawMessage `json:"logprobs"`
		FinishReason string          `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// BenchmarkChatBridge measures package chat on the generated 1,000-token
// response and on openai-go's recording (198 chunks with logprobs): bytes
// per chunk as SSE and as ANTH; the bridge's CPU per chunk both ways,
// beside gzip-5 of the SSE flushed per chunk (a server's baseline); and a
// client's CPU per chunk reading the SSE as the SDKs do (event-stream
// scanner and encoding/json) against reading the ANTH's text frames.
func BenchmarkChatBridge(b *testing.B) {
	streams := []struct {
		name string
		sse  []byte
	}{{"generated-1000", chatResponse()}, {"openai-go-recording", testdata.Chat(b)["openai-go_streamaccumulator.sse"]}}
	for _, s := range streams {
		in := s.sse
		chunks := bytes.Count(in, []byte("\ndata: ")) + 1
		anth, err := io.ReadAll(chat.NewDecoder(bytes.NewReader(in), chat.DecoderOptions{}))
		if err != nil {
			b.Fatal(err)
		}
		// perChunk reports, beside wall time, the process's CPU time a
		// chunk since cpu (cputime.Process at the start): on a shared
		// machine, time spent waiting for a core is not the bridge's.
		perChunk := func(b *testing.B, cpu time.Duration) {
			b.ReportMetric(float64(len(in))/float64(chunks), "SSE-B/chunk")
			b.ReportMetric(float64(len(anth))/float64(chunks), "ANTH-B/chunk")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(chunks), "ns/chunk")
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N)/float64(chunks), "cpu-ns/chunk")
		}
		b.Run(s.name+"/sse-to-anth", func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			cpu := cputime.Process()
			d := chat.NewDecoder(nil, chat.DecoderOptions{})
			r := bytes.NewReader(in)
			for b.Loop() {
				r.Reset(in)
				d.Reset(r)
				for {
					if _, err := d.Next(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
			perChunk(b, cpu)
		})
		b.Run(s.name+"/anth-to-sse", func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			cpu := cputime.Process()
			e := chat.NewEncoder(io.Discard, chat.EncoderOptions{})
			for b.Loop() {
				e.Reset(io.Discard)
				for i := 0; i < len(anth); i += 512 {
					if _, err := e.Write(anth[i:min(i+512, len(anth))]); err != nil {
						b.Fatal(err)
					}
				}
				if err := e.Close(); err != nil {
					b.Fatal(err)
				}
			}
			perChunk(b, cpu)
		})
		b.Run(s.name+"/server-gzip-5-sse", func(b *testing.B) {
			// The baseline of the bridge's server CPU: what a server that
			// compresses its SSE spends, gzip level 5 flushed per chunk.
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			cpu := cputime.Process()
			z, _ := gzip.NewWriterLevel(io.Discard, 5)
			events := bytes.SplitAfter(in, []byte("\n\n"))
			for b.Loop() {
				z.Reset(io.Discard)
				for _, ev := range events {
					z.Write(ev)
					z.Flush()
				}
				z.Close()
			}
			perChunk(b, cpu)
		})
		b.Run(s.name+"/client-sse-encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			cpu := cputime.Process()
			sc := sse.NewScanner(nil, 0)
			r := bytes.NewReader(in)
			for b.Loop() {
				r.Reset(in)
				sc.Reset(r)
				n := 0
				for {
					_, data, err := sc.Next()
					if err == io.EOF {
						break
					}
					if string(data) == "[DONE]" {
						continue
					}
					var c chatChunk
					if err := json.Unmarshal(data, &c); err != nil {
						b.Fatal(err)
					}
					for _, ch := range c.Choices {
						n += len(ch.Delta.Content)
					}
				}
				if n == 0 {
					b.Fatal("no text")
				}
			}
			perChunk(b, cpu)
		})
		b.Run(s.name+"/client-anth-frames", func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			cpu := cputime.Process()
			r := bytes.NewReader(anth)
			fr := frame.NewReader(r, frame.ReaderOptions{})
			for b.Loop() {
				r.Reset(anth)
				fr.Reset(r)
				n := 0
				for {
					f, err := fr.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if f.Type == frame.TypeText {
						_, text, _ := f.Text()
						n += len(text)
					}
				}
				if n == 0 {
					b.Fatal("no text")
				}
			}
			perChunk(b, cpu)
		})
	}
}
