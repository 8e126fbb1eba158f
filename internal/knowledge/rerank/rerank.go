// Package rerank owns second-stage rerankers for retrieval: given a query
// and the candidate chunks a first-stage search found, score each chunk so
// the caller can reorder them. Offline is built in and deterministic; HTTP
// calls an OpenAI-compatible-style or Cohere-style rerank endpoint.
package rerank

import (
	"context"
	"math"

	"github.com/agentry/agentry/internal/llm/offline"
)

// Reranker scores docs against query; the result has one score per doc,
// in the order of docs, higher meaning more relevant.
type Reranker interface {
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
}

// Offline returns the built-in reranker. It needs no model and no
// network: it combines, per document,
//   - weighted coverage: the share of the query's terms the document
//     contains, each term weighted by its rarity among the candidates
//     (a term every candidate has does not separate them);
//   - proximity: how tightly the matched terms sit together (the shortest
//     span of the document holding all of them), since a passage that
//     answers a question usually names its terms close together;
//   - similarity of the offline embeddings, which credits inflections and
//     shared word pieces that exact term matching misses;
//   - a saturating term-frequency component, so a passage that dwells on
//     the query's subject beats one that mentions it in passing.
//
// Scores lie in [0, 1] and depend only on the query and the candidates.
func Offline() Reranker { return offlineReranker{emb: offline.NewEmbedder(offline.DefaultDimensions)} }

type offlineReranker struct{ emb *offline.Embedder }

// Component weights. Coverage dominates because the first stage already
// ordered by overall relevance; the reranker's job is mostly to promote
// the candidates that answer all of the question, near each other.
const (
	wCoverage   = 0.40
	wProximity  = 0.20
	wSimilarity = 0.25
	wFrequency  = 0.15
)

// maxTermsPerDoc bounds the work per document; chunks are far shorter.
const maxTermsPerDoc = 20000

// maxQueryTerms bounds the distinct query terms considered; queries are
// questions, not documents.
const maxQueryTerms = 64

func (r offlineReranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	scores := make([]float64, len(docs))
	qTerms := unique(offline.Terms(query))
	if len(qTerms) > maxQueryTerms {
		qTerms = qTerms[:maxQueryTerms]
	}
	if len(docs) == 0 {
		return scores, nil
	}
	qv := r.emb.Embed(query)
	termsOf := make([][]string, len(docs))
	df := make(map[string]int, len(qTerms))
	for i, d := range docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ts := offline.Terms(d)
		if len(ts) > maxTermsPerDoc {
			ts = ts[:maxTermsPerDoc]
		}
		termsOf[i] = ts
		seen := map[string]bool{}
		for _, t := range ts {
			if !seen[t] && contains(qTerms, t) {
				seen[t] = true
				df[t]++
			}
		}
	}
	// Rarity among the candidates, smoothed so a term in all of them
	// still counts a little (BM25's idf with +1 inside the log).
	n := float64(len(docs))
	idf := make(map[string]float64, len(qTerms))
	var idfSum float64
	for _, t := range qTerms {
		w := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
		idf[t] = w
		idfSum += w
	}
	dv := make([]float32, r.emb.Dim())
	for i, d := range docs {
		ts := termsOf[i]
		var cov, freq float64
		tf := map[string]int{}
		for _, t := range ts {
			if _, ok := idf[t]; ok {
				tf[t]++
			}
		}
		for t, c := range tf {
			cov += idf[t]
			// k1 = 1.2 saturation, no length normalisation: chunks are
			// of similar size by construction.
			freq += idf[t] * float64(c) * 2.2 / (float64(c) + 1.2)
		}
		if idfSum > 0 {
			cov /= idfSum
			freq /= 2.2 * idfSum
		}
		prox := proximity(ts, tf, len(qTerms))
		r.emb.EmbedInto(dv, d)
		sim := float64(offline.Cosine(qv, dv))
		if sim < 0 {
			sim = 0
		}
		scores[i] = wCoverage*cov + wProximity*prox + wSimilarity*sim + wFrequency*freq
	}
	return scores, nil
}

// proximity is (matched distinct terms / query terms) scaled by how short
// the shortest window holding all matched terms is: 1 when they are
// adjacent, falling towards 0 as they spread apart. A single matched
// term has no spread and earns only its share.
func proximity(ts []string, tf map[string]int, nQuery int) float64 {
	want := len(tf)
	if want == 0 || nQuery == 0 {
		return 0
	}
	share := float64(want) / float64(nQuery)
	if want == 1 {
		return share * 0.5
	}
	// Sliding window over positions of matched terms.
	have := map[string]int{}
	best := len(ts) + 1
	left, distinct := 0, 0
	for right, t := range ts {
		if _, ok := tf[t]; !ok {
			continue
		}
		if have[t] == 0 {
			distinct++
		}
		have[t]++
		for distinct == want {
			if span := right - left + 1; span < best {
				best = span
			}
			lt := ts[left]
			if _, ok := tf[lt]; ok {
				have[lt]--
				if have[lt] == 0 {
					distinct--
				}
			}
			left++
		}
	}
	tight := float64(want) / float64(best)
	return share * (0.5 + 0.5*tight)
}

func unique(ts []string) []string {
	var out []string
	for _, t := range ts {
		if !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func contains(ts []string, t string) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}
