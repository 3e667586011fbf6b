package vocab

import (
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
)

// Header is the request header in which a client lists the vocabularies it
// holds and asks for text beside IDs (SPEC.md §3.14).
const Header = "Anth-Vocabularies"

// Holds is what a client's Anth-Vocabularies header says: the hashes of the
// vocabularies it holds, and whether it asks for IDs and text together.
type Holds struct {
	Hashes [][sha256.Size]byte
	Text   bool
}

// Has reports whether the client holds the vocabulary with the given hash:
// a server may then send it IDs instead of text (SPEC.md §3.14).
func (h Holds) Has(hash [sha256.Size]byte) bool {
	for _, x := range h.Hashes {
		if x == hash {
			return true
		}
	}
	return false
}

// AppendHolds appends h as the header's value, "sha256=<base64>, …, text",
// and returns the extended slice.
func AppendHolds(dst []byte, h Holds) []byte {
	for i, x := range h.Hashes {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, "sha256="...)
		dst = base64.StdEncoding.AppendEncode(dst, x[:])
	}
	if h.Text {
		if len(h.Hashes) > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, "text"...)
	}
	return dst
}

// ParseHolds reads the header's value (SPEC.md §3.14): members separated
// by commas, with optional spaces or tabs around them; "sha256=" and 44
// characters of padded standard base64 of a 32-byte hash; "text"; members
// it does not know are skipped, as the SPEC asks, and empty ones too. A
// sha256 member whose value is not a hash is an *Error (ErrMalformed) at
// its offset in value: a server that gets one sends text only. It holds 32
// bytes per hash listed, each at least 51 bytes of value.
func ParseHolds(value string) (Holds, error) {
	var h Holds
	for off := 0; off <= len(value); {
		end := strings.IndexByte(value[off:], ',')
		if end < 0 {
			end = len(value)
		} else {
			end += off
		}
		start := off
		for start < end && (value[start] == ' ' || value[start] == '\t') {
			start++
		}
		stop := end
		for stop > start && (value[stop-1] == ' ' || value[stop-1] == '\t') {
			stop--
		}
		member := value[start:stop]
		switch {
		case member == "text":
			h.Text = true
		case strings.HasPrefix(member, "sha256="):
			b64 := member[len("sha256="):]
			var sum [sha256.Size + 1]byte // DecodedLen(44): Decode writes no more
			if len(b64) != base64.StdEncoding.EncodedLen(sha256.Size) {
				return Holds{}, fileErr(start, ErrMalformed, "sha256 member of "+strconv.Itoa(len(b64))+" characters, want 44 of base64")
			}
			if n, err := base64.StdEncoding.Strict().Decode(sum[:], []byte(b64)); err != nil || n != sha256.Size {
				return Holds{}, fileErr(start, ErrMalformed, "sha256 member is not padded standard base64 of 32 bytes")
			}
			h.Hashes = append(h.Hashes, [sha256.Size]byte(sum[:sha256.Size]))
		}
		off = end + 1
	}
	return h, nil
}
