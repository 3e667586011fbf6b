// Package anth is the root of layer0, a pure-Go library for ANTH: a compact
// binary wire protocol for LLM token streams, and the codecs around it.
//
// The work is in the subpackages:
//
//   - frame: the ANTH frame codec (stream reader and writer, allocation-free
//     append and parse forms) and the binary request format.
//
// SPEC.md is the normative wire specification; cmd/anth is a command-line
// demo and inspector. This package holds no code: its bench_test.go sets the
// codecs against the baselines a user would otherwise reach for.
package anth
