package request

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/layer0/anth/internal/testdata"
)

// TestRequestGolden pins the request codec's output for every request body
// in testdata/requests: golden/NAME.anth is what AppendANTH makes of
// NAME.json, golden/NAME.json what AppendJSON makes of that ANTH.
// Other implementations (the JavaScript package) check their output
// against the same files, byte for byte. go test ./request -run
// TestRequestGolden -update rewrites them.
func TestRequestGolden(t *testing.T) {
	dir := testdata.Path("requests", "golden")
	bodies := testdata.Requests(t)
	for name, body := range bodies {
		base := strings.TrimSuffix(name, ".json")
		anth, err := AppendANTH(nil, body)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := AppendJSON(nil, anth)
		if err != nil {
			t.Fatalf("%s: back to JSON: %v", name, err)
		}
		for ext, got := range map[string][]byte{".anth": anth, ".json": back} {
			testdata.Golden(t, filepath.Join(dir, base+ext), got, *update, "go test ./request -run TestRequestGolden -update")
		}
	}
	// Nothing else in the folder: a golden whose request is gone is stale.
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		base := strings.TrimSuffix(strings.TrimSuffix(f.Name(), ".anth"), ".json")
		if _, ok := bodies[base+".json"]; !ok {
			t.Errorf("%s: no request body testdata/requests/%s.json", filepath.Join(dir, f.Name()), base)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/requests/golden")
