package definition

import (
	"strings"
	"testing"
)

// FuzzSecretRef: a reference is only ever a whole {{secrets.NAME}} with a
// valid name, and what it yields reads back as itself.
func FuzzSecretRef(f *testing.F) {
	for _, s := range []string{"{{secrets.A}}", "{{ secrets._x1 }}", "{{secrets.a}}{{secrets.b}}", "{{secrets.}}", "{{input}}", "{{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, ok := SecretRef(s)
		if !ok {
			return
		}
		if !ValidSecretName(name) || strings.Contains(name, "}") {
			t.Fatalf("SecretRef(%q) = %q", s, name)
		}
		if again, ok := SecretRef("{{secrets." + name + "}}"); !ok || again != name {
			t.Fatalf("round trip of %q: %q %v", name, again, ok)
		}
	})
}
