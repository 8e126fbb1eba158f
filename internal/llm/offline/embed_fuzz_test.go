package offline

import (
	"math"
	"testing"
)

// FuzzEmbed checks the embedder's invariants on arbitrary text: unit or
// zero vectors, never NaN, the same vector twice, and terms that are
// never empty.
func FuzzEmbed(f *testing.F) {
	for _, s := range []string{"", "Refunds within 30 days", "log in, set up; money back!", "ÜBER größe ßßß", "eded inging ee", "\xff\xfe bad utf8", "a b c the of"} {
		f.Add(s)
	}
	e := NewEmbedder(64)
	f.Fuzz(func(t *testing.T, s string) {
		v := e.Embed(s)
		var norm float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("non-finite component for %q", s)
			}
			norm += float64(x) * float64(x)
		}
		if norm != 0 && math.Abs(norm-1) > 1e-4 {
			t.Fatalf("norm² %v for %q", norm, s)
		}
		w := e.Embed(s)
		for i := range v {
			if v[i] != w[i] {
				t.Fatalf("not deterministic for %q", s)
			}
		}
		for _, term := range Terms(s) {
			if term == "" {
				t.Fatalf("empty term from %q", s)
			}
		}
	})
}
