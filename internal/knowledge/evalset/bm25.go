package evalset

import "math"

// BM25 is an in-memory Okapi BM25 index (k1 = 0.9, b = 0.4, the defaults
// of Anserini's BEIR baselines), the lexical baseline the hybrid search
// must beat. The knowledge search ranks with BM25F (internal/knowledge/
// lexical); this one makes the evaluation independent of it.
type BM25 struct {
	K1, B    float64
	ids      []string
	lengths  []int
	postings map[string][]posting
	total    int
}

type posting struct {
	doc int32
	tf  int32
}

// NewBM25 returns an empty index.
func NewBM25() *BM25 { return &BM25{K1: 0.9, B: 0.4, postings: map[string][]posting{}} }

// Add indexes a document's terms.
func (x *BM25) Add(id string, terms []string) {
	doc := int32(len(x.ids))
	x.ids = append(x.ids, id)
	x.lengths = append(x.lengths, len(terms))
	x.total += len(terms)
	tf := map[string]int32{}
	for _, t := range terms {
		tf[t]++
	}
	for t, n := range tf {
		x.postings[t] = append(x.postings[t], posting{doc, n})
	}
}

// Search returns up to n document ids by BM25 score, best first; documents
// sharing no term with the query are not returned.
func (x *BM25) Search(terms []string, n int) []string {
	if len(x.ids) == 0 {
		return nil
	}
	avg := float64(x.total) / float64(len(x.ids))
	N := float64(len(x.ids))
	scores := map[int32]float64{}
	seen := map[string]bool{}
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := x.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (N-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := x.K1 * (1 - x.B + x.B*float64(x.lengths[p.doc])/avg)
			scores[p.doc] += idf * tf * (x.K1 + 1) / (tf + norm)
		}
	}
	return topN(scores, x.ids, n)
}

func topN(scores map[int32]float64, ids []string, n int) []string {
	type sd struct {
		doc int32
		s   float64
	}
	all := make([]sd, 0, len(scores))
	for d, s := range scores {
		all = append(all, sd{d, s})
	}
	// Ties broken by insertion order for determinism.
	sortFunc(all, func(a, b sd) bool {
		if a.s != b.s {
			return a.s > b.s
		}
		return a.doc < b.doc
	})
	if len(all) > n {
		all = all[:n]
	}
	out := make([]string, len(all))
	for i, x := range all {
		out[i] = ids[x.doc]
	}
	return out
}
