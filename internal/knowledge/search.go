package knowledge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/agentry/agentry/internal/knowledge/fusion"
	"github.com/agentry/agentry/internal/knowledge/lexical"
	"github.com/agentry/agentry/internal/knowledge/metafilter"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
)

// SearchRequest is a knowledge-base search.
type SearchRequest struct {
	Query string
	// TopN is how many passages retrieval keeps (before reranking), TopK
	// how many reranking keeps; 0 takes the knowledge base's defaults.
	TopN, TopK int
	// Threshold drops passages scoring below it (nil: the default).
	Threshold *float64
	Filter    *metafilter.Filter
	// SourceIDs narrows the search to some of the knowledge base's sources.
	SourceIDs []string
	// StrictSources refuses a SourceIDs entry that is not a source of the
	// knowledge base (an API caller's mistake) instead of ignoring it (a
	// saved step's source may have left the knowledge base since).
	StrictSources bool
	// Meta says who pays for model calls (query embedding, reranking).
	Meta llm.CallMeta
	// Settings override the knowledge base's search settings for this
	// search (hit testing); the zero value overrides nothing.
	Settings SearchSettings
}

// SearchHit is one ranked passage.
type SearchHit struct {
	ChunkID, Text                  string
	Score                          float64
	ContentID, VersionID, SourceID string
	Title                          string
	Metadata                       map[string]any
	Ordinal, TextStart, TextEnd    int
	ContentURL                     string
	Explain                        HitExplain
}

// HitExplain says how a hit was ranked. A side that did not run, or did
// not score the passage, is nil. Ranks count from 1.
type HitExplain struct {
	// FullTextScore is the passage's BM25F score for the query (after
	// feedback when it ran), FullTextRank its place among the full-text
	// candidates.
	FullTextScore *float64 `json:"fulltext_score"`
	FullTextRank  *int     `json:"fulltext_rank"`
	// VectorSimilarity is the cosine similarity of the passage's
	// embedding to the query's, VectorRank its place among the vector
	// candidates.
	VectorSimilarity *float64 `json:"vector_similarity"`
	VectorRank       *int     `json:"vector_rank"`
	// FusedScore and FusedRank are the passage's score and place after
	// fusion, before any reranker.
	FusedScore float64 `json:"fused_score"`
	FusedRank  int     `json:"fused_rank"`
	// RerankScore is the reranker's score, when one ran.
	RerankScore *float64 `json:"rerank_score"`
}

// SearchResult is a search's hits with how they were found.
type SearchResult struct {
	Hits     []SearchHit
	Settings EffectiveSettings
	// QueryTerms are the terms the full-text side scored (stemmed,
	// stopwords dropped); FeedbackTerms those feedback added.
	QueryTerms, FeedbackTerms []string
}

// Limits of a search.
const (
	MaxQueryBytes  = 8192
	MaxTopN        = 200
	DefaultTopN    = 10
	maxFilterScope = 20_000 // contents considered for a metadata filter
)

// Search runs a search over a knowledge base with its search settings.
func (s *Service) Search(ctx context.Context, accountID, kbID string, req SearchRequest) ([]SearchHit, error) {
	r, err := s.SearchExplained(ctx, accountID, kbID, req)
	return r.Hits, err
}

// SearchExplained is Search with how the hits were ranked.
func (s *Service) SearchExplained(ctx context.Context, accountID, kbID string, req SearchRequest) (res SearchResult, err error) {
	ctx, span := telemetry.StartRetrieval(ctx, kbID, req.Query, req.TopK)
	defer func() { span.Hits(len(res.Hits)); span.End(err) }()
	kb, err := s.repo().KnowledgeBase(ctx, accountID, kbID)
	if err != nil {
		return SearchResult{}, err
	}
	return s.search(ctx, accountID, kb, req)
}

// SearchSources runs the same search over sources of the account that no
// knowledge base groups (a memory bank's source), with the default
// settings and no reranker.
func (s *Service) SearchSources(ctx context.Context, accountID string, sourceIDs []string, req SearchRequest) ([]SearchHit, error) {
	r, err := s.search(ctx, accountID, KnowledgeBase{AccountID: accountID, SourceIDs: sourceIDs}, req)
	return r.Hits, err
}

// candidate is a passage either side found.
type candidate struct {
	seq      int64
	sourceID string
	lex      *float64
	lexRank  int
	vec      *float64
	vecRank  int
	fused    float64
}

func (s *Service) search(ctx context.Context, accountID string, kb KnowledgeBase, req SearchRequest) (SearchResult, error) {
	q := strings.TrimSpace(req.Query)
	if q == "" {
		return SearchResult{}, invalid("query", "query is empty")
	}
	if len(q) > MaxQueryBytes {
		return SearchResult{}, invalid("query", fmt.Sprintf("query is at most %d bytes", MaxQueryBytes))
	}
	if err := req.Settings.validate(); err != nil {
		return SearchResult{}, err
	}
	sourceIDs := kb.SourceIDs
	if req.StrictSources {
		for i, want := range req.SourceIDs {
			if !slices.Contains(sourceIDs, want) {
				return SearchResult{}, &InvalidError{Field: "source_ids", Index: i, Indexed: true, Msg: fmt.Sprintf("%s is not a source of this knowledge base", want)}
			}
		}
	}
	if len(req.SourceIDs) > 0 {
		var keep []string
		for _, id := range sourceIDs {
			for _, want := range req.SourceIDs {
				if id == want {
					keep = append(keep, id)
				}
			}
		}
		sourceIDs = keep
	}
	topN := req.TopN
	if topN <= 0 && kb.DefaultTopN != nil {
		topN = *kb.DefaultTopN
	}
	if topN <= 0 {
		topN = DefaultTopN
	}
	topN = min(topN, MaxTopN)
	topK := req.TopK
	if topK <= 0 && kb.DefaultTopK != nil {
		topK = *kb.DefaultTopK
	}
	threshold := req.Threshold
	if threshold == nil {
		threshold = kb.DefaultScoreThreshold
	}
	// Only the account's live sources are searched, whatever the links say.
	srcs := map[string]Source{}
	groups := map[string][]string{}
	var mine []string
	offlineOnly := true
	for _, id := range sourceIDs {
		src, err := s.repo().Source(ctx, accountID, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return SearchResult{}, err
		}
		srcs[id] = src
		mine = append(mine, id)
		key := fmt.Sprintf("%s\x00%d", src.EmbeddingModel, src.Dimensions)
		groups[key] = append(groups[key], id)
		offlineOnly = offlineOnly && isOffline(src)
	}
	sourceIDs = mine
	set := req.Settings.apply(parseSettings(kb.SearchSettings).apply(DefaultSettings(offlineOnly)))
	if kb.RerankerModel != nil {
		set.RerankerModel = *kb.RerankerModel
	}
	res := SearchResult{Hits: []SearchHit{}, Settings: set}
	if len(sourceIDs) == 0 {
		return res, nil
	}
	// A metadata filter narrows the contents first, so both sides rank
	// only what may be answered.
	var allowed map[string]bool
	contents := map[string]Content{}
	if req.Filter != nil {
		all, err := s.repo().ContentsOfSources(ctx, accountID, sourceIDs, maxFilterScope)
		if err != nil {
			return res, err
		}
		allowed = map[string]bool{}
		for _, c := range all {
			if req.Filter.Match(c.Metadata) {
				allowed[c.ID] = true
				contents[c.ID] = c
			}
		}
		if len(allowed) == 0 {
			return res, nil
		}
	}
	depth := max(set.CandidateDepth, topN)
	cands := map[int64]*candidate{}
	cand := func(seq int64, sourceID string) *candidate {
		c, ok := cands[seq]
		if !ok {
			c = &candidate{seq: seq, sourceID: sourceID}
			cands[seq] = c
		}
		return c
	}

	// The query's embedding, per source: for the vector side, and for the
	// similarity explained in full-text mode where it costs nothing (the
	// offline embedder).
	qvecs := map[string][]float32{}
	for _, ids := range groups {
		src := srcs[ids[0]]
		if set.Mode == SearchFullText && !isOffline(src) {
			continue
		}
		vecs, err := s.embedderFor(src).Embed(ctx, req.Meta, []string{q})
		if err != nil {
			return res, fmt.Errorf("embed the query: %w", err)
		}
		for _, id := range ids {
			qvecs[id] = vecs[0]
		}
	}

	// Vector side.
	if set.Mode != SearchFullText {
		var vhits []VectorHit
		for _, ids := range groups {
			qv := qvecs[ids[0]]
			k := depth
			if allowed != nil {
				k = depth * 4 // over-fetch: the filter drops some
			}
			hits, err := s.index.Search(ctx, accountID, ids, srcs[ids[0]].EmbeddingModel, len(qv), qv, k)
			if err != nil {
				return res, err
			}
			for _, h := range hits {
				// A passage orthogonal to the query (or opposite) is no
				// evidence of relevance.
				if h.Score > 0 {
					vhits = append(vhits, h)
				}
			}
		}
		sort.SliceStable(vhits, func(i, j int) bool {
			if vhits[i].Score != vhits[j].Score {
				return vhits[i].Score > vhits[j].Score
			}
			return vhits[i].Seq < vhits[j].Seq
		})
		rank := 0
		for _, h := range vhits {
			c := cand(h.Seq, h.SourceID)
			if c.vec != nil {
				continue // the same passage through another embedding group
			}
			sim := float64(h.Score)
			rank++
			c.vec, c.vecRank = &sim, rank
		}
	}

	// Full-text side. lexMax is the best score the query could reach,
	// which puts full-text scores on a 0–1 scale.
	var lexMax float64
	terms := lexical.ParseQuery(q)
	for _, t := range terms {
		res.QueryTerms = append(res.QueryTerms, t.Term)
	}
	if set.Mode != SearchVector && len(terms) > 0 {
		idxs, done, err := s.lex.Indexes(ctx, sourceIDs)
		if err != nil {
			return res, err
		}
		defer done()
		plan := lexPlan(idxs, terms)
		hits := lexSearch(idxs, sourceIDs, plan, allowed, depth, nil)
		if set.Feedback && len(hits) > 0 {
			fb, err := s.feedbackDocs(ctx, accountID, hits[:min(len(hits), lexical.DefaultRM3.Docs)])
			if err != nil {
				return res, err
			}
			expanded := lexical.DefaultRM3.Expand(terms, fb)
			for _, t := range expanded[len(terms):] {
				res.FeedbackTerms = append(res.FeedbackTerms, t.Term)
			}
			plan = lexPlan(idxs, expanded)
			hits = lexSearch(idxs, sourceIDs, plan, allowed, depth, nil)
		}
		lexMax = plan.MaxScore()
		for i, h := range hits {
			c := cand(h.Key, h.source)
			score := h.Score
			c.lex, c.lexRank = &score, i+1
		}
		// The full-text score of the vector side's candidates it did not
		// rank among its own.
		extra := map[int64]float64{}
		for seq, c := range cands {
			if c.lex == nil {
				extra[seq] = 0
			}
		}
		if len(extra) > 0 {
			lexSearch(idxs, sourceIDs, plan, nil, 0, extra)
			for seq, v := range extra {
				score := v
				cands[seq].lex = &score
			}
		}
	}

	// The similarity of the full-text side's candidates the vector side
	// did not return (in hybrid mode, where it weighs in the fusion).
	if set.Mode == SearchHybrid {
		var need []int64
		for seq, c := range cands {
			if c.vec == nil && qvecs[c.sourceID] != nil {
				need = append(need, seq)
			}
		}
		if len(need) > 0 {
			vs, err := s.repo().ChunkVectorsBySeq(ctx, accountID, need)
			if err != nil {
				return res, err
			}
			for _, v := range vs {
				if c := cands[v.Seq]; c != nil {
					sim := cosine(qvecs[c.sourceID], v.Vector)
					c.vec = &sim
				}
			}
		}
	}

	// Fusion: the full-text score as a share of the best the query could
	// reach, and the cosine similarity, weighted; in vector mode the
	// similarity alone.
	order := make([]*candidate, 0, len(cands))
	for _, c := range cands {
		order = append(order, c)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].seq < order[j].seq })
	lex := make([]float64, len(order))
	vec := make([]float64, len(order))
	for i, c := range order {
		if c.lex != nil && lexMax > 0 {
			lex[i] = *c.lex / lexMax
		}
		vec[i] = math.NaN()
		if c.vec != nil {
			vec[i] = *c.vec
		}
	}
	w := set.VectorWeight
	switch set.Mode {
	case SearchFullText:
		w = 0
	case SearchVector:
		w = 1
	}
	for i, f := range fusion.Weighted(lex, vec, w) {
		order[i].fused = f
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].fused > order[j].fused })

	// Fetch the best candidates in order; chunks deleted meanwhile drop
	// out, and a passage repeating one already kept (same text of the
	// same content) is skipped.
	seen := map[string]bool{}
	fusedRank := 0
	for start := 0; start < len(order) && len(res.Hits) < topN; {
		end := min(len(order), start+topN+8)
		batch := order[start:end]
		start = end
		seqs := make([]int64, len(batch))
		for i, c := range batch {
			seqs[i] = c.seq
		}
		chunks, err := s.repo().ChunksBySeq(ctx, accountID, seqs)
		if err != nil {
			return res, err
		}
		bySeq := make(map[int64]Chunk, len(chunks))
		for _, c := range chunks {
			bySeq[c.Seq] = c
		}
		for _, cd := range batch {
			c, ok := bySeq[cd.seq]
			if !ok {
				// Deleted by another process (this one's deletions reach
				// the indexes directly): the indexes forget it.
				s.index.Forget(cd.sourceID, []int64{cd.seq})
				s.lex.Forget(cd.sourceID, []int64{cd.seq})
				continue
			}
			if allowed != nil && !allowed[c.ContentID] {
				continue
			}
			dup := c.ContentID + "\x00" + c.Text
			if seen[dup] {
				continue
			}
			seen[dup] = true
			ct, ok := contents[c.ContentID]
			if !ok {
				if ct, err = s.repo().Content(ctx, accountID, c.ContentID); err != nil {
					continue
				}
				contents[c.ContentID] = ct
			}
			title := ""
			if ct.Title != nil {
				title = *ct.Title
			}
			fusedRank++
			ex := HitExplain{FullTextScore: cd.lex, VectorSimilarity: cd.vec, FusedScore: cd.fused, FusedRank: fusedRank}
			if cd.lexRank > 0 {
				ex.FullTextRank = ptr(cd.lexRank)
			}
			if cd.vecRank > 0 {
				ex.VectorRank = ptr(cd.vecRank)
			}
			if ex.VectorSimilarity == nil && qvecs[c.SourceID] != nil {
				sim := cosine(qvecs[c.SourceID], c.Vector)
				ex.VectorSimilarity = &sim
			}
			res.Hits = append(res.Hits, SearchHit{ChunkID: c.ID, Text: c.Text, Score: cd.fused,
				ContentID: c.ContentID, VersionID: c.VersionID, SourceID: c.SourceID, Title: title, Metadata: ct.Metadata,
				Ordinal: c.Ordinal, TextStart: c.TextStart, TextEnd: c.TextEnd, ContentURL: ct.ContentURL, Explain: ex})
			if len(res.Hits) == topN {
				break
			}
		}
	}
	hits := res.Hits
	var err error
	if set.RerankerModel != "" && len(hits) > 0 {
		if hits, err = s.rerank(ctx, set.RerankerModel, q, hits, req.Meta); err != nil {
			return res, err
		}
		if topK > 0 && len(hits) > topK {
			hits = hits[:topK]
		}
	} else if req.TopK > 0 && len(hits) > req.TopK {
		hits = hits[:req.TopK]
	}
	if threshold != nil {
		kept := hits[:0]
		for _, h := range hits {
			if h.Score >= *threshold {
				kept = append(kept, h)
			}
		}
		hits = kept
	}
	// Results are in the order of the score they report.
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	res.Hits = hits
	return res, nil
}

func ptr[T any](v T) *T { return &v }

// sourcedHit is a full-text hit with its source.
type sourcedHit struct {
	lexical.Hit
	source string
}

// lexPlan prepares terms for scoring with the statistics of every index
// searched, so their scores compare.
func lexPlan(idxs []*lexical.Index, terms []lexical.QueryTerm) lexical.Plan {
	var st lexical.Stats
	for _, ix := range idxs {
		ix.AddStats(&st, terms)
	}
	return lexical.NewPlan(terms, st, lexical.DefaultParams)
}

// lexSearch searches every index and merges their best k.
func lexSearch(idxs []*lexical.Index, sourceIDs []string, plan lexical.Plan, allowed map[string]bool, k int, scores map[int64]float64) []sourcedHit {
	var all []sourcedHit
	for i, ix := range idxs {
		for _, h := range ix.Search(plan, allowed, k, scores) {
			all = append(all, sourcedHit{h, sourceIDs[i]})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Score != all[j].Score {
			return all[i].Score > all[j].Score
		}
		return all[i].Key < all[j].Key
	})
	if len(all) > k {
		all = all[:max(k, 0)]
	}
	return all
}

// feedbackDocs reads the passages fed back to RM3 with their scores.
func (s *Service) feedbackDocs(ctx context.Context, accountID string, hits []sourcedHit) ([]lexical.FeedbackDoc, error) {
	seqs := make([]int64, len(hits))
	for i, h := range hits {
		seqs[i] = h.Key
	}
	chunks, err := s.repo().ChunksBySeq(ctx, accountID, seqs)
	if err != nil {
		return nil, err
	}
	text := map[int64]string{}
	for _, c := range chunks {
		text[c.Seq] = c.Text
	}
	var out []lexical.FeedbackDoc
	for _, h := range hits {
		if t, ok := text[h.Key]; ok {
			out = append(out, lexical.FeedbackDoc{Score: h.Score, Terms: lexical.Terms(t)})
		}
	}
	return out, nil
}

func cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return math.Max(0, math.Min(1, dot/math.Sqrt(na*nb)))
}
