package chat

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/layer0/anth/internal/testdata"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/chat from this package's output")

// obfuscationValue matches an obfuscation string as the Encoder writes it:
// letters and digits, fresh on every run (SPEC.md §7b.4).
var obfuscationValue = regexp.MustCompile(`"obfuscation":"[A-Za-z0-9]*"`)

// sameLength replaces every obfuscation string by as many x's, so that
// outputs compare apart from what is random in them.
func sameLength(b []byte) []byte {
	return obfuscationValue.ReplaceAllFunc(b, func(m []byte) []byte {
		n := len(m) - len(`"obfuscation":""`)
		return []byte(`"obfuscation":"` + strings.Repeat("x", n) + `"`)
	})
}

// TestGolden pins the bridge's output for every stream of testdata/chat:
// testdata/golden/chat/NAME.anth is what a Decoder makes of it, NAME.sse
// what an Encoder makes of that ANTH, obfuscation strings compared by
// length. The JavaScript package checks its ChatEncoder against NAME.sse
// and serves NAME.anth to the openai SDK. go test ./chat -run TestGolden
// -update rewrites them; anthhttp's TestCodedGolden pins NAME.anthz.
func TestGolden(t *testing.T) {
	dir := testdata.Path("golden", "chat")
	for name, in := range testdata.ChatAll(t) {
		base := strings.TrimSuffix(name, ".sse")
		anth := toANTH(t, in, DecoderOptions{})
		sse := toSSEBytes(t, anth, EncoderOptions{})
		testdata.Golden(t, filepath.Join(dir, base+".anth"), anth, *update, "go test ./chat -run TestGolden -update")
		if *update {
			testdata.Golden(t, filepath.Join(dir, base+".sse"), sse, true, "")
			continue
		}
		want, err := os.ReadFile(filepath.Join(dir, base+".sse"))
		if err != nil {
			t.Fatalf("%v (go test ./chat -run TestGolden -update writes it)", err)
		}
		if string(sameLength(sse)) != string(sameLength(want)) {
			t.Errorf("%s.sse differs from this package's output, obfuscation strings aside (go test ./chat -run TestGolden -update rewrites it)", base)
		}
	}
}
