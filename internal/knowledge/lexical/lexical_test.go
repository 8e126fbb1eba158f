package lexical

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTermsAndQuery(t *testing.T) {
	if got := Terms("Libraries' CATALOGUING, catalogued!"); !slices.Equal(got, []string{"librari", "catalogu", "catalogu"}) {
		t.Errorf("terms %q", got)
	}
	// Stopwords leave a query, not the index.
	if got := Terms("What is the use"); len(got) != 4 {
		t.Errorf("index terms %q", got)
	}
	q := ParseQuery("What must be done about the indexing of indexes?")
	if len(q) != 2 || q[0].Term != "done" || q[1].Term != "index" || q[1].Weight != 2 {
		t.Errorf("query %+v", q)
	}
	// A query of stopwords only keeps them.
	q = ParseQuery("What is this? What?")
	if len(q) != 3 || q[0].Term != "what" || q[0].Weight != 2 {
		t.Errorf("stopword query %+v", q)
	}
	// Negations are not stopwords.
	if q := ParseQuery("to be or not to be"); len(q) != 1 || q[0].Term != "not" {
		t.Errorf("negation %+v", q)
	}
	if q := ParseQuery("  ,;  "); len(q) != 0 {
		t.Errorf("empty query %+v", q)
	}
	// Chinese and Japanese: overlapping character pairs; numbers kept.
	if got := Terms("知识库 search 2024"); !slices.Equal(got, []string{"知识", "识库", "search", "2024"}) {
		t.Errorf("cjk %q", got)
	}
	if got := Terms("字"); !slices.Equal(got, []string{"字"}) {
		t.Errorf("lone cjk %q", got)
	}
	// Overlong runs are not terms; accents are letters.
	if got := Terms(strings.Repeat("x", MaxTermBytes+1) + " café"); !slices.Equal(got, []string{"café"}) {
		t.Errorf("long/accents %q", got)
	}
}

func build(docs ...Doc) *Index {
	x := New()
	x.Add(docs...)
	return x
}

func search(x *Index, q string, k int) []Hit {
	terms := ParseQuery(q)
	var st Stats
	x.AddStats(&st, terms)
	return x.Search(NewPlan(terms, st, DefaultParams), nil, k, nil)
}

func keys(h []Hit) []int64 {
	out := make([]int64, len(h))
	for i, x := range h {
		out[i] = x.Key
	}
	return out
}

func TestBM25F(t *testing.T) {
	x := build(
		Doc{Key: 1, Group: "a", Body: "the cat sat on the mat", Heading: "Pets"},
		Doc{Key: 2, Group: "b", Body: "a dog and a cat and another cat", Heading: "Animals"},
		Doc{Key: 3, Group: "c", Body: "nothing to see here", Heading: "Cats of the world"},
		Doc{Key: 4, Group: "c", Body: "dogs bark", Heading: "Cats of the world"},
	)
	got := search(x, "cats", 10)
	if len(got) != 4 {
		t.Fatalf("hits %+v", got)
	}
	// Twice in the body beats once; the heading counts for every passage
	// of its content.
	if k := keys(got); slices.Index(k, 2) > slices.Index(k, 1) {
		t.Errorf("order %v", k)
	}
	if !slices.Contains(keys(got), 3) || !slices.Contains(keys(got), 4) {
		t.Errorf("heading not searched: %v", keys(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Errorf("not best first: %+v", got)
		}
	}
	// A rarer term weighs more: "mat" (1 passage) beats "dog" (2).
	if got := search(x, "mat dog", 10); got[0].Key != 1 {
		t.Errorf("idf: %+v", got)
	}
	// k cuts; groups filter; scores of given keys are reported.
	if got := search(x, "cat", 1); len(got) != 1 {
		t.Errorf("k: %+v", got)
	}
	terms := ParseQuery("cat")
	var st Stats
	x.AddStats(&st, terms)
	pl := NewPlan(terms, st, DefaultParams)
	if got := x.Search(pl, map[string]bool{"c": true}, 10, nil); !slices.Equal(keys(got), []int64{3, 4}) && !slices.Equal(keys(got), []int64{4, 3}) {
		t.Errorf("groups: %+v", got)
	}
	scores := map[int64]float64{1: -1, 4: -1, 99: -1}
	x.Search(pl, nil, 0, scores)
	if scores[1] <= 0 || scores[4] <= 0 || scores[99] != -1 {
		t.Errorf("scores %v", scores)
	}
	if pl.MaxScore() <= 0 || scores[1] > pl.MaxScore() {
		t.Errorf("max score %v", pl.MaxScore())
	}
	if got := search(x, "unicorn", 10); len(got) != 0 {
		t.Errorf("no match: %+v", got)
	}
}

func TestScoresAreTextbookBM25(t *testing.T) {
	// One field: the score is BM25's with k1 = 1.2, b = 0.75.
	x := build(Doc{Key: 1, Body: "apple apple pie"}, Doc{Key: 2, Body: "pie crust"}, Doc{Key: 3, Body: "banana"})
	got := search(x, "apple", 10)
	idf := math.Log(1 + (3-1+0.5)/(1+0.5))
	avg := 6.0 / 3
	tf := 2 / (1 - 0.75 + 0.75*3/avg)
	want := idf * tf * 2.2 / (1.2 + tf)
	if len(got) != 1 || math.Abs(got[0].Score-want) > 1e-9 {
		t.Errorf("got %+v, want %v", got, want)
	}
}

func TestDeleteAndCompact(t *testing.T) {
	x := New()
	var docs []Doc
	for i := range 300 {
		body := "common words here"
		if i%3 == 0 {
			body += " rare"
		}
		docs = append(docs, Doc{Key: int64(i + 1), Group: "g", Body: body})
	}
	x.Add(docs...)
	x.Add(Doc{Key: 1, Body: "ignored: the key is taken"})
	if x.Len() != 300 {
		t.Fatalf("len %d", x.Len())
	}
	var del []int64
	for i := 1; i <= 200; i++ {
		del = append(del, int64(i))
	}
	if n := x.Delete(append(del, 9999)...); n != 200 {
		t.Fatalf("deleted %d", n)
	}
	if x.Len() != 100 || x.Has(5) || !x.Has(250) {
		t.Fatalf("after delete: len %d", x.Len())
	}
	got := search(x, "rare", 1000)
	for _, h := range got {
		if h.Key <= 200 || (h.Key-1)%3 != 0 {
			t.Fatalf("deleted or wrong passage returned: %+v", h)
		}
	}
	if len(got) != 33 {
		t.Errorf("rare hits %d", len(got))
	}
	// Compaction ran (deleted passages outnumbered the live): statistics
	// are exact again.
	var st Stats
	x.AddStats(&st, ParseQuery("rare common"))
	if st.Docs != 100 || st.DF["rare"] != 33 || st.DF["common"] != 100 {
		t.Errorf("stats %+v", st)
	}
	// New passages after compaction are found with the old.
	x.Add(Doc{Key: 1000, Group: "h", Body: "rare rare rare"})
	if got := search(x, "rare", 1); got[0].Key != 1000 {
		t.Errorf("after compaction: %+v", got)
	}
	n := 0
	x.Keys(func(int64) { n++ })
	if n != 101 {
		t.Errorf("keys %d", n)
	}
}

func TestRM3(t *testing.T) {
	q := ParseQuery("retrieval")
	fb := []FeedbackDoc{
		{Score: 3, Terms: Terms("retrieval of indexed documents by indexing terms, the index 2024")},
		{Score: 1, Terms: Terms("document retrieval evaluation")},
	}
	got := RM3{Docs: 10, Terms: 3, OriginalWeight: 0.5}.Expand(q, fb)
	// "retriev" is among the 3 heaviest terms: it is not added twice.
	if len(got) != 3 || got[0].Term != "retriev" || got[1].Term != "index" {
		t.Fatalf("expanded %+v", got)
	}
	var sum float64
	for _, t := range got {
		sum += t.Weight
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("weights sum to %v", sum)
	}
	// The original term is also the most frequent expansion: it gains.
	if got[0].Weight <= 0.5 {
		t.Errorf("original weight %v", got[0].Weight)
	}
	for _, x := range got[1:] {
		if x.Term == "the" || x.Term == "2024" || x.Term == "of" {
			t.Errorf("stopword or number added: %+v", got)
		}
	}
	if got := DefaultRM3.Expand(q, nil); len(got) != 1 || got[0].Weight != 1 {
		t.Errorf("no feedback: %+v", got)
	}
}

func TestMerge(t *testing.T) {
	got := Merge(2, []Hit{{Key: 1, Score: 3}, {Key: 2, Score: 1}}, []Hit{{Key: 3, Score: 2}})
	if !slices.Equal(keys(got), []int64{1, 3}) {
		t.Errorf("%+v", got)
	}
}

func FuzzAnalyze(f *testing.F) {
	f.Add("Hello, wörld! 知识库 ２０２４ don't")
	f.Add("\xff\xfe invalid utf8 \x00")
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range Terms(s) {
			if term == "" || len(term) > 4*MaxTermBytes || !utf8.ValidString(term) && utf8.ValidString(s) {
				t.Fatalf("bad term %q from %q", term, s)
			}
		}
		q := ParseQuery(s)
		if len(q) > maxQueryTerms {
			t.Fatalf("%d query terms", len(q))
		}
		x := New()
		x.Add(Doc{Key: 1, Body: s, Heading: s})
		var st Stats
		x.AddStats(&st, q)
		for _, h := range x.Search(NewPlan(q, st, DefaultParams), nil, 5, nil) {
			if math.IsNaN(h.Score) || h.Score <= 0 {
				t.Fatalf("score %v", h.Score)
			}
		}
	})
}

// Searches run while passages are added and deleted (run with -race).
func TestConcurrentUse(t *testing.T) {
	x := New()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 2000 {
			x.Add(Doc{Key: int64(i), Group: "g", Body: "alpha beta gamma " + strings.Repeat("delta ", i%5)})
			if i%3 == 0 {
				x.Delete(int64(i / 2))
			}
		}
	}()
	for {
		select {
		case <-done:
			if got := search(x, "delta", 5); len(got) != 5 {
				t.Fatalf("%+v", got)
			}
			return
		default:
			search(x, "alpha delta", 10)
		}
	}
}
