package lexical

import (
	"container/heap"
	"math"
	"sync"
)

// Params are BM25F's constants: K1 saturates term frequency; B and HeadB
// scale length normalisation of the body and the heading; HeadWeight is
// how much an occurrence in the heading counts against one in the body.
type Params struct {
	K1, B, HeadB, HeadWeight float64
}

// DefaultParams are textbook BM25's k1 = 1.2 and b = 0.75 for the body;
// a heading occurrence counts twice a body one (titles are written to
// say what a document is about), with lighter length normalisation, since
// headings are short and their length says little. See
// docs/retrieval-quality.md for how they were checked.
var DefaultParams = Params{K1: 1.2, B: 0.75, HeadB: 0.5, HeadWeight: 2}

// Stats are the collection statistics a ranking needs: over every index a
// search covers, so that the scores of their passages are comparable.
type Stats struct {
	Docs             int
	BodyLen, HeadLen int64
	DF               map[string]int
}

// AddStats adds the index's statistics for terms to st.
func (x *Index) AddStats(st *Stats, terms []QueryTerm) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if st.DF == nil {
		st.DF = map[string]int{}
	}
	st.Docs += x.live
	st.BodyLen += x.sumBody
	st.HeadLen += x.sumHead
	for _, t := range terms {
		if id, ok := x.termOf[t.Term]; ok {
			st.DF[t.Term] += int(x.df[id])
		}
	}
}

// Plan is a query ready to score against indexes sharing st.
type Plan struct {
	terms            []string
	weights          []float64 // query weight × idf
	p                Params
	avgBody, avgHead float64
}

// IDF is BM25's inverse document frequency, in the form that stays
// positive for terms in more than half the passages (Lucene's).
func IDF(docs, df int) float64 {
	return math.Log(1 + (float64(docs)-float64(df)+0.5)/(float64(df)+0.5))
}

// NewPlan prepares q for scoring. Terms no passage holds are dropped.
func NewPlan(q []QueryTerm, st Stats, p Params) Plan {
	pl := Plan{p: p}
	if st.Docs > 0 {
		pl.avgBody = float64(st.BodyLen) / float64(st.Docs)
		pl.avgHead = float64(st.HeadLen) / float64(st.Docs)
	}
	for _, t := range q {
		df := st.DF[t.Term]
		if df == 0 || t.Weight <= 0 {
			continue
		}
		pl.terms = append(pl.terms, t.Term)
		pl.weights = append(pl.weights, t.Weight*IDF(st.Docs, df))
	}
	return pl
}

// Empty reports whether the plan can match nothing.
func (pl Plan) Empty() bool { return len(pl.terms) == 0 }

// MaxScore is the score a passage would approach with every term of the
// plan at unbounded frequency: Σ query weight × idf × (k1 + 1). Dividing
// by it puts the scores of a query on a 0 to 1 scale that means the same
// from query to query (the share of the best possible match), without
// changing their order.
func (pl Plan) MaxScore() float64 {
	var s float64
	for _, w := range pl.weights {
		s += w
	}
	return s * (pl.p.K1 + 1)
}

// Hit is a scored passage.
type Hit struct {
	Key   int64
	Group string
	Score float64
}

// scratch is a search's accumulator, reused between searches.
type scratch struct {
	acc     []float64
	touched []int32
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// Search returns the best k live passages for the plan, best first (ties
// by key), restricted to the groups allowed names when it is not nil.
// scores, when not nil, receives the score of each of its keys the index
// holds (0 for a passage that matches no term), whatever k cuts.
func (x *Index) Search(pl Plan, allowed map[string]bool, k int, scores map[int64]float64) []Hit {
	if pl.Empty() || k <= 0 && len(scores) == 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := len(x.keys)
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	if cap(sc.acc) < n {
		sc.acc = make([]float64, n)
	}
	acc := sc.acc[:n]
	touched := sc.touched[:0]
	k1, b, hb, hw := pl.p.K1, pl.p.B, pl.p.HeadB, pl.p.HeadWeight
	avgB, avgH := math.Max(pl.avgBody, 1e-9), math.Max(pl.avgHead, 1e-9)
	for i, term := range pl.terms {
		t, ok := x.termOf[term]
		if !ok {
			continue
		}
		w := pl.weights[i]
		eachPosting(x.postings[t], func(ps posting) {
			if x.dead[ps.doc] {
				return
			}
			// BM25F: field frequencies normalised by field length and
			// weighted, then saturated once.
			tf := float64(ps.tb) / (1 - b + b*float64(x.bodyLen[ps.doc])/avgB)
			if ps.th > 0 {
				tf += hw * float64(ps.th) / (1 - hb + hb*float64(x.headLen[ps.doc])/avgH)
			}
			if acc[ps.doc] == 0 {
				touched = append(touched, ps.doc)
			}
			acc[ps.doc] += w * tf * (k1 + 1) / (k1 + tf)
		})
	}
	for key := range scores {
		if doc, ok := x.byKey[key]; ok {
			scores[key] = acc[doc]
		}
	}
	var allow []bool
	if allowed != nil {
		allow = make([]bool, len(x.groups))
		for g := range allowed {
			if id, ok := x.groupOf[g]; ok {
				allow[id] = true
			}
		}
	}
	h := make(hitHeap, 0, min(k, len(touched)))
	for _, doc := range touched {
		s := acc[doc]
		acc[doc] = 0
		if allow != nil && !allow[x.group[doc]] {
			continue
		}
		if k <= 0 {
			continue
		}
		hit := Hit{Key: x.keys[doc], Group: x.groups[x.group[doc]], Score: s}
		if len(h) < k {
			heap.Push(&h, hit)
		} else if better(hit, h[0]) {
			h[0] = hit
			heap.Fix(&h, 0)
		}
	}
	sc.touched = touched
	out := make([]Hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Hit)
	}
	return out
}

func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Key < b.Key
}

// hitHeap is a min-heap by score: its root is the worst hit kept.
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Merge combines hits of several indexes (each best first) into the best
// k, best first.
func Merge(k int, lists ...[]Hit) []Hit {
	var all []Hit
	for _, l := range lists {
		all = append(all, l...)
	}
	sortHits(all)
	if len(all) > k {
		all = all[:k]
	}
	return all
}
