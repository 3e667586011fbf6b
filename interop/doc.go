// Package interop proves that the sse bridge is lossless for the official
// Anthropic Go SDK. It is a module of its own so that users of layer0 never
// download the SDK and its dependencies; its tests run the SDK against
// recordings served on 127.0.0.1 (see interop_test.go).
package interop
