package anthhttp

import (
	"crypto/sha256"
	"net/http"
	"strings"
)

// Credentials make a Gateway hold the upstream's API key itself, so that
// a client — a web page — never sees it: each client authenticates with a
// token of its own, which the gateway checks against Tokens, drops, and
// replaces with Key (sent as x-api-key) on the way upstream.
//
// Tokens are a list, not signed tokens: each is revoked by deleting it,
// names its client in the log (Record.Caller), and needs no clock or
// signing key to keep. A page's token is still a secret the page's users
// can read, so give each page (or each user, by your own means) a token of
// its own; a site that mints short-lived tokens per user from its backend
// would want signed tokens instead, which this does not do.
type Credentials struct {
	// Key is the upstream's API key.
	Key string
	// Tokens maps each client token to the client's name.
	Tokens map[string]string
}

// tokens is Credentials' list by SHA-256, so that a lookup's timing
// depends on the hash of what a client sent, never on how much of a real
// token it guessed.
type tokens struct {
	key    string
	byHash map[[sha256.Size]byte]string
}

func newTokens(c *Credentials) *tokens {
	if c == nil {
		return nil
	}
	t := &tokens{key: c.Key, byHash: make(map[[sha256.Size]byte]string, len(c.Tokens))}
	for tok, name := range c.Tokens {
		t.byHash[sha256.Sum256([]byte(tok))] = name
	}
	return t
}

// caller returns the name of the client whose token r carries, in
// x-api-key (what the official SDKs send their apiKey as) or as an
// Authorization bearer token.
func (t *tokens) caller(r *http.Request) (string, bool) {
	tok := r.Header.Get("X-Api-Key")
	if tok == "" {
		auth := r.Header.Get("Authorization")
		if len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
			tok = strings.TrimSpace(auth[7:])
		}
	}
	if tok == "" {
		return "", false
	}
	name, ok := t.byHash[sha256.Sum256([]byte(tok))]
	return name, ok
}

// replace gives an upstream request the gateway's key in place of the
// client's token.
func (t *tokens) replace(h http.Header) {
	h.Del("Authorization")
	h.Set("X-Api-Key", t.key)
}
