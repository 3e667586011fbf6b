// Package chat bridges OpenAI's Chat Completions streams — the data:-only
// Server-Sent Events of the OpenAI API, vLLM, SGLang, llama.cpp's server and
// Ollama — and ANTH, both ways, losing nothing the official SDKs read
// (SPEC.md §7b). It is the sibling of package messages for the other API:
// it speaks the chunk JSON, reads events with package sse's Scanner and
// knows no HTTP; API is this bridge as a bridge.API.
//
// A Decoder reads SSE and gives ANTH. Each choice's content, refusal,
// reasoning and each tool call's arguments are a content block, numbered as
// they first appear; a chunk whose only change from the last chunk of its
// block is that text (and its obfuscation and token IDs) travels as a TEXT
// or DELTA frame alone (with a PAD and TOKEN frames), the rest in EVENT
// frames deflated against EventDictionary: a changed template, a finish or
// usage chunk, an error. An Encoder writes ANTH as the chunks back,
// including ANTH from a server that never saw SSE.
package chat
