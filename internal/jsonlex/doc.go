// Package jsonlex is the module's one hand-written reading and writing of
// JSON, for what encoding/json does not do or does too slowly on a
// per-token path: finding one field of an event without decoding all of it
// (Field, Uint), compacting an event as it is copied (AppendCompact),
// comparing two values without decoding them (Equal, Same), writing strings
// with ill-formed UTF-8 replaced as SPEC.md §7 wants, one U+FFFD per
// maximal subpart where encoding/json gives one per byte (AppendString),
// and the grammar's pieces the request codec reads with (Number, SkipSpace,
// Unescape). Everything here reads bytes: an event is small and a text
// delta must not spend a microsecond in reflection.
//
// Each function ships its oracle: the tests check it against encoding/json
// on random documents and near-JSON (one edit away), and the benchmarks set
// it beside encoding/json (and encoding/json/jsontext, with
// GOEXPERIMENT=jsonv2) doing the same job in the same run.
package jsonlex
