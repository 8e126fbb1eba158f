package evalset

import (
	"math"
	"sort"
	"strings"
	"testing"
)

func TestNDCG(t *testing.T) {
	j := map[string]int{"a": 3, "b": 1}
	if v := NDCG([]string{"a", "b", "c"}, j, 10); math.Abs(v-1) > 1e-12 {
		t.Errorf("ideal ranking %v", v)
	}
	want := (1 + 3/math.Log2(3)) / (3 + 1/math.Log2(3))
	if v := NDCG([]string{"b", "a"}, j, 10); math.Abs(v-want) > 1e-12 {
		t.Errorf("swapped %v, want %v", v, want)
	}
	if v := NDCG([]string{"x", "y"}, j, 10); v != 0 {
		t.Errorf("no relevant %v", v)
	}
	if v := NDCG([]string{"x", "a"}, j, 1); v != 0 {
		t.Errorf("cut-off ignored: %v", v)
	}
}

func TestParseQrels(t *testing.T) {
	q := map[string]map[string]int{}
	in := "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1 d2 0\n# comment\nq2 0 d9 1\n"
	if err := ParseQrels(strings.NewReader(in), q); err != nil {
		t.Fatal(err)
	}
	if q["q1"]["d1"] != 2 || len(q["q1"]) != 1 || q["q2"]["d9"] != 1 {
		t.Errorf("%v", q)
	}
	if err := ParseQrels(strings.NewReader("q1 d1 x\nq1 d2 two\n"), q); err == nil {
		t.Error("bad grade accepted")
	}
	if err := ParseQrels(strings.NewReader("q1 d1\n"), q); err == nil {
		t.Error("short line accepted")
	}
}

func TestBM25(t *testing.T) {
	x := NewBM25()
	x.Add("a", []string{"red", "apple", "pie"})
	x.Add("b", []string{"green", "apple"})
	x.Add("c", []string{"blue", "sky"})
	got := x.Search([]string{"red", "apple"}, 10)
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("%v", got)
	}
	if got := x.Search([]string{"nothing"}, 10); len(got) != 0 {
		t.Errorf("%v", got)
	}
}

// TestHybridBeatsBM25 is the quality bar: on the project's evaluation set,
// fusing BM25 with the offline embedder's vectors must rank better than
// BM25 alone (nDCG@10).
func TestHybridBeatsBM25(t *testing.T) {
	c, err := Load("testdata", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) < 60 || len(c.Queries) < 25 {
		t.Fatalf("evaluation set too small: %d docs, %d queries", len(c.Docs), len(c.Queries))
	}
	r := Evaluate(c)
	for _, m := range Methods {
		t.Logf("%-13s nDCG@10 %.4f", m, r.NDCG[m])
	}
	if r.NDCG[MethodFused] <= r.NDCG[MethodBM25] {
		t.Errorf("fused %.4f does not beat BM25 %.4f", r.NDCG[MethodFused], r.NDCG[MethodBM25])
	}
	if testing.Verbose() {
		ids := make([]string, 0, len(c.Queries))
		for _, q := range c.Queries {
			ids = append(ids, q.ID)
		}
		sort.Strings(ids)
		for _, id := range ids {
			t.Logf("%s bm25 %.2f vec %.2f fused %.2f rerank %.2f", id, r.PerQuery[MethodBM25][id], r.PerQuery[MethodVector][id], r.PerQuery[MethodFused][id], r.PerQuery[MethodRerank][id])
		}
	}
}

// BenchmarkQuality reports nDCG@10 of each method on the project's set
// (go test -run '^$' -bench Quality ./internal/knowledge/evalset).
func BenchmarkQuality(b *testing.B) {
	c, err := Load("testdata", "")
	if err != nil {
		b.Fatal(err)
	}
	var r Report
	for i := 0; i < b.N; i++ {
		r = Evaluate(c)
	}
	for _, m := range Methods {
		b.ReportMetric(r.NDCG[m], "nDCG@10-"+strings.ReplaceAll(m, "+", "-"))
	}
}

func FuzzParseQrels(f *testing.F) {
	f.Add("query-id\tcorpus-id\tscore\nq1\td1\t2\n")
	f.Add("q1 0 d1 1\nq2 0 d2 0\n")
	f.Add("# c\n\nq d x\n")
	f.Fuzz(func(t *testing.T, in string) {
		m := map[string]map[string]int{}
		if err := ParseQrels(strings.NewReader(in), m); err != nil {
			return
		}
		for _, ds := range m {
			for _, g := range ds {
				if g <= 0 {
					t.Fatalf("non-positive grade kept: %v", m)
				}
			}
		}
	})
}

// TestOfflineRerankerImprovesFirstStages checks that the offline reranker
// genuinely reorders for the better: reranking the top 20 of BM25 and of
// the vector search raises nDCG@10 on the project's set.
func TestOfflineRerankerImprovesFirstStages(t *testing.T) {
	c, err := Load("testdata", "")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSearcher(c.Docs)
	for _, stage := range []struct {
		name string
		run  func(string, int) []string
	}{{"bm25", s.BM25}, {"vector", s.Vector}} {
		var before, after float64
		for _, q := range c.Queries {
			ids := stage.run(q.Text, 20)
			before += NDCG(ids, c.Qrels[q.ID], 10)
			s.Rerank(q.Text, ids)
			after += NDCG(ids, c.Qrels[q.ID], 10)
		}
		n := float64(len(c.Queries))
		t.Logf("%s: nDCG@10 %.4f, reranked %.4f", stage.name, before/n, after/n)
		if after <= before {
			t.Errorf("%s: reranking did not improve nDCG@10 (%.4f → %.4f)", stage.name, before/n, after/n)
		}
	}
}
