package evalset

import (
	"context"
	"math"
	"sort"

	"github.com/agentry/agentry/internal/knowledge/fusion"
	"github.com/agentry/agentry/internal/knowledge/rerank"
	"github.com/agentry/agentry/internal/knowledge/vector"
	"github.com/agentry/agentry/internal/llm/offline"
)

// Depth is how many results each first-stage retriever contributes to
// fusion, as a search index would fetch them.
const Depth = 100

// Methods evaluated, in report order.
const (
	MethodBM25   = "bm25"
	MethodVector = "vector"
	MethodFused  = "fused"
	MethodRerank = "fused+rerank"
)

// Methods lists every method Evaluate scores.
var Methods = []string{MethodBM25, MethodVector, MethodFused, MethodRerank}

// Searcher runs the three retrievers over one corpus.
type Searcher struct {
	text map[string]string // id → title and text
	bm25 *BM25
	emb  *offline.Embedder
	vec  *vector.Index
	rr   rerank.Reranker
	// RerankDepth is how many fused results the reranker reorders.
	RerankDepth int
}

// NewSearcher indexes docs (title and text together) for BM25 and, with
// the offline embedder at its default size, for vector search.
func NewSearcher(docs []Doc) *Searcher {
	s := &Searcher{
		text:        make(map[string]string, len(docs)),
		bm25:        NewBM25(),
		emb:         offline.NewEmbedder(offline.DefaultDimensions),
		rr:          rerank.Offline(),
		RerankDepth: 20,
	}
	s.vec = vector.New(s.emb.Dim())
	for _, d := range docs {
		text := d.Title + "\n" + d.Text
		s.text[d.ID] = text
		s.bm25.Add(d.ID, offline.Terms(text))
		_ = s.vec.Add(d.ID, s.emb.Embed(text)) // sizes match by construction
	}
	return s
}

// BM25 returns the lexical ranking.
func (s *Searcher) BM25(query string, n int) []string {
	return s.bm25.Search(offline.Terms(query), n)
}

// Vector returns the ranking by offline-embedding similarity.
func (s *Searcher) Vector(query string, n int) []string {
	hits := s.vec.Search(s.emb.Embed(query), n)
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		if h.Score > 0 {
			out = append(out, h.ID)
		}
	}
	return out
}

// Fused returns the reciprocal-rank fusion of the two rankings.
func (s *Searcher) Fused(query string, n int) []string {
	ids := fusion.IDs(fusion.RRF(fusion.DefaultK, s.BM25(query, Depth), s.Vector(query, Depth)))
	if len(ids) > n {
		ids = ids[:n]
	}
	return ids
}

// Reranked reorders the top RerankDepth fused results with the offline
// reranker; the rest keep their fused order.
func (s *Searcher) Reranked(query string, n int) []string {
	ids := s.Fused(query, max(n, s.RerankDepth))
	s.Rerank(query, ids[:min(len(ids), s.RerankDepth)])
	if len(ids) > n {
		ids = ids[:n]
	}
	return ids
}

// Rerank reorders ids in place by the offline reranker's scores (stable,
// so equal scores keep the first-stage order).
func (s *Searcher) Rerank(query string, ids []string) {
	texts := make([]string, len(ids))
	for i, id := range ids {
		texts[i] = s.text[id]
	}
	scores, err := s.rr.Rerank(context.Background(), query, texts)
	if err != nil {
		return
	}
	idx := make([]int, len(ids))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	reordered := make([]string, len(ids))
	for i, j := range idx {
		reordered[i] = ids[j]
	}
	copy(ids, reordered)
}

// Run returns the ranking of query by method.
func (s *Searcher) Run(method, query string, n int) []string {
	switch method {
	case MethodBM25:
		return s.BM25(query, n)
	case MethodVector:
		return s.Vector(query, n)
	case MethodFused:
		return s.Fused(query, n)
	case MethodRerank:
		return s.Reranked(query, n)
	}
	return nil
}

// Report is the mean nDCG@10 of each method, and per query.
type Report struct {
	Queries  int
	NDCG     map[string]float64
	PerQuery map[string]map[string]float64 // method → query → nDCG@10
}

// Evaluate runs every method over c.
func Evaluate(c *Collection) Report {
	s := NewSearcher(c.Docs)
	r := Report{Queries: len(c.Queries), NDCG: map[string]float64{}, PerQuery: map[string]map[string]float64{}}
	for _, m := range Methods {
		r.PerQuery[m] = map[string]float64{}
		var sum float64
		for _, q := range c.Queries {
			v := NDCG(s.Run(m, q.Text, 10), c.Qrels[q.ID], 10)
			r.PerQuery[m][q.ID] = v
			sum += v
		}
		r.NDCG[m] = sum / math.Max(1, float64(len(c.Queries)))
	}
	return r
}
