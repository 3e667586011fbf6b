package anthhttp

import (
	"bytes"
	"flag"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/layer0/anth/bridge"
	"github.com/layer0/anth/chat"
	"github.com/layer0/anth/deflate"
	"github.com/layer0/anth/internal/testdata"
	"github.com/layer0/anth/messages"
)

var updateCoded = flag.Bool("update", false, "rewrite testdata/golden/*.anthz from Proxy's output")

// TestCodedGolden pins what Proxy sends a client that asks for ANTH in
// anth-deflate, for every recording: testdata/golden/NAME.anthz is the
// body as the client receives it (DICTID, then one record per flush, an
// event a flush: the upstream gives an event a Read). The
// JavaScript package's tests read these files as Go-coded bodies. go test
// ./anthhttp -run TestCodedGolden -update rewrites them.
func TestCodedGolden(t *testing.T) {
	codedGolden(t, testdata.Path("golden"), testdata.SSEAll(t), messages.API{})
	codedGolden(t, testdata.Path("golden", "chat"), testdata.ChatAll(t), chat.API{})
}

// codedGolden checks the coded body Proxy sends for each stream of recs,
// through api, against dir/NAME.anthz.
func codedGolden(t *testing.T, dir string, recs map[string][]byte, api bridge.API) {
	for name, in := range recs {
		base := strings.TrimSuffix(strings.TrimSuffix(name, ".sse"), ".txt")
		r := httptest.NewRequest("POST", api.Path(), nil)
		r.Header.Set("Accept", "application/x-anthropic-binary")
		r.Header.Set("Accept-Encoding", "anth-deflate")
		w := httptest.NewRecorder()
		if err := Proxy(w, r, &testdata.EventReader{Rest: in}, api, ProxyOptions{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ce := w.Header().Get("Content-Encoding"); ce != "anth-deflate" {
			t.Fatalf("%s: Content-Encoding %q, want anth-deflate", name, ce)
		}
		got := w.Body.Bytes()
		// The body must read back, with Go's reader, as whole ANTH.
		anth, err := io.ReadAll(deflate.NewReader(bytes.NewReader(got), api.Dictionary()))
		if err != nil || !bytes.HasPrefix(anth, []byte("ANTH")) {
			t.Fatalf("%s: the coded body reads back as %d bytes, %v", name, len(anth), err)
		}
		testdata.Golden(t, filepath.Join(dir, base+".anthz"), got, *updateCoded, "go test ./anthhttp -run TestCodedGolden -update")
	}
}
