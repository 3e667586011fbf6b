// Package anth is the root of layer0, a pure-Go library for ANTH: a compact
// binary wire protocol for LLM token streams, and the codecs around it.
//
// The work is in the subpackages:
//
//   - frame: the ANTH frame codec (stream reader and writer, allocation-free
//     append and parse forms) and the binary request format.
//   - utf8: reassembly of UTF-8 text split anywhere, as the WHATWG Encoding
//     Standard decodes it.
//   - tiling: the power-of-two tile layout of a KV cache and its
//     bookkeeping (tile pool, page tables, slot mappings, tile hashes).
//   - kvdelta: lossless, integrity-checked deltas between KV cache
//     snapshots.
//   - sse: a lossless bridge between Anthropic Server-Sent Events and ANTH,
//     with net/http helpers.
//
// SPEC.md is the normative wire specification; cmd/anth is the command-line
// tool. This package holds no code: its benchmarks set the codecs against
// the baselines a user would otherwise reach for.
package anth
