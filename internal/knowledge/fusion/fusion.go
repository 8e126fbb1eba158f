// Package fusion owns how the results of hybrid retrieval (lexical and
// vector) become one ranking: a weighted sum of absolute scores (Weighted),
// which the knowledge search uses, and reciprocal rank fusion (RRF), which
// needs only the lists' order and the in-process evaluation still measures
// (docs/retrieval-quality.md).
package fusion

import "sort"

// DefaultK is the rank constant of Cormack, Clarke and Büttcher (2009):
// large enough that the first few ranks of each list do not dominate.
const DefaultK = 60

// Result is one fused item.
type Result struct {
	ID    string
	Score float64
}

// RRF fuses ranked id lists (best first) with reciprocal rank fusion:
// score(id) = Σ 1/(k + rank), rank counted from 1 in each list holding id.
// k < 1 means DefaultK. Ties keep the order in which ids first appear
// (earlier lists first), so the result is deterministic. An id repeated
// within one list counts at its best rank only.
func RRF(k int, lists ...[]string) []Result {
	w := make([]float64, len(lists))
	for i := range w {
		w[i] = 1
	}
	return WeightedRRF(k, w, lists...)
}

// WeightedRRF is RRF with a weight per list: score(id) = Σ w_i/(k + rank_i).
// Use it when one retriever is known to be stronger; weights[i] applies to
// lists[i], and missing weights count as 1.
func WeightedRRF(k int, weights []float64, lists ...[]string) []Result {
	if k < 1 {
		k = DefaultK
	}
	score := map[string]float64{}
	var order []string
	for li, list := range lists {
		wt := 1.0
		if li < len(weights) {
			wt = weights[li]
		}
		seen := make(map[string]bool, len(list))
		for rank, id := range list {
			if seen[id] {
				continue
			}
			seen[id] = true
			if _, ok := score[id]; !ok {
				order = append(order, id)
			}
			score[id] += wt / float64(k+rank+1)
		}
	}
	out := make([]Result, len(order))
	for i, id := range order {
		out[i] = Result{ID: id, Score: score[id]}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	return out
}

// IDs returns the ids of rs in order.
func IDs(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}
