package anthhttp

import "github.com/layer0/anth/bridge"

// The names of this package's insides that its external tests use. Those
// tests are package anthhttp_test because they read responses with
// anthclient, which imports this package: a test in package anthhttp
// could not import it. net/http's tests, which need net/http/httptest,
// reach its insides the same way.

// CredentialsOf is credentialsOf: the owner a Gateway files a tail under.
var CredentialsOf = credentialsOf

// MaxGather is maxGather: the most the relay gathers into one write.
const MaxGather = maxGather

// APIFor is apiFor: the API a Gateway serves on a path.
func (g *Gateway) APIFor(path string) (bridge.API, bool) { return g.apiFor(path) }

// Wire is wire, and WireANTH and WireStream its values for an ANTH and an
// event-stream client: the form a tail is kept in.
type Wire = wire

const (
	WireANTH   = wireANTH
	WireStream = wireStream
)
