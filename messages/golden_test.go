package messages

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/layer0/anth/internal/testdata"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from this package's output")

// TestGolden pins the bridge's output for every recording in
// testdata/golden: NAME.anth is what a Decoder makes of the SSE, NAME.sse
// what an Encoder makes of that ANTH. Other implementations (the
// JavaScript package) check their output against the same files, byte for
// byte. go test ./sse -run TestGolden -update rewrites them.
func TestGolden(t *testing.T) {
	dir := testdata.Path("golden")
	for name, in := range testdata.SSEAll(t) {
		base := strings.TrimSuffix(strings.TrimSuffix(name, ".sse"), ".txt")
		anth := toANTH(t, in, DecoderOptions{})
		sse, err := toSSEBytes(anth, len(anth), EncoderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for ext, got := range map[string][]byte{".anth": anth, ".sse": sse} {
			testdata.Golden(t, filepath.Join(dir, base+ext), got, *update, "go test ./messages -run TestGolden -update")
		}
	}
}
