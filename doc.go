// Package anth is the root of layer0, a pure-Go library for ANTH: a compact
// binary wire protocol for LLM token streams, and the codecs around it.
//
// The work is in the subpackages, in layers; each imports only those below
// it:
//
//   - anthclient and anthhttp: the packages that import net/http, each
//     taking the API as a bridge.API. anthclient reads: NewFrameReader and
//     Transport, an http.RoundTripper. anthhttp serves: negotiation, the
//     response writer, Proxy and the Gateway (a reverse proxy); it holds
//     the names both sides share, which anthclient imports.
//   - messages: the Anthropic Messages API's bridge, SSE to ANTH and back,
//     losing nothing an SDK reads; messages.API is its bridge.API. bridge
//     holds the interfaces a bridge implements, so a second API is a
//     sibling package. request: request bodies as ANTH, the seed form and
//     the extended form of any JSON request.
//   - frame: the ANTH frame codec (stream reader and writer, allocation-free
//     append and parse forms, text reassembly). sse: the event-stream
//     format, with no JSON. deflate: all DEFLATE work (anth-deflate, EVENT
//     blocks, preset dictionaries). utf8: reassembly of UTF-8 text split
//     anywhere, as the WHATWG Encoding Standard decodes it.
//   - kvdelta: lossless, integrity-checked deltas between KV cache
//     snapshots; tiling: the power-of-two tile layout of a KV cache and its
//     bookkeeping (tile pool, page tables, slot mappings, tile hashes).
//
// # Conventions
//
// Errors: a fault of input is a typed error of the package that found it
// (*frame.Error, *request.Error, …) with the byte offset, wrapping a kind.
// The kinds the packages share — ErrMalformed, ErrTruncated (which is
// io.ErrUnexpectedEOF), ErrTooLarge — are one value each, exported by every
// package that reports them under the same name, so errors.Is(err,
// frame.ErrMalformed) holds whichever package found the fault.
//
// Options: configuration is a struct whose zero value is the default and
// whose fields are documented where they are declared, never a function
// per option. A constructor takes it as its last argument
// (frame.NewReader(r, frame.ReaderOptions{}), messages.NewDecoder(r,
// messages.DecoderOptions{})); where there is nothing to construct, its
// methods do the work (request.Limits{MaxSize: n}.Parse(b)). A struct is
// plain data: it can be compared, logged, embedded in another package's
// options (messages.API holds a Decoder's and an Encoder's) and passed
// through without translation.
//
// Reuse: a value that is costly to make has a Reset method, and a caller
// that makes many keeps its own (deflate.Writer, deflate.Reader,
// messages.Decoder, deflate.Inflater), or hands over an explicit reuse
// object (messages.API.Decoders, a DecoderPool, as huff0's Scratch); no
// codec package keeps a hidden pool. The HTTP layer, which serves and
// reads many short streams at once, keeps its anth-deflate Writers and
// event-stream Scanners (anthhttp) and its anth-deflate Readers
// (anthclient) in sync.Pools, as gzhttp keeps its gzip writers.
//
// Reading: every reader of an io.Reader holds it to io.Reader's contract
// through one guard (a count outside 0..len(p) is an error, a run of 100
// empty reads is io.ErrNoProgress), and bounds what it holds and produces
// per byte received (SPEC.md §12).
//
// SPEC.md is the normative wire specification; cmd/anth is the command-line
// tool. This package holds no code: its benchmarks set the codecs against
// the baselines a user would otherwise reach for.
package anth
