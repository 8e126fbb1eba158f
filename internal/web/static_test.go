package web

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// The vendored htmx files are exactly the published ones (npm pack
// htmx.org@2.0.11 and htmx-ext-sse@2.2.4, dist/*.min.js). Replacing them
// is a deliberate act: update the version and the checksum here.
func TestVendoredScriptsChecksums(t *testing.T) {
	want := map[string]string{
		"static/htmx.min.js": "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717",
		"static/sse.min.js":  "98a46496de0c3605fbffdce9167ba427bdd9553184f83f149c261891a92c0136",
	}
	for name, sum := range want {
		b, err := staticFiles.ReadFile(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := sha256.Sum256(b)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, want %s", name, got, sum)
		}
	}
}
