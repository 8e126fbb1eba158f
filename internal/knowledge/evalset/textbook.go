package evalset

import "strings"

// textbookStopwords is a 50-word English stopword list, the one the
// textbook baseline drops.
var textbookStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by for if in into is it no not of on or such that the their
		then there these they this to was will with what which who whom how when where why from has have had been`) {
		m[w] = true
	}
	return m
}()

// textbookTerms are lower-cased runs of a–z and 0–9, stopwords dropped,
// no stemming.
func textbookTerms(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if !textbookStopwords[f] {
			out = append(out, f)
		}
	}
	return out
}

// Textbook is the BM25 a retrieval textbook describes, the baseline the
// knowledge search is measured against: k1 1.2, b 0.75, title and text as
// one field, textbookTerms. On CISI it scores nDCG@10 0.294 (the
// collection's README: 0.295).
type Textbook struct{ bm25 *BM25 }

// NewTextbook indexes the documents of c.
func NewTextbook(docs []Doc) *Textbook {
	b := NewBM25()
	b.K1, b.B = 1.2, 0.75
	for _, d := range docs {
		b.Add(d.ID, textbookTerms(d.Title+" "+d.Text))
	}
	return &Textbook{bm25: b}
}

// Search returns the best n document ids for query.
func (t *Textbook) Search(query string, n int) []string {
	return t.bm25.Search(textbookTerms(query), n)
}

// Recall returns recall@k of ranking: the share of the relevant documents
// found in its first k.
func Recall(ranking []string, judged map[string]int, k int) float64 {
	rel, found := 0, 0
	for _, g := range judged {
		if g > 0 {
			rel++
		}
	}
	for i, id := range ranking {
		if i >= k {
			break
		}
		if judged[id] > 0 {
			found++
		}
	}
	if rel == 0 {
		return 0
	}
	return float64(found) / float64(rel)
}
