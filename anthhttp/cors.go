package anthhttp

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/layer0/anth/frame"
)

// cors is a Gateway's CORS policy (GatewayOptions.CORSOrigins), the Fetch
// standard's protocol (https://fetch.spec.whatwg.org/#http-cors-protocol):
// it answers a preflight itself, and gives each response to an allowed
// origin the headers that let its page read it.
type cors struct {
	any     bool            // "*": every origin
	origins map[string]bool // else these, exactly as a browser sends Origin
	exposed string          // Access-Control-Expose-Headers
}

func newCORS(origins []string) *cors {
	if len(origins) == 0 {
		return nil
	}
	c := &cors{origins: make(map[string]bool, len(origins)), exposed: exposed}
	for _, o := range origins {
		if o == "*" {
			c.any = true
		}
		c.origins[strings.TrimSuffix(o, "/")] = true
	}
	return c
}

// allowed reports whether a page of origin may read responses.
func (c *cors) allowed(origin string) bool {
	return origin != "" && (c.any || c.origins[origin])
}

// exposed are the response headers a page's script may read beyond the
// CORS-safelisted ones: the request IDs, for a user's bug report.
const exposed = RequestIDHeader + ", Request-Id"

// preflight reports whether r is a CORS preflight (RFC 9110's OPTIONS with
// Origin and Access-Control-Request-Method), and answers it: 204 with the
// method and headers asked for allowed, for 10 minutes, to an allowed
// origin; 403 with the API's error JSON to any other.
func (c *cors) preflight(g *Gateway, w http.ResponseWriter, r *http.Request, ex *exchange) bool {
	origin := r.Header.Get("Origin")
	if r.Method != http.MethodOptions || origin == "" || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	ex.rec.Kind = KindPreflight
	h := w.Header()
	h.Set(RequestIDHeader, ex.rec.ID)
	h.Set("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
	if !c.allowed(origin) {
		g.apiError(w, ex, http.StatusForbidden, frame.CodePermission, "origin "+strconv.Quote(origin)+" is not allowed")
		ex.rec.Kind = KindPreflight
		return true
	}
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	// Echoed: the API's headers (x-api-key, anthropic-version,
	// anthropic-beta, the SDKs' x-stainless-*) are what the gateway
	// forwards anyway; listing them would only break the next one.
	if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" {
		h.Set("Access-Control-Allow-Headers", rh)
	}
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// respond sets the CORS headers of a response to a page of origin, replacing any
// the upstream sent: the gateway's policy is the one its clients see.
func (c *cors) respond(h http.Header, origin string) {
	for k := range h {
		if strings.HasPrefix(k, "Access-Control-") {
			delete(h, k)
		}
	}
	h.Add("Vary", "Origin")
	if c.allowed(origin) {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", c.exposed)
	}
}
