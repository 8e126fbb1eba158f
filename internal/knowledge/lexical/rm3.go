package lexical

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// RM3 is pseudo-relevance feedback (Lavrenko and Croft's relevance model,
// interpolated with the query as in Abdul-Jaleel et al.'s RM3): the
// passages ranked first by the query are taken as relevant, the terms
// they use most are added to the query, and the query is run again.
// Docs is how many passages feed back, Terms how many terms are added,
// OriginalWeight the share of the original query in the new one.
type RM3 struct {
	Docs, Terms    int
	OriginalWeight float64
}

// DefaultRM3 are the values of Anserini's RM3 baseline (10 passages, 10
// terms, half the weight to the original query): the common reference
// point, not tuned here.
var DefaultRM3 = RM3{Docs: 10, Terms: 10, OriginalWeight: 0.5}

// FeedbackDoc is a passage fed back: its first-round score and its terms
// (as Terms returns them, heading included).
type FeedbackDoc struct {
	Score float64
	Terms []string
}

// stopStems are the stems of stopwords: never added to a query.
var stopStems = func() map[string]bool {
	m := map[string]bool{}
	for w := range stopwords {
		m[stemOf([]byte(w))] = true
	}
	return m
}()

// expandable reports whether a term may be added to a query: not a
// stopword, not a number, not a single letter.
func expandable(t string) bool {
	if stopStems[t] || utf8.RuneCountInString(t) < 2 {
		return false
	}
	for _, r := range t {
		if !unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// Expand returns q with the relevance model of fb mixed in. Each
// passage's term distribution (stopwords and numbers left out) is
// weighted by its share of the first-round scores; the Terms heaviest
// terms, normalised, take 1 − OriginalWeight of the new query, and q,
// normalised, the rest. Without feedback passages q is returned as is.
func (r RM3) Expand(q []QueryTerm, fb []FeedbackDoc) []QueryTerm {
	if len(fb) > r.Docs {
		fb = fb[:r.Docs]
	}
	var total float64
	for _, d := range fb {
		total += d.Score
	}
	if len(fb) == 0 || total <= 0 || r.Terms <= 0 {
		return q
	}
	model := map[string]float64{}
	for _, d := range fb {
		tf := map[string]int{}
		n := 0
		for _, t := range d.Terms {
			if expandable(t) {
				tf[t]++
				n++
			}
		}
		if n == 0 {
			continue
		}
		w := d.Score / total
		for t, c := range tf {
			model[t] += w * float64(c) / float64(n)
		}
	}
	type tw struct {
		t string
		w float64
	}
	ranked := make([]tw, 0, len(model))
	for t, w := range model {
		ranked = append(ranked, tw{t, w})
	}
	sort.Slice(ranked, func(i, j int) bool {
		if ranked[i].w != ranked[j].w {
			return ranked[i].w > ranked[j].w
		}
		return ranked[i].t < ranked[j].t
	})
	if len(ranked) > r.Terms {
		ranked = ranked[:r.Terms]
	}
	var sumExp, sumQ float64
	for _, x := range ranked {
		sumExp += x.w
	}
	for _, t := range q {
		sumQ += t.Weight
	}
	out := make([]QueryTerm, 0, len(q)+len(ranked))
	at := map[string]int{}
	for _, t := range q {
		w := t.Weight
		if sumQ > 0 {
			w = r.OriginalWeight * t.Weight / sumQ
		}
		at[t.Term] = len(out)
		out = append(out, QueryTerm{Term: t.Term, Weight: w})
	}
	if sumExp <= 0 {
		return out
	}
	for _, x := range ranked {
		w := (1 - r.OriginalWeight) * x.w / sumExp
		if i, ok := at[x.t]; ok {
			out[i].Weight += w
		} else {
			out = append(out, QueryTerm{Term: x.t, Weight: w})
		}
	}
	return out
}
