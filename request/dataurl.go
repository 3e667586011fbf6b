package request

import "bytes"

// A data URL (RFC 2397) with base64 data, "data:image/png;base64,iVBO…",
// is how Chat Completions requests carry images and files inline. Version 2
// of the extended request (SPEC.md §5.5) sends one as tag 0B: its prefix,
// up to and including the first comma, as a string, then the bytes its
// base64 stands for.

// dataURLSplit splits s into a data URL's prefix and data if s has the
// shape tag 0B carries: it starts with "data:" and its first comma ends a
// prefix that ends with ";base64,". Whether the data is canonical base64 of
// at least one byte is the caller's to check.
func dataURLSplit(s []byte) (prefix, data []byte, ok bool) {
	if !bytes.HasPrefix(s, []byte("data:")) {
		return nil, nil, false
	}
	i := bytes.IndexByte(s, ',')
	if i < 0 || !bytes.HasSuffix(s[:i], []byte(";base64")) {
		return nil, nil, false
	}
	return s[:i+1], s[i+1:], true
}

// dataURLPrefix reports whether p is a prefix dataURLSplit returns: it
// starts with "data:", ends with ";base64," and has no other comma.
func dataURLPrefix(p []byte) bool {
	return bytes.HasPrefix(p, []byte("data:")) && bytes.HasSuffix(p, []byte(";base64,")) && bytes.IndexByte(p, ',') == len(p)-1
}
