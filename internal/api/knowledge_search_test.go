package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/knowledge/evalset"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

type explainedSearch struct {
	Results []struct {
		Text, Title string
		Score       float64
		ContentID   string `json:"source_connection_content_version_id"`
		Explain     *struct {
			FullTextScore    *float64 `json:"fulltext_score"`
			FullTextRank     *int     `json:"fulltext_rank"`
			VectorSimilarity *float64 `json:"vector_similarity"`
			VectorRank       *int     `json:"vector_rank"`
			FusedScore       float64  `json:"fused_score"`
			FusedRank        int      `json:"fused_rank"`
			RerankScore      *float64 `json:"rerank_score"`
		}
	}
	Explain *struct {
		Settings      map[string]any
		QueryTerms    []string `json:"query_terms"`
		FeedbackTerms []string `json:"feedback_terms"`
	}
}

func explainSearch(t *testing.T, s *testserver.Server, key, kb string, body map[string]any) explainedSearch {
	t.Helper()
	r := s.Do(t, "POST", "/knowledge_bases/"+kb+"/search", key, body)
	wantStatus(t, r, http.StatusOK)
	var out explainedSearch
	r.JSON(t, &out)
	return out
}

// Knowledge search over HTTP on both databases: titles and descriptive
// metadata are searched with the passages, stopwords leave a query unless
// they are all it has, the same passage twice is answered once, results
// come in the order of their score, explain says how each was ranked, and
// the search settings extension changes how a knowledge base searches.
func TestKnowledgeSearchRanking(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		r := s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Library", "source_type": "custom_index"})
		wantStatus(t, r, http.StatusCreated)
		var src struct{ ID string }
		r.JSON(t, &src)
		put := func(text, title string, meta map[string]any) string {
			t.Helper()
			body := map[string]any{"text": text, "title": title}
			if meta != nil {
				body["metadata"] = meta
			}
			r := s.Do(t, "POST", "/sources/"+src.ID, s.Key, body)
			wantStatus(t, r, http.StatusOK)
			var up struct {
				ID string `json:"source_connection_content_version_id"`
			}
			r.JSON(t, &up)
			return up.ID
		}
		byTitle := put("Cards were filed by hand in wooden drawers, one per book.", "Cataloguing in nineteenth-century libraries", nil)
		byAuthor := put("A survey of how readers find books on open shelves.", "Browsing", map[string]any{"author": "Ranganathan", "shelf": "Zygomorphic"})
		// The same paragraph twice in one content: two equal passages.
		para := "Citation indexes link each paper to the papers that cite it, so a search can move forward in time."
		dup := put(para+"\n\n"+strings.Repeat("Filler about unrelated matters of binding and paper. ", 60)+"\n\n"+para, "Citation indexes", nil)
		stop := put("To be or not to be, that is the question the reader asks.", "Hamlet", nil)
		put("Machine translation of abstracts between languages.", "Translation", nil)
		for _, id := range []string{byTitle, byAuthor, dup, stop} {
			waitIndexed(t, s, s.Key, id, "")
		}
		r = s.Do(t, "POST", "/knowledge_bases", s.Key, map[string]any{"name": "KB", "source_ids": []string{src.ID}})
		wantStatus(t, r, http.StatusCreated)
		var kb struct{ ID string }
		r.JSON(t, &kb)

		// The title is searched: its words are not in the passage.
		res := explainSearch(t, s, s.Key, kb.ID, map[string]any{"query": "What was cataloguing like in the nineteenth century?", "explain": true})
		if len(res.Results) == 0 || res.Results[0].ContentID != byTitle {
			t.Fatalf("title not searched: %+v", res.Results)
		}
		// Stopwords were dropped; the stems of the rest were scored.
		if res.Explain == nil || strings.Join(res.Explain.QueryTerms, " ") != "catalogu like nineteenth centuri" {
			t.Errorf("query terms: %+v", res.Explain)
		}
		if res.Explain.Settings["mode"] != "full_text" || res.Explain.Settings["vector_weight"] != 0.1 || res.Explain.Settings["feedback"] != false {
			t.Errorf("default settings: %+v", res.Explain.Settings)
		}
		// Descriptive metadata (author) is searched; other keys are not.
		if res := explainSearch(t, s, s.Key, kb.ID, map[string]any{"query": "Ranganathan"}); len(res.Results) == 0 || res.Results[0].ContentID != byAuthor {
			t.Errorf("author not searched: %+v", res.Results)
		}
		if res := explainSearch(t, s, s.Key, kb.ID, map[string]any{"query": "Zygomorphic", "mode": "full_text"}); len(res.Results) != 0 {
			t.Errorf("an id-like metadata key was searched: %+v", res.Results)
		}
		// A query of stopwords only is still answered.
		if res := explainSearch(t, s, s.Key, kb.ID, map[string]any{"query": "to be or to be", "mode": "full_text"}); len(res.Results) == 0 || res.Results[0].ContentID != stop {
			t.Errorf("stopword query: %+v", res.Results)
		}
		// The same text of the same content is answered once.
		res = explainSearch(t, s, s.Key, kb.ID, map[string]any{"query": "citation indexes link papers", "top_n": 10, "explain": true, "mode": "hybrid"})
		seen := map[string]bool{}
		for _, h := range res.Results {
			if seen[h.ContentID+h.Text] {
				t.Fatalf("passage twice: %q", h.Text)
			}
			seen[h.ContentID+h.Text] = true
		}
		// Best first by the score shown; explain is complete and clean.
		for i, h := range res.Results {
			if i > 0 && h.Score > res.Results[i-1].Score {
				t.Fatalf("not in score order: %+v", res.Results)
			}
			e := h.Explain
			if e == nil || e.FusedRank != i+1 || e.FusedScore != h.Score || e.VectorSimilarity == nil || e.RerankScore != nil {
				t.Fatalf("explain of hit %d: %+v", i, e)
			}
			if (e.FullTextScore == nil) || (e.FullTextRank != nil && *e.FullTextScore <= 0) {
				t.Fatalf("full-text explain of hit %d: %+v", i, e)
			}
		}
		if res.Results[0].ContentID != dup || *res.Results[0].Explain.FullTextRank != 1 || res.Results[0].Explain.VectorRank == nil {
			t.Errorf("citation search: %+v", res.Results[0])
		}
		raw := s.Do(t, "POST", "/knowledge_bases/"+kb.ID+"/search", s.Key, map[string]any{"query": "citation"})
		if strings.Contains(string(raw.Body), "explain") {
			t.Errorf("explain without asking: %s", raw.Body)
		}

		// Search settings: defaults by embedder, then set, then reset.
		r = s.Do(t, "GET", "/knowledge_bases/"+kb.ID+"/search-settings", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var set map[string]any
		r.JSON(t, &set)
		if set["mode"] != "full_text" || set["vector_weight"] != 0.1 || set["candidate_depth"] != 30.0 || set["feedback"] != false ||
			set["basis"] != "offline_embedder" || set["reranker_model"] != nil || len(set["explicit"].([]any)) != 0 {
			t.Fatalf("settings: %s", r.Body)
		}
		r = s.Do(t, "PUT", "/knowledge_bases/"+kb.ID+"/search-settings", s.Key, map[string]any{"mode": "hybrid", "feedback": true, "candidate_depth": 50, "reranker_model": "offline"})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &set)
		if set["mode"] != "hybrid" || set["feedback"] != true || set["candidate_depth"] != 50.0 || set["reranker_model"] != "offline" ||
			set["vector_weight"] != 0.1 || len(set["explicit"].([]any)) != 4 {
			t.Fatalf("updated: %s", r.Body)
		}
		var kbBody map[string]any
		s.Do(t, "GET", "/knowledge_bases/"+kb.ID, s.Key, nil).JSON(t, &kbBody)
		if kbBody["reranker_model"] != "offline" {
			t.Errorf("the knowledge base's reranker: %v", kbBody["reranker_model"])
		}
		res = explainSearch(t, s, s.Key, kb.ID, map[string]any{"query": "citation indexes for papers", "explain": true})
		if res.Explain.Settings["mode"] != "hybrid" || len(res.Explain.FeedbackTerms) == 0 || len(res.Results) == 0 {
			t.Fatalf("settings not applied: %+v", res)
		}
		for i, h := range res.Results {
			if h.Explain.RerankScore == nil || h.Score != *h.Explain.RerankScore || h.Explain.FullTextScore == nil {
				t.Fatalf("reranked hit %d: %+v", i, h.Explain)
			}
			if i > 0 && h.Score > res.Results[i-1].Score {
				t.Fatalf("reranked results not in score order: %+v", res.Results)
			}
		}
		// Vector mode: scores are cosine similarities; no full text.
		res = explainSearch(t, s, s.Key, kb.ID, map[string]any{"query": "citation", "mode": "vector", "explain": true})
		for _, h := range res.Results {
			if h.Explain.FullTextScore != nil || h.Explain.VectorSimilarity == nil || *h.Explain.VectorSimilarity != h.Explain.FusedScore {
				t.Fatalf("vector mode: %+v", h.Explain)
			}
		}
		r = s.Do(t, "PUT", "/knowledge_bases/"+kb.ID+"/search-settings", s.Key, map[string]any{"reset": []string{"mode", "feedback", "candidate_depth", "reranker_model"}, "vector_weight": 0.3})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &set)
		if set["mode"] != "full_text" || set["vector_weight"] != 0.3 || set["reranker_model"] != nil || len(set["explicit"].([]any)) != 1 {
			t.Fatalf("reset: %s", r.Body)
		}
		// Bad settings: 422 naming the field; nothing changes.
		for _, bad := range []map[string]any{{"mode": "fuzzy"}, {"vector_weight": 1.5}, {"candidate_depth": 5}, {"reset": []string{"colour"}}, {"reranker_model": "nope"}} {
			r := s.Do(t, "PUT", "/knowledge_bases/"+kb.ID+"/search-settings", s.Key, bad)
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%v: %d %s", bad, r.Status, r.Body)
			}
		}
		wantStatus(t, s.Do(t, "POST", "/knowledge_bases/"+kb.ID+"/search", s.Key, map[string]any{"query": "x", "mode": "fuzzy"}), http.StatusUnprocessableEntity)
		s.Do(t, "GET", "/knowledge_bases/"+kb.ID+"/search-settings", s.Key, nil).JSON(t, &set)
		if set["vector_weight"] != 0.3 {
			t.Errorf("a refused update changed the settings: %v", set)
		}

		// Another account's knowledge base is 404, read or written.
		other := s.NewTenant(t, "other")
		wantStatus(t, s.Do(t, "GET", "/knowledge_bases/"+kb.ID+"/search-settings", other.Key, nil), http.StatusNotFound)
		wantStatus(t, s.Do(t, "PUT", "/knowledge_bases/"+kb.ID+"/search-settings", other.Key, map[string]any{"mode": "vector"}), http.StatusNotFound)
		wantStatus(t, s.Do(t, "GET", "/knowledge_bases/01234567-89ab-7def-8123-456789abcdef/search-settings", s.Key, nil), http.StatusNotFound)
		b, _ := json.Marshal(set)
		if strings.Contains(string(b), other.AccountID) {
			t.Error("leak")
		}
	})
}

// The project's evaluation set through the API on both databases: the
// default search ranks at least as well as the textbook BM25 of the same
// documents, and better than the search it replaced (0.696 nDCG@10).
// (CISI's bar, 1.05× the textbook BM25, is checked in process by evalset
// and through the API by bench/retrieval: 1,460 uploads are too slow for
// a unit test.)
func TestKnowledgeSearchQuality(t *testing.T) {
	t.Parallel()
	c, err := evalset.Load("../knowledge/evalset/testdata", "")
	if err != nil {
		t.Fatal(err)
	}
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		r := s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Eval", "source_type": "custom_index"})
		wantStatus(t, r, http.StatusCreated)
		var src struct{ ID string }
		r.JSON(t, &src)
		docOf := map[string]string{}
		var ids []string
		for _, doc := range c.Docs {
			r := s.Do(t, "POST", "/sources/"+src.ID, s.Key, map[string]any{"text": doc.Text, "title": doc.Title})
			wantStatus(t, r, http.StatusOK)
			var up struct {
				ID string `json:"source_connection_content_version_id"`
			}
			r.JSON(t, &up)
			docOf[up.ID] = doc.ID
			ids = append(ids, up.ID)
		}
		for _, id := range ids {
			waitIndexed(t, s, s.Key, id, "")
		}
		r = s.Do(t, "POST", "/knowledge_bases", s.Key, map[string]any{"name": "Eval", "source_ids": []string{src.ID}})
		wantStatus(t, r, http.StatusCreated)
		var kb struct{ ID string }
		r.JSON(t, &kb)
		tb := evalset.NewTextbook(c.Docs)
		var got, base float64
		for _, q := range c.Queries {
			var ranked []string
			for _, h := range explainSearch(t, s, s.Key, kb.ID, map[string]any{"query": q.Text, "top_n": 10}).Results {
				ranked = append(ranked, docOf[h.ContentID])
			}
			got += evalset.NDCG(ranked, c.Qrels[q.ID], 10)
			base += evalset.NDCG(tb.Search(q.Text, 10), c.Qrels[q.ID], 10)
		}
		n := float64(len(c.Queries))
		got, base = got/n, base/n
		t.Logf("nDCG@10 %.4f, textbook BM25 %.4f (%.3f×)", got, base, got/base)
		if got < base || got <= 0.696 {
			t.Errorf("nDCG@10 %.4f: below the textbook BM25 %.4f, or not above the search it replaced (0.696)", got, base)
		}
	})
}
