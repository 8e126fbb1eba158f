package offline

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"sort"
	"testing"
)

type retrievalPair struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Passage  string `json:"passage"`
}

func loadRetrieval(t testing.TB) []retrievalPair {
	f, err := os.Open("testdata/retrieval.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []retrievalPair
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p retrievalPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("testdata line %d: %v", len(out)+1, err)
		}
		out = append(out, p)
	}
	return out
}

// TestRetrievalTop3 is the embedder's quality bar: for each question, the
// passage written for it must rank in the top 3 of all passages for at
// least 80% of questions, at every supported size.
func TestRetrievalTop3(t *testing.T) {
	pairs := loadRetrieval(t)
	if len(pairs) < 50 {
		t.Fatalf("retrieval set has %d pairs, need at least 50", len(pairs))
	}
	for _, dim := range []int{256, 384, 1024} {
		e := NewEmbedder(dim)
		passages := make([][]float32, len(pairs))
		for i, p := range pairs {
			passages[i] = e.Embed(p.Passage)
		}
		hits, top1 := 0, 0
		var misses []string
		for i, p := range pairs {
			q := e.Embed(p.Question)
			type scored struct {
				i int
				s float32
			}
			ranked := make([]scored, len(passages))
			for j, v := range passages {
				ranked[j] = scored{j, Cosine(q, v)}
			}
			sort.Slice(ranked, func(a, b int) bool { return ranked[a].s > ranked[b].s })
			for k := 0; k < 3; k++ {
				if ranked[k].i == i {
					hits++
					if k == 0 {
						top1++
					}
					break
				}
			}
			if ranked[0].i != i && ranked[1].i != i && ranked[2].i != i {
				misses = append(misses, p.ID)
			}
		}
		rate := float64(hits) / float64(len(pairs))
		t.Logf("dim %d: top-3 %.1f%%, top-1 %.1f%%, misses %v", dim, rate*100, 100*float64(top1)/float64(len(pairs)), misses)
		if rate < 0.8 {
			t.Errorf("dim %d: top-3 recall %.2f < 0.80", dim, rate)
		}
	}
}

func TestEmbedderProperties(t *testing.T) {
	e := NewEmbedder(384)
	a := e.Embed("The refund policy allows returns within 30 days.")
	b := e.Embed("The refund policy allows returns within 30 days.")
	var norm float64
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("not deterministic")
		}
		norm += float64(a[i]) * float64(a[i])
	}
	if math.Abs(norm-1) > 1e-5 {
		t.Errorf("norm² = %v, want 1", norm)
	}
	related := Cosine(a, e.Embed("What is the policy for refunds?"))
	unrelated := Cosine(a, e.Embed("Volcanoes erupt molten lava from magma chambers."))
	if related <= unrelated || related < 0.2 {
		t.Errorf("related %.3f vs unrelated %.3f", related, unrelated)
	}
	// Case and plural insensitivity.
	if c := Cosine(e.Embed("Refunds"), e.Embed("refund")); c < 0.7 {
		t.Errorf("plural/case similarity %.3f", c)
	}
	// Empty and symbol-only input give the zero vector, not NaN.
	for _, s := range []string{"", "   ", "!!! ??? ---", "the of and"} {
		for _, x := range e.Embed(s) {
			if x != 0 {
				t.Fatalf("%q gave a non-zero vector", s)
			}
		}
	}
	// Non-ASCII text is embedded, case-folded.
	if c := Cosine(e.Embed("Überprüfung der Größe"), e.Embed("überprüfung der größe")); c < 0.999 {
		t.Errorf("unicode case folding %.4f", c)
	}
	if NewEmbedder(0).Dim() != DefaultDimensions || NewEmbedder(1).Dim() != MinDimensions || NewEmbedder(1<<20).Dim() != MaxDimensions {
		t.Error("dimension clamping")
	}
}

func TestEmbedIntoDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	e := NewEmbedder(384)
	dst := make([]float32, 384)
	text := "Customers may request a full refund within 30 days of purchase, processed in five business days."
	e.EmbedInto(dst, text)
	if n := testing.AllocsPerRun(100, func() { e.EmbedInto(dst, text) }); n > 0 {
		t.Errorf("EmbedInto allocates %.1f times per call", n)
	}
}
